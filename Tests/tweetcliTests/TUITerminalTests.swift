import Foundation
import Testing
import TweetSystem
import TweetTestSupport

/// `tweetcli tui` as a person uses it, in tmux, on each engine: moving, liking (the store
/// changes), a tweet another process posts shown as waiting within a second with no key
/// pressed, a resize to 40 columns, Ctrl-Z and `fg`, and `q` leaving the terminal as it was
/// (its settings, as `stty -g` prints them, and no alternate screen).
@Suite(.enabled(if: TmuxSession.isAvailable), .serialized)
struct TUITerminalTests {
    /// An 80 × 24 tmux session with Ada registered and signed in.
    static func signedIn(environment: [String: String] = [:]) throws -> TmuxSession {
        let session = try TmuxSession(width: 80, height: 24, environment: environment)
        try session.tweetcli(
            ["register", "--email", "ada@example.com", "--username", "ada", "--fullname", "Ada", "--password-stdin"],
            stdin: "correct horse battery\n")
        return session
    }

    @Test(arguments: [false, true])
    func theAppMovesLikesShowsNewTweetsAndGivesTheTerminalBack(onPostgres: Bool) throws {
        var environment: [String: String] = [:]
        if onPostgres {
            guard PostgresCluster.isAvailable else { return }
            environment["TWEETCLI_STORE"] = try PostgresCluster.setUpLocation()
        }
        let session = try TmuxSession(width: 100, height: 30, environment: environment)
        let setUp = try session.run(
            "echo 'correct horse battery' | tweetcli register --email ada@example.com --username ada "
                + "--fullname Ada --password-stdin >/dev/null && for n in 1 2 3; do tweetcli post \"tweet number $n\" "
                + ">/dev/null; done; cd '\(session.home.path)'; stty -g > before.txt")
        #expect(setUp.status == 0, "\(setUp.screen.joined(separator: "\n"))")

        try session.type("clear; tweetcli tui")
        try session.waitFor("▌ tweet number 3")
        var screen = try session.waitFor("j/k move")
        #expect(screen[0].contains("Home") && screen[0].contains("everyone"), "\(screen.joined(separator: "\n"))")

        // j moves the selection to the second tweet; l likes it, in the store.
        try session.press("j")
        try session.waitFor("▌ tweet number 2")
        try session.press("l")
        try session.waitFor("Liked.")
        // Another process posts: the bar shows it waiting, with no key pressed.
        let posted = Date()
        let other = Process()
        other.executableURL = CLIRunner.executable
        other.arguments = ["post", "from another process"]
        other.environment = [
            "HOME": session.home.path, "XDG_STATE_HOME": session.home.appendingPathComponent("state").path,
            "TWEETCLI_STORE": environment["TWEETCLI_STORE"] ?? session.store,
        ]
        other.standardOutput = FileHandle.nullDevice
        try other.run()
        other.waitUntilExit()
        #expect(other.terminationStatus == 0)
        try session.waitFor("the new-tweet bar", timeout: 5) { $0.contains("↑ 1 new tweet · press . to show") }
        let took = Date().timeIntervalSince(posted)
        #expect(took < 1.5, "the bar showed after \(took) s")
        screen = try session.screen()
        #expect(!screen.contains { $0.contains("from another process") }, "not brought in until asked")
        try session.press(".")
        try session.waitFor("▌ from another process")
        #expect(try session.screen().contains { $0.contains("♥ 1") }, "the like shows")

        // The tabs and what opens from them: the profile with its header, a tweet's thread, back.
        try session.press("4")
        try session.waitFor("Profile · @ada")
        try session.waitFor("4 Tweets")
        try session.waitFor("[Tweets]  Replies  Likes  Media")
        // ← and → go through the profile's tabs: the Likes tab has the tweet liked above.
        try session.press("Right")
        try session.waitFor("Tweets  [Replies]  Likes  Media")
        try session.press("Right")
        try session.waitFor("Tweets  Replies  [Likes]  Media")
        try session.waitFor("▌ tweet number 2")
        try session.press("Left")
        try session.press("Left")
        try session.waitFor("[Tweets]  Replies  Likes  Media")
        try session.press("Enter")
        try session.waitFor("Thread")
        try session.press("Escape")
        try session.waitFor("Profile · @ada")
        try session.press("1")
        try session.waitFor("Home · everyone")

        // The composer: typed, counted and coloured as post --dry-run counts, posted with Ctrl-S.
        try session.press("n")
        try session.waitFor("New tweet")
        try session.type("hello from the sheet #tui", enter: false)
        try session.waitFor("25/280 · 255 left")
        try session.press("C-s")
        try session.waitFor("Posted.")
        try session.waitFor("▌ hello from the sheet #tui")
        // A reply closed with Esc is kept as the draft, and n opens it again.
        try session.press("r")
        try session.waitFor("Reply to @ada")
        try session.type("a reply to keep", enter: false)
        try session.press("Escape")
        try session.waitFor("Kept as a draft")
        let draft = session.home.appendingPathComponent("state/tweetcli/draft.txt")
        #expect((try? String(contentsOf: draft, encoding: .utf8)) == "a reply to keep\n")
        try session.press("n")
        try session.waitFor("a reply to keep")
        try session.press("Escape")

        // / searches tweets; on Explore, people; Explore has what is trending.
        try session.press("/")
        try session.waitFor("Search tweets:")
        try session.type("number", enter: true)
        try session.waitFor("Search · number")
        try session.waitFor("tweet number 1")
        try session.press("Escape")
        try session.press("2")
        try session.waitFor("Trending  #tui (1)")
        try session.press("/")
        try session.waitFor("Find people:")
        try session.type("ad", enter: true)
        try session.waitFor("People · ad")
        try session.waitFor("Ada @ada")
        try session.press("1")
        try session.waitFor("Home · everyone")

        // 40 columns: laid out again, nothing wider.
        try session.tmux(["resize-window", "-x", "40", "-y", "30"])
        screen = try session.waitFor("a narrow title") { $0.hasPrefix(" tweetcli  Home") && $0.count <= 40 }
        #expect(screen.allSatisfy { $0.count <= 40 }, "\(screen.joined(separator: "\n"))")
        try session.tmux(["resize-window", "-x", "100", "-y", "30"])

        // Ctrl-Z gives the shell back; fg brings the app back, drawn again.
        try session.press("C-z")
        try session.waitFor("Stopped")
        try session.waitForPrompt()
        try session.type("fg")
        try session.waitFor("j/k move")

        // q: the shell again, the app's status (through fg's) 0.
        try session.press("q")
        try session.waitForPrompt()
        try session.type("echo tui=$?")
        let status = try session.waitForStatus("tui")
        #expect(status.status == 0, "\(status.screen.joined(separator: "\n"))")
        let alternate = try session.tmux(["display-message", "-p", "#{alternate_on}"])
        #expect(alternate.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let same = try session.run("stty -g > after.txt; diff before.txt after.txt > stty.diff")
        let difference =
            (try? String(contentsOf: session.home.appendingPathComponent("stty.diff"), encoding: .utf8)) ?? ""
        #expect(same.status == 0, "the terminal's settings (stty -g) differ after q: \(difference)")
        let feed = try session.run("tweetcli feed --json --limit 4 > feed.json")
        #expect(feed.status == 0)
        let tweets = try jsonArray(
            String(decoding: try Data(contentsOf: session.home.appendingPathComponent("feed.json")), as: UTF8.self))
        let second = tweets.first { $0["caption"] as? String == "tweet number 2" }
        #expect(second?["likes"] as? Int == 1, "liked in the store")
    }

    @Test func aHostileCaptionCannotRetitleTheWindowOrMoveTheCursor() async throws {
        let session = try Self.signedIn()
        let id = try #require(
            try json(try session.tweetcli(["post", "placeholder", "--json"]))["id"] as? String)
        // Planted past post's checks, as a store written by hand or an older build could hold it.
        let exported = try session.tweetcli(["export"])
        let line = try #require(exported.split(separator: "\n").first { $0.contains("\"tweets/\(id)\"") })
        let hostile = line.replacingOccurrences(
            of: "\"caption\":\"placeholder\"",
            with: "\"caption\":\"hi \\u001b]2;owned\\u0007\\u001b[2J\\u001b[10;10Hmoved there\"")
        let planter = try CLIRunner(location: session.store)
        let document = try json(String(hostile))
        let fields = try JSONSerialization.data(withJSONObject: try #require(document["data"]))
        try await planter.plant([("tweets/\(id)", String(decoding: fields, as: UTF8.self))])
        let title = try session.tmux(["display-message", "-p", "#{pane_title}"])
        try session.type("clear; tweetcli tui; echo tui=$?")
        let screen = try session.waitFor("moved there")
        #expect(screen.contains { $0.contains("\\x1b]2;owned") }, "\(screen.joined(separator: "\n"))")
        #expect(try session.tmux(["display-message", "-p", "#{pane_title}"]) == title)
        try session.press("q")
        #expect(try session.waitForStatus("tui").status == 0)
    }

    @Test func withoutColourTheSelectionAndTheBarsStillShowInReverseVideo() throws {
        let session = try Self.signedIn(environment: ["NO_COLOR": "1"])
        try session.tweetcli(["post", "a #hashtag and @ada"])
        try session.type("clear; tweetcli tui")
        try session.waitFor("▌ a #hashtag and @ada")
        let colours = try session.tmux(["capture-pane", "-p", "-e"])
        // Reverse video for the title and key bars; no colour anywhere (tmux writes what it keeps).
        #expect(colours.contains("\u{1B}[7m"), "\(colours.debugDescription)")
        for code in ["[36m", "[31m", "[2m", "[38;", "[48;"] {
            #expect(!colours.contains("\u{1B}" + code), "\(code) in \(colours.debugDescription)")
        }
        try session.press("q")
        try session.waitForPrompt()
        // With colour, each tweet has its author's picture, in blocks of its colours.
        try session.type("clear; NO_COLOR= COLORTERM=truecolor tweetcli tui")
        let screen = try session.waitFor("j/k move")
        let row = try #require(screen.first { $0.contains("Ada @ada ·") }, "\(screen.joined(separator: "\n"))")
        #expect(row.hasPrefix("▌ ") && !row.dropFirst(2).hasPrefix("Ada"), "\(row)")
        let drawn = try session.tmux(["capture-pane", "-p", "-e"])
        #expect(drawn.contains("[38;2;") || drawn.contains("[38;5;"), "\(drawn.debugDescription)")
        try session.press("q")
        try session.waitForPrompt()
    }

    @Test func closingTheTerminalEndsTheApp() throws {
        let session = try Self.signedIn()
        try session.type("clear; tweetcli --store '\(session.store)' tui")
        try session.waitFor("j/k move")
        func running() throws -> Bool {
            let found = try ChildProcess.run(
                "/usr/bin/pgrep", arguments: ["pgrep", "-f", "--", "--store \(session.store) tui"],
                options: .init(standardOutput: .file("/dev/null"), standardError: .file("/dev/null")))
            return found == .exited(0)
        }
        #expect(try running())
        // The window goes: the app is told (SIGHUP, then a terminal that reads as gone) and ends.
        try session.tmux(["kill-server"])
        let deadline = Date().addingTimeInterval(5)
        while try running(), Date() < deadline { usleep(50_000) }
        #expect(try !running(), "the app outlived its terminal")
    }

    @Test func aDumbTerminalOrAPipeIsOneSentence() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let piped = try cli.run(["tui"])
        #expect(piped.status == 1 && piped.stderr == "error: tweetcli tui needs a terminal on its input and output\n")
        let dumb = try cli.run(["tui"], environment: ["TERM": "dumb"])
        #expect(dumb.status == 1 && dumb.stderr.contains("TERM=dumb"), "\(dumb.stderr)")
    }
}
