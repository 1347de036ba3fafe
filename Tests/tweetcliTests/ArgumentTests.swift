import Foundation
import Testing
import TweetTestSupport

/// Command-line edge cases: `--`, help, global flags, negative numbers, and no store left behind.
struct ArgumentTests {
    @Test func afterDoubleDashADashIsACaptionNotHelp() throws {
        let cli = try CLIRunner()
        try cli.register("dash", fullname: "Dash")
        let result = try cli.run(["post", "--json", "--", "-h"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try json(result.stdout)["caption"] as? String == "-h")
    }

    @Test(arguments: [["feed", "--json=no"], ["post", "-inf"], ["feed", "-x"]])
    func badFlagsAreUsageErrors(_ arguments: [String]) throws {
        let cli = try CLIRunner()
        let result = try cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(!result.stderr.contains("tweetcli tweetcli"))
    }

    @Test func aCommandOnAMissingStoreLeavesNoDirectoryBehind() throws {
        let cli = try CLIRunner()
        let typo = cli.home.appendingPathComponent("typo").path
        for arguments in [["like", "nope"], ["feed"], ["explore"], ["profile", "@nobody"]] {
            _ = try cli.run(["--store", typo] + arguments, store: false)
        }
        #expect(!FileManager.default.fileExists(atPath: typo))
        let feed = try cli.run(["--store", typo, "feed"], store: false)
        #expect(feed.status == 0)
        // The hint repeats --store, so it works as typed.
        #expect(feed.stderr.contains("tweetcli --store \(typo) register"))
    }
}
