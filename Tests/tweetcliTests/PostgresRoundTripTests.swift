import Foundation
import Testing
import TweetStorePostgres
import TweetTestSupport

/// How many round trips to PostgreSQL each reading command makes, counted on the wire by a relay
/// between tweetcli and the server: as the database's owner, and as a signed-in device on a
/// database set up for many people.
@Suite(.serialized, .enabled(if: PostgresCluster.isAvailable))
struct PostgresRoundTripTests {
    /// Each reading command and the most round trips it may make after connecting, in order: Ada
    /// has an unread notification until `notifications` marks it seen. These are what the engine
    /// makes now, so that none grows unnoticed; the target is 2 (see docs/BENCHMARK.md).
    static let budgets: [(arguments: [String], trips: Int)] = [
        (["feed"], 2), (["feed", "--following"], 2), (["profile", "@cy"], 2),
        (["profile", "@cy", "--tab", "likes"], 2), (["profile", "@cy", "--tab", "replies"], 2),
        (["profile", "@cy", "--tab", "media"], 2), (["profile", "CY"], 2), (["profile"], 2),
        (["search", "garden"], 2), (["search", "#garden"], 2), (["bookmarks"], 2), (["trends"], 2),
        (["explore", "c"], 2), (["whoami"], 2), (["show", "TWEET"], 2), (["thread", "TWEET"], 2),
        // Reads, then marks what it showed as seen: a write transaction of its own.
        (["notifications"], 8),
        // Nothing unread now.
        (["feed"], 2), (["whoami"], 2),
        // Writes (issue 46 asks 2 of reads only): what they make now, so that none grows unnoticed.
        (["unlike", "TWEET"], 9), (["like", "TWEET"], 8), (["post", "another #garden in the city"], 11),
    ]

    @Test(arguments: [false, true])
    func everyReadingCommandMakesFewRoundTrips(setUp: Bool) throws {
        let socket = try PostgresCluster.state.get()
        let relay = try RoundTripCounter(target: socket)
        let store = relay.relayed(
            setUp ? try PostgresCluster.setUpLocation() : try PostgresCluster.freshLocation(), socket: socket)
        let ada = try CLIRunner(location: store)
        let cy = try CLIRunner(location: store)
        let cyUid = try cy.register("cy", fullname: "Cy")
        let tweet = try cy.post("a #garden in the city")
        try ada.register("ada", fullname: "Ada")
        for arguments in [
            ["follow", "@cy"], ["like", tweet], ["bookmark", tweet], ["post", "garden reply", "--reply-to", tweet],
        ] {
            #expect(try ada.run(arguments).status == 0, "\(arguments)")
        }
        #expect(try cy.run(["like", try ada.post("hello @cy")]).status == 0)
        // What connecting costs (one answer by trust, three by SCRAM), counted on its own.
        let before = relay.answers
        _ = try PostgresConnection(try PostgresLocation(store))
        let startup = relay.answers - before
        #expect(startup == (setUp ? 3 : 1), "answers to connect: \(startup)")

        var made: [String] = []
        for (arguments, budget) in Self.budgets {
            let command = arguments.map { $0 == "TWEET" ? tweet : $0 == "CY" ? cyUid : $0 }
            let start = relay.answers
            let result = try ada.run(command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            let trips = relay.answers - start - startup
            made.append("\(arguments.joined(separator: " ")): \(trips)")
            #expect(
                trips <= budget, "\(arguments.joined(separator: " ")) made \(trips) round trips, more than \(budget)")
        }
        // Signed out (on the owner's database, where one may read): no session check to go with,
        // so the tab's first page goes with the account's documents.
        if !setUp {
            let start = relay.answers
            let result = try CLIRunner(location: store).run(["profile", cyUid])
            #expect(result.status == 0, "signed-out profile: \(result.stderr)")
            let trips = relay.answers - start - startup
            made.append("profile CY (signed out): \(trips)")
            #expect(trips <= 2, "a signed-out profile made \(trips) round trips, more than 2")
        }
        print("round trips (\(setUp ? "set up" : "owner")): \(made.joined(separator: ", "))")
    }
}
