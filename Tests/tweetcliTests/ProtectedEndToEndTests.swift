import Foundation
import Testing
import TweetTestSupport

/// Protected accounts and leaving, run as people run them, on both engines: what each side is
/// told, and what a terminal shows when `delete-account` asks.
struct ProtectedEndToEndTests {
    static var engines: [String] { ["local"] + (PostgresCluster.isAvailable ? ["postgresql"] : []) }

    private func makeCLI(_ engine: String) throws -> CLIRunner {
        engine == "local" ? try CLIRunner() : try CLIRunner(location: try PostgresCluster.setUpLocation())
    }

    @Test(arguments: engines)
    func aProtectedAccountIsAskedAndAnswers(_ engine: String) throws {
        let cli = try makeCLI(engine)
        try cli.register("bob", fullname: "Bob")
        try cli.register("ada", fullname: "Ada")
        let protect = try cli.run(["edit-profile", "--protected", "on"])
        #expect(protect.status == 0 && protect.stdout.contains("@ada  🔒 protected"), "\(protect.stdout)")
        let secret = try cli.post("ada's secret")
        let seen = try cli.run(["--as", "@bob", "feed"])
        #expect(seen.status == 0 && !seen.stdout.contains("secret"))
        let profile = try cli.run(["--as", "@bob", "profile", "@ada"])
        #expect(profile.status == 0 && profile.stdout.contains("🔒 @ada's tweets are protected"), "\(profile.stdout)")
        #expect(!profile.stdout.contains("secret"))
        let hidden = "error: @ada's tweets are protected; only the followers @ada approves see them\n"
        for arguments in [["like", secret], ["thread", secret], ["post", "hi", "--reply-to", secret]] {
            let result = try cli.run(["--as", "@bob"] + arguments)
            #expect(result.status == 1 && result.stderr == hidden, "\(arguments): \(result.stderr)")
        }
        #expect(
            try cli.run(["--as", "@bob", "follow", "@ada"]).stdout
                == "Ada @ada is protected: you asked to follow them, and they will answer.\n")
        #expect(
            try cli.run(["--as", "@bob", "follow", "@ada"]).stdout
                == "You asked to follow Ada @ada already; they have not answered yet.\n")
        #expect(try cli.run(["--as", "@bob", "profile", "@ada"]).stdout.contains("[Requested]"))

        #expect(try cli.run(["notifications"]).stdout.contains("Bob asked to follow you"))
        let requests = try cli.run(["requests"])
        #expect(requests.stdout.hasPrefix("Bob @bob · "), "\(requests.stdout)")
        #expect(try cli.run(["approve", "@bob"]).stdout == "Bob @bob follows you now, and sees your tweets.\n")
        let again = try cli.run(["approve", "@bob"])
        #expect(again.status == 1 && again.stderr == "error: @bob has not asked to follow you\n")
        #expect(try cli.run(["requests"]).stdout == "No one is waiting for an answer.\n")

        #expect(try cli.run(["--as", "@bob", "feed"]).stdout.contains("ada's secret"))
        let retweet = try cli.run(["--as", "@bob", "retweet", secret])
        #expect(
            retweet.status == 1
                && retweet.stderr == "error: @ada's tweets are protected, so they cannot be retweeted or quoted\n")
        #expect(try cli.run(["--as", "@bob", "unfollow", "@ada"]).stdout == "You no longer follow Ada @ada.\n")
        #expect(!(try cli.run(["--as", "@bob", "feed"]).stdout.contains("secret")))
    }

    @Test(arguments: engines)
    func deleteAccountTakesThePasswordAndLeavesNothing(_ engine: String) throws {
        let cli = try makeCLI(engine)
        let bobID = try cli.register("bob", fullname: "Bob")
        _ = try cli.post("bob's tweet")
        let adaID = try cli.register("ada", fullname: "Ada")
        let adas = try cli.post("ada's tweet @bob")
        #expect(try cli.run(["follow", "@bob"]).status == 0)
        #expect(try cli.run(["--as", "@bob", "like", adas]).status == 0)
        let before = try cli.run(["export"]).stdout
        let wrong = try cli.run(["delete-account", "--password-stdin"], stdin: "not my password\n")
        #expect(wrong.status == 1 && wrong.stderr.hasPrefix("error: "), "\(wrong.stderr)")
        #expect(try cli.run(["export"]).stdout == before, "a wrong password changes nothing")

        let deleted = try cli.run(["delete-account", "--password-stdin"], stdin: "correct horse\n")
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(
            deleted.stdout
                == "Deleted @ada with 1 tweet, 0 retweets, 0 likes, 0 bookmarks, 1 follow. You are signed out of it.\n")
        #expect(!(try cli.run(["whoami"]).stdout.contains("@ada")), "signed out of it; bob is left")
        let login = try cli.run(["login", "--username", "ada", "--password-stdin"], stdin: "correct horse\n")
        #expect(login.status == 1)
        let after = try cli.run(["export"]).stdout
        #expect(!after.contains(adaID) && after.contains(bobID))
        let bob = try json(try cli.run(["--json", "profile", "@bob"]).stdout)
        #expect((bob["stats"] as? [String: Any])?["followers"] as? Int == 0)
        #expect(try cli.run(["doctor"]).status == 0)
    }

    @Test func badRequestsAndDeletionsAreOneSentenceAndChangeNothing() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let before = try cli.run(["export"]).stdout
        let cases: [([String], String)] = [
            (["edit-profile", "--protected", "maybe"], "error: --protected takes on or off, not 'maybe'\n"),
            (["approve"], "error: approve needs the @username of an account that asked to follow you\n"),
            (["deny", "@nobody"], "error: there is no user @nobody"),
            (["deny", "@ada"], "error: @ada has not asked to follow you\n"),
            (["requests", "--before", "nobody"], "error: nobody has not asked to follow you\n"),
            (["delete-account"], "error: there is no terminal to ask for your password on; nothing was deleted"),
            (["delete-account", "extra"], "error: unexpected argument 'extra'"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
        }
        #expect(try cli.run(["export"]).stdout == before)
    }

    /// On a terminal, `delete-account` says what goes and how to keep the tweets, and asks for the
    /// password without showing it; Ctrl-C keeps the account.
    @Test(.enabled(if: TmuxSession.isAvailable))
    func deleteAccountAsksOnTheTerminal() throws {
        let session = try TmuxSession(width: 100)
        try session.tweetcli(
            ["register", "--username", "ada", "--email", "ada@example.com", "--fullname", "Ada", "--password-stdin"],
            stdin: "correct horse\n")
        try session.tweetcli(["post", "ada's only tweet"])
        try session.type("tweetcli delete-account")
        try session.waitFor("Keep your tweets first with: tweetcli export --twtxt > my-tweets.txt")
        let screen = try session.waitFor("Your password, to delete the account")
        #expect(screen.contains { $0.contains("This deletes Ada @ada for good: 1 tweet") }, "\(screen)")
        try session.press("C-c")
        try session.waitForPrompt()
        #expect(try session.tweetcli(["whoami"]).contains("@ada"), "Ctrl-C kept the account")
        try session.type("tweetcli delete-account")
        try session.waitFor("Your password, to delete the account", count: 2)
        try session.type("correct horse")
        let done = try session.waitFor("Deleted @ada with 1 tweet")
        #expect(!done.joined().contains("correct horse"), "the password never shows")
    }
}
