import Foundation
import Testing
import TweetTestSupport

/// `block`, `mute` and their lists, run as people run them, on both engines: what each says, what
/// the other side meets, and a muted word that never reaches a terminal.
struct SafetyEndToEndTests {
    static var engines: [String] { ["local"] + (PostgresCluster.isAvailable ? ["postgresql"] : []) }

    private func makeCLI(_ engine: String) throws -> CLIRunner {
        engine == "local" ? try CLIRunner() : try CLIRunner(location: try PostgresCluster.setUpLocation())
    }

    /// The ID of the only tweet `search` finds for `query`, as `--json` gives it.
    private func tweetID(_ cli: CLIRunner, _ query: String, as user: String) throws -> String {
        let found = try jsonArray(try cli.run(["--json", "--as", "@" + user, "search", query]).stdout)
        return try #require(found.first?["id"] as? String)
    }

    @Test(arguments: engines)
    func aBlockedAccountMeetsOneSentenceEverywhere(_ engine: String) throws {
        let cli = try makeCLI(engine)
        try cli.register("ada", fullname: "Ada")
        try cli.register("bob", fullname: "Bob")
        _ = try cli.post("bob was here")
        try cli.login("ada")
        _ = try cli.post("ada was here")
        let adas = try tweetID(cli, "ada", as: "ada")
        #expect(try cli.run(["follow", "@bob"]).status == 0)
        let block = try cli.run(["block", "@BOB"])
        #expect(block.status == 0)
        #expect(block.stdout.hasPrefix("You blocked Bob @bob."), "\(block.stdout)")
        #expect(try cli.run(["block", "bob"]).stdout == "You already block Bob @bob.\n")
        #expect(try cli.run(["blocks"]).stdout.hasPrefix("Bob @bob · since "))
        #expect(!(try cli.run(["feed"]).stdout.contains("bob was here")))
        let profile = try cli.run(["profile", "@bob"])
        #expect(profile.status == 1 && profile.stderr == "error: you blocked @bob; unblock them first\n")
        // bob: one sentence for each thing he tries, and nothing changes.
        for arguments in [
            ["like", adas], ["retweet", adas], ["follow", "@ada"], ["post", "hi", "--reply-to", adas],
            ["profile", "@ada"],
            ["thread", adas],
        ] {
            let result = try cli.run(["--as", "@bob"] + arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "error: @ada blocked you\n", "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(!(try cli.run(["--as", "@bob", "feed"]).stdout.contains("ada was here")))
        #expect(try cli.run(["unblock", "@bob"]).stdout.hasPrefix("You unblocked Bob @bob."))
        #expect(try cli.run(["blocks"]).stdout == "You block no one.\n")
        #expect(try cli.run(["--as", "@bob", "like", adas]).status == 0)
    }

    @Test(arguments: engines)
    func mutedWordsAndAccountsLeaveEveryListingOfTheMuterOnly(_ engine: String) throws {
        let cli = try makeCLI(engine)
        try cli.register("ada", fullname: "Ada")
        try cli.register("bob", fullname: "Bob")
        _ = try cli.post("spoilers for the final #finale")
        _ = try cli.post("a quiet morning")
        try cli.login("ada")
        #expect(try cli.run(["mute", "#FINALE", "--for", "7d"]).stdout == "You muted “#FINALE” for 7 days.\n")
        #expect(!(try cli.run(["feed"]).stdout.contains("spoilers")))
        #expect(try cli.run(["search", "final"]).stdout.contains("No tweets match"))
        #expect(try cli.run(["mutes"]).stdout.hasPrefix("“#FINALE” · until "))
        #expect(try cli.run(["--as", "@bob", "feed"]).stdout.contains("spoilers"), "bob's view is his own")
        #expect(try cli.run(["mute", "@bob"]).stdout == "You muted Bob @bob. They are not told.\n")
        #expect(!(try cli.run(["feed"]).stdout.contains("quiet morning")))
        #expect(try cli.run(["profile", "@bob"]).stdout.contains("quiet morning"), "a profile still shows them")
        #expect(try cli.run(["unmute", "@bob"]).stdout == "You unmuted Bob @bob.\n")
        #expect(try cli.run(["unmute", "#finale"]).stdout == "You unmuted “#finale”.\n")
        #expect(try cli.run(["mutes"]).stdout == "You mute nothing.\n")
        #expect(try cli.run(["feed"]).stdout.contains("spoilers"))
    }

    @Test func badBlocksAndMutesAreOneSentenceAndChangeNothing() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let before = try cli.run(["export"]).stdout
        let cases: [([String], String)] = [
            (["block"], "error: block needs the @username of an account\n"),
            (["block", "@ada"], "error: you cannot block yourself\n"),
            (["block", "@nobody"], "error: there is no user @nobody"),
            (["mute", "@ada"], "error: you cannot mute yourself\n"),
            (["mute", "@ada", "--word", "x"], "error: mute takes --word or an account, not both\n"),
            (["mute", "--word", "x", "--for", "2w"], "error: --for takes whole hours or days"),
            (["mute", "--word", "x", "--for", "0h"], "error: --for takes whole hours or days"),
            (["mute", "--word", "from:bob"], "error: a muted word cannot hold from:"),
            (["mute", "--word", "!!!"], "error: there is nothing to search for"),
            (["unmute", "--word", "x", "--for", "1d"], "error: unknown option '--for'"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
        }
        #expect(try cli.run(["export"]).stdout == before)
    }

    /// On a terminal, a muted word is not on the screen after `feed`, `search` or `notifications`.
    @Test(.enabled(if: TmuxSession.isAvailable))
    func aMutedWordNeverReachesTheScreen() throws {
        let session = try TmuxSession(width: 80)
        let password = "correct horse\n"
        let register = ["--email", "", "--fullname", "", "--password-stdin"]
        for name in ["bob", "ada"] {
            var arguments = ["register", "--username", name] + register
            arguments[4] = "\(name)@example.com"
            arguments[6] = name.capitalized
            try session.tweetcli(arguments, stdin: password)
        }
        try session.tweetcli(["--as", "@bob", "post", "@ada the butler did it"])
        try session.tweetcli(["--as", "@bob", "post", "lunch was good"])
        try session.tweetcli(["mute", "--word", "butler"])
        for command in ["tweetcli feed", "tweetcli search did", "tweetcli notifications"] {
            let result = try session.run(command)
            #expect(result.status == 0, "\(command): \(result.screen)")
            #expect(!result.screen.joined().contains("butler"), "\(command): \(result.screen)")
        }
        #expect(try session.run("tweetcli feed").screen.joined().contains("lunch was good"))
    }
}
