import Foundation
import Testing
import TweetTestSupport

/// Daily use without friction, as a person meets it: typos get a "did you mean", pipes get only
/// the data, and a terminal gets an overview, a pager that shows colour, and wrapped text that
/// keeps its gutters.
struct EverydayUseTests {
    @Test(arguments: [
        (["fed"], "error: unknown command 'fed'; did you mean 'feed'?\n"),
        (["notif"], "error: unknown command 'notif'; did you mean 'notifications'?\n"),
        (["feed", "--limt", "3"], "error: unknown option '--limt'; did you mean '--limit'?\n"),
        (["--jsn", "feed"], "error: unknown option '--jsn'; did you mean '--json'?\n"),
        (["feed", "--jsno"], "error: unknown option '--jsno'; did you mean '--json'?\n"),
        (["post", "hi", "--replyto", "x"], "error: unknown option '--replyto'; did you mean '--reply-to'?\n"),
        (["xyzzy"], "error: unknown command 'xyzzy'; run 'tweetcli help' to see the commands\n"),
    ])
    func aTypoIsAUsageErrorThatSuggestsTheNearestName(_ arguments: [String], _ message: String) throws {
        let cli = try CLIRunner()
        let result = try cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }

    @Test func aMistypedUsernameSuggestsTheNearestOneInTheStore() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "5"]).status == 0)
        let cases: [([String], String)] = [
            (["profile", "@amar1"], "error: there is no user @amar1; did you mean @amara1?\n"),
            (["profile", "BARBAR0"], "error: there is no user BARBAR0; did you mean @barbara0?\n"),
            (["search", "from:barbraa0"], "error: there is no user @barbraa0; did you mean @barbara0?\n"),
            (["profile", "@zzzzzz"], "error: there is no user @zzzzzz; find people with: "),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aPipeGetsOnlyTheDataAndAReaderThatStopsEarlyIsNoError() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "5"]).status == 0)
        let bash = { (line: String) in
            try cli.run(
                ["-o", "pipefail", "-c", line],
                environment: ["PATH": CLIRunner.executable.deletingLastPathComponent().path + ":/usr/bin:/bin"],
                executable: "/bin/bash", store: false)
        }
        let store = cli.store.path
        // The rows alone: no "More:" line and no banner among them; those go to stderr.
        let piped = try bash(
            "tweetcli --store \(store) feed --limit 10 | grep -c -e '^More:' -e '^[0-9]* new notification'")
        #expect(piped.stdout == "0\n", "\(piped.stdout)")
        #expect(piped.stderr.contains("More: tweetcli --store \(store) feed --limit 10 --before "))
        let rows = try bash("tweetcli --store \(store) feed --limit 10 | grep -c '  id '")
        #expect(rows.stdout == "10\n")
        for line in ["export | head -1", "feed --limit 50 | head -2", "explore | head -1"] {
            let stopped = try bash("tweetcli --store \(store) \(line)")
            #expect(stopped.status == 0, "\(line): \(stopped.stderr)")
            #expect(!stopped.stderr.contains("error"), "\(line): \(stopped.stderr)")
        }
    }

    @Test func configGetShowsTheValueInForceAndWhereItComesFrom() throws {
        let cli = try CLIRunner()
        let unset = try cli.run(["config", "get", "limit"], store: false)
        #expect(unset.status == 0)
        #expect(unset.stdout == "20\n")
        #expect(unset.stderr.contains("(the default; not set in "))
        let color = try cli.run(["config", "get", "color", "--json"], environment: ["NO_COLOR": "1"], store: false)
        #expect(try json(color.stdout)["color"] as? String == "never")
        #expect(
            try json(color.stdout)["source"] as? String
                == "from $NO_COLOR; not set in \(cli.home.path)/.config/tweetcli/config")
        #expect(try cli.run(["config", "set", "limit", "7"], store: false).status == 0)
        let set = try cli.run(["config", "get", "limit"], store: false)
        #expect(set.stdout == "7\n")
        #expect(set.stderr.contains("(set in "))
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "needs tmux"))
    func bareTweetcliOnATerminalIsAShortOverviewThatExitsZero() throws {
        let session = try TmuxSession(width: 60, height: 40)
        let result = try session.run("tweetcli")
        #expect(result.status == 0)
        let screen = result.screen.joined(separator: "\n")
        #expect(screen.contains("Everyday commands:"))
        #expect(screen.contains("See all"))
        // Wrapped at words: every row ends in a whole word, and no row is wider than the window.
        #expect(result.screen.allSatisfy { $0.count <= 60 })
        #expect(screen.contains("  post           Post a tweet (no caption on a terminal\n"), "\(screen)")
        #expect(screen.contains("\n                 opens $VISUAL or $EDITOR; - reads stdin)\n"), "\(screen)")
        let piped = try session.run("tweetcli 2>&1 >/dev/null | head -1")
        #expect(piped.screen.contains { $0.hasPrefix("tweetcli ") })
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "needs tmux"))
    func lessShowsColourWhenLessIsUnsetAsGitDoes() throws {
        let session = try TmuxSession(width: 80, height: 10, environment: ["PAGER": "less"])
        try session.tweetcli(["seed", "--users", "5"])
        try session.type("clear; unset LESS; tweetcli feed --color always --limit 20")
        let screen = try session.waitFor(":")
        #expect(!screen.joined().contains("ESC["), "\(screen.joined(separator: "\n"))")
        try session.press("q")
        try session.waitForPrompt()
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "needs tmux"))
    func aQuotedTweetKeepsItsGutterOnEveryWrappedLine() throws {
        let session = try TmuxSession(width: 40, height: 40)
        try session.tweetcli(
            [
                "register", "--email", "ada@example.com", "--username", "ada", "--fullname", "Ada Lovelace",
                "--password-stdin",
            ], stdin: "correct horse battery\n")
        let long = String(repeating: "quoted words wrap here ", count: 6)
        let quoted = try json(session.tweetcli(["post", long, "--json"]))["id"] as? String ?? ""
        try session.tweetcli(["post", "look at this", "--quote", quoted])
        let result = try session.run("tweetcli --no-pager feed --limit 1")
        let rows = result.screen
        let top = try #require(rows.firstIndex { $0.contains("│ Ada Lovelace") })
        let bottom = try #require(rows.firstIndex { $0.contains("│ id ") })
        #expect(bottom - top > 3, "the quote wraps over several rows")
        for row in rows[top...bottom] { #expect(row.hasPrefix("  │ "), "\(row)") }
    }
}
