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
