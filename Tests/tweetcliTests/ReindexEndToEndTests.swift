import Foundation
import Testing
import TweetTestSupport

/// `tweetcli reindex` with the built binary: a store whose index an older tweetcli wrote gets what
/// it lacks, with nobody signed in; a complete one, and a bad command line, change nothing.
@Suite(.serialized)
struct ReindexEndToEndTests {
    /// The terms an older tweetcli did not give these captions: each character of text without
    /// spaces, and a Korean word without its particle. No other caption has them.
    static let newTerms: Set<String> = ["猫", "が", "好", "き", "で", "す", "고양이", "고양"]

    /// Where a test's stores are: a local directory, or the tests' PostgreSQL cluster when it runs.
    enum Engine: String, CaseIterable, Sendable {
        case local, postgres

        static var available: [Engine] { [.local] + (PostgresCluster.isAvailable ? [.postgres] : []) }

        /// A fresh home with an empty store of this engine.
        func runner() throws -> CLIRunner {
            self == .local ? try CLIRunner() : try CLIRunner(location: try PostgresCluster.freshLocation())
        }
    }

    /// A store with three tweets, indexed by this version.
    static func makeStore(_ engine: Engine = .local) throws -> CLIRunner {
        let cli = try engine.runner()
        try cli.register("ada", fullname: "Ada")
        for caption in ["猫が好きです", "고양이를 좋아해요", "I like cats #pets"] { _ = try cli.post(caption) }
        return cli
    }

    @Test(arguments: Engine.available)
    func aCompleteIndexIsLeftAsItWas(_ engine: Engine) throws {
        let cli = try Self.makeStore(engine)
        let export = try cli.run(["export"]).stdout
        let journal = cli.journalBytes()
        let result = try cli.run(["reindex"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "The search index was already complete (3 tweets checked).\n")
        #expect(result.stderr.isEmpty)
        #expect(try cli.run(["export"]).stdout == export)
        #expect(cli.journalBytes() == journal)
        let report = try json(try cli.run(["reindex", "--json"]).stdout)
        #expect(report["tweets"] as? Int == 3 && report["added"] as? Int == 0)
    }

    @Test(arguments: Engine.available)
    func anIndexAnOlderVersionWroteGetsWhatItLacksWithNobodySignedIn(_ engine: Engine) throws {
        let original = try Self.makeStore(engine)
        // The store as an older version indexed it: without the new terms' documents.
        let lines = try original.run(["export"]).stdout.split(separator: "\n").filter { line in
            let path = (try? json(String(line)))?["path"] as? String ?? ""  // Every line parses: export wrote it.
            let parts = path.split(separator: "/").map(String.init)
            return !(parts.first == "terms" && parts.count > 1 && Self.newTerms.contains(parts[1]))
        }
        let cli = try engine.runner()
        #expect(try cli.run(["import", "-"], stdin: lines.joined(separator: "\n") + "\n").status == 0)
        #expect(try jsonArray(try cli.run(["search", "猫", "--json"]).stdout).isEmpty)
        #expect(try jsonArray(try cli.run(["search", "고양이", "--json"]).stdout).isEmpty)

        let result = try cli.run(["reindex"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Reindexed 3 tweets: 8 entries added.\n")
        #expect(result.stderr.isEmpty)
        #expect(try cli.run(["search", "猫"]).stdout.contains("猫が好きです"))
        #expect(try cli.run(["search", "고양이"]).stdout.contains("고양이를 좋아해요"))
        let found = try jsonArray(try cli.run(["search", "好", "--json"]).stdout).map { $0["id"] as? String }
        #expect(try found == jsonArray(try original.run(["search", "好", "--json"]).stdout).map { $0["id"] as? String })
        #expect(found.count == 1)

        let export = try cli.run(["export"]).stdout
        #expect(try cli.run(["reindex"]).stdout == "The search index was already complete (3 tweets checked).\n")
        #expect(try cli.run(["export"]).stdout == export)
    }

    @Test func extraArgumentsAreAUsageErrorThatChangesNothing() throws {
        let cli = try Self.makeStore()
        let journal = cli.journalBytes()
        let result = try cli.run(["reindex", "extra"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: unexpected argument 'extra'"))
        #expect(result.stderr.contains("usage: tweetcli reindex"))
        #expect(cli.journalBytes() == journal)
    }
}
