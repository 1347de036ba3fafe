import Foundation
import Testing
import TweetTestSupport

/// The small findings of an adversarial trial, end to end on each engine: a thread deeper than it
/// shows says so, and counters a store holds below zero are never shown or counted up from.
@Suite(.serialized)
struct SmallFindingsTests {
    /// A home on the local engine, or on PostgreSQL when the cluster runs; `nil` when it does not.
    static func makeCLI(onPostgres: Bool) throws -> CLIRunner? {
        guard onPostgres else { return try CLIRunner() }
        guard PostgresCluster.isAvailable else { return nil }
        return try CLIRunner(location: try PostgresCluster.freshLocation())
    }

    @Test(arguments: [false, true])
    func aThreadDeeperThanItShowsSaysHowManyTweetsAreAbove(onPostgres: Bool) throws {
        guard let cli = try Self.makeCLI(onPostgres: onPostgres) else { return }
        try cli.register("ada", fullname: "Ada")
        var ids = [try cli.post("reply 0")]
        for number in 1...105 { ids.append(try cli.post("reply \(number)", replyTo: ids[number - 1])) }
        let thread = try cli.run(["thread", ids[105]])
        #expect(thread.status == 0, "\(thread.stderr)")
        // The 100 nearest are shown, replies 5 to 104; replies 0 to 4 are above them.
        #expect(thread.stdout.contains("reply 5\n") && !thread.stdout.contains("reply 4\n"), "\(thread.stdout)")
        let first = try #require(thread.stdout.split(separator: "\n").first)
        #expect(first.hasPrefix("↑ 5 earlier tweets above; see them with: tweetcli --store "), "\(first)")
        #expect(first.hasSuffix(" thread \(ids[5])"), "\(first)")
        let json = try JSON.object(try cli.run(["thread", ids[105], "--json"]).stdout)
        #expect(json["ancestorsAbove"] as? Int == 5)
        #expect((json["ancestors"] as? [Any])?.count == 100)
        let shorter = try JSON.object(try cli.run(["thread", ids[100], "--json"]).stdout)
        #expect(shorter["ancestorsAbove"] as? Int == 0)
        let one = try cli.run(["thread", ids[101]])
        #expect(one.stdout.contains("1 earlier tweet above;"), "\(one.stdout.prefix(300))")
        #expect(!(try cli.run(["thread", ids[100]]).stdout.contains("earlier tweet")))
    }
}

/// JSON from a command's output.
enum JSON {
    static func object(_ text: String) throws -> [String: Any] { try json(text) }
}

extension SmallFindingsTests {
    /// A backup whose counters were set below zero (a damaged or hostile store), loaded into a
    /// fresh store: the counts read as 0, and the next like, retweet or follow makes them 1.
    @Test(arguments: [false, true])
    func countersBelowZeroReadAsZeroAndCountUpFromThere(onPostgres: Bool) async throws {
        guard let cli = try Self.makeCLI(onPostgres: onPostgres) else { return }
        let ada = try cli.register("ada", fullname: "Ada")
        let tweet = try cli.post("hello")
        try cli.register("bob", fullname: "Bob")
        // Import refuses counters below zero, so they are written past it, as a damaged store has them.
        var planted: [(path: String, json: String)] = []
        for line in try cli.run(["export"]).stdout.split(separator: "\n") {
            let document = try json(String(line))
            var data = document["data"] as? [String: Any] ?? [:]
            let path = document["path"] as? String ?? ""
            if path == "tweets/\(tweet)" {
                (data["likes"], data["retweets"], data["replyCount"], data["quotes"]) = (-5, -2, -7, -1)
            } else if path == "user-stats/\(ada)" {
                (data["followers"], data["following"], data["tweets"]) = (-3, -4, -9)
            } else {
                continue
            }
            planted.append((path, String(decoding: try JSONSerialization.data(withJSONObject: data), as: UTF8.self)))
        }
        #expect(planted.count == 2)
        try await cli.plant(planted)
        try cli.login("bob")
        let feed = try cli.run(["feed"])
        #expect(feed.stdout.contains("♡ 0  ↻ 0  ↩ 0"), "\(feed.stdout)")
        #expect(!feed.stdout.contains("-"), "a count below zero shown: \(feed.stdout)")
        let row = try #require(try jsonArray(try cli.run(["feed", "--json"]).stdout).first)
        #expect(row["likes"] as? Int == 0 && row["retweets"] as? Int == 0 && row["replyCount"] as? Int == 0)
        let profile = try json(try cli.run(["profile", "@ada", "--json"]).stdout)
        let stats = profile["stats"] as? [String: Any] ?? [:]
        #expect(stats["followers"] as? Int == 0 && stats["following"] as? Int == 0, "\(stats)")
        // Counted up from 0, not from below it.
        #expect(try cli.run(["like", tweet]).status == 0)
        #expect(try cli.run(["retweet", tweet]).status == 0)
        #expect(try cli.run(["post", "a reply", "--reply-to", tweet]).status == 0)
        #expect(try cli.run(["follow", "@ada"]).status == 0)
        let after = try #require(
            try jsonArray(try cli.run(["feed", "--json"]).stdout).first { $0["id"] as? String == tweet })
        #expect(after["likes"] as? Int == 1, "\(after)")
        #expect(after["retweets"] as? Int == 1 && after["replyCount"] as? Int == 1, "\(after)")
        let followed = try json(try cli.run(["profile", "@ada", "--json"]).stdout)["stats"] as? [String: Any]
        #expect(followed?["followers"] as? Int == 1, "\(String(describing: followed))")
        // And back down to 0, never below.
        #expect(try cli.run(["unlike", tweet]).status == 0)
        #expect(try cli.run(["unlike", tweet]).status == 0)
        let unliked = try #require(
            try jsonArray(try cli.run(["feed", "--json"]).stdout).first { $0["id"] as? String == tweet })
        #expect(unliked["likes"] as? Int == 0)
    }
}
