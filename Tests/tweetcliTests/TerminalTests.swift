import Foundation
import Testing
import TweetCLI
import TweetCore
import TweetStore
import TweetTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// tweetcli in a real pseudo-terminal (tmux): prompts, the editor, the delete question, the pager,
/// wrapping, and what stored escape sequences do to the screen.
@Suite(.enabled(if: TmuxSession.isAvailable), .serialized)
struct TerminalTests {
    let password = "correct horse battery"

    /// A session with ada registered and signed in, in a window `width` columns wide.
    func signedIn(width: Int = 100, height: Int = 40, environment: [String: String] = [:]) throws -> TmuxSession {
        let session = try TmuxSession(width: width, height: height, environment: environment)
        try session.tweetcli(
            [
                "register", "--email", "ada@example.com", "--username", "ada", "--fullname", "Ada Lovelace",
                "--password-stdin",
            ], stdin: password + "\n")
        return session
    }

    @Test func registerAsksForThePasswordTwiceWithoutEchoingIt() throws {
        let session = try TmuxSession(width: 100)
        try session.type("tweetcli register --email grace@example.com --username grace --fullname 'Grace Hopper'")
        try session.waitFor("Password (at least 8 characters):")
        try session.type("cobol-forever")
        try session.waitFor("Repeat the password:")
        try session.type("cobol-forever")
        let screen = try session.waitFor("Welcome, Grace Hopper!")
        #expect(!screen.joined().contains("cobol-forever"))
        #expect(try session.run("tweetcli whoami").screen.contains { $0.contains("@grace") })
    }

    /// A Twitter archive with nobody signed in: the account it names is made, with the password
    /// asked twice as register asks it, and the summary is the last line.
    @Test func anArchiveWithNobodySignedInAsksForTheNewAccountsPassword() throws {
        let session = try TmuxSession(width: 120)
        let data = session.home.appendingPathComponent("archive/data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try """
        window.YTD.account.part0 = [ { "account" : { "email" : "grace@example.com", "username" : "Grace_H",
          "accountId" : "7", "accountDisplayName" : "Grace Hopper" } } ]
        """.write(to: data.appendingPathComponent("account.js"), atomically: true, encoding: .utf8)
        try """
        window.YTD.tweet.part0 = [ { "tweet" : { "id_str" : "1600000000000000000", "full_text" : "bugs &amp; moths",
          "created_at" : "Mon Dec 12 10:00:00 +0000 2022", "entities" : { "urls" : [ ] } } } ]
        """.write(to: data.appendingPathComponent("tweet.js"), atomically: true, encoding: .utf8)
        try session.type("tweetcli import --twitter-archive \(session.home.path)/archive")
        try session.waitFor("Password (at least 8 characters):")
        #expect(try session.screen().contains { $0.contains("creating @grace_h from the archive") })
        try session.type("cobol-forever")
        try session.waitFor("Repeat the password:")
        try session.type("cobol-forever")
        let screen = try session.waitFor("Imported 1 tweet (0 replies) and 0 likes as @grace_h")
        #expect(!screen.joined().contains("cobol-forever"))
        #expect(try session.run("tweetcli feed").screen.contains { $0.contains("bugs & moths") })
    }

    @Test func aTooShortPasswordIsAskedForAgainThreeTimesAtMost() throws {
        let session = try TmuxSession(width: 100)
        try session.type("tweetcli register --email g@example.com --username grace --fullname Grace; echo rc=$?")
        try session.waitFor("Password (at least 8 characters):")
        try session.type("short")
        try session.waitFor("Password (at least 8 characters):", count: 2)
        try session.type("still")
        try session.waitFor("Password (at least 8 characters):", count: 3)
        try session.type("nope")
        let (status, screen) = try session.waitForStatus("rc")
        #expect(screen.contains { $0.contains("error: the password must have at least 8 characters") })
        #expect(!screen.contains { $0.contains("Repeat the password") })
        #expect(status == 1)
        #expect(!screen.contains { $0.hasPrefix("usage:") })
        #expect(!FileManager.default.fileExists(atPath: session.store))
    }

    /// Everything register needs is asked for on a terminal, and a mistake in the password costs
    /// only the password: too short, then two that differ, then right.
    @Test func registerAsksForWhatIsMissingAndForAPasswordAgain() throws {
        let session = try TmuxSession(width: 100)
        try session.type("tweetcli register; echo rc=$?")
        try session.waitFor("Email:")
        try session.type("grace@example.com")
        try session.waitFor("Username (1–15 letters, digits or _):")
        try session.type("grace")
        try session.waitFor("Full name:")
        try session.type("Grace Hopper")
        try session.waitFor("Password (at least 8 characters):")
        try session.type("short")
        try session.waitFor("That password is too short; try again.")
        try session.waitFor("Password (at least 8 characters):", count: 2)
        try session.type("first-password")
        try session.waitFor("Repeat the password:")
        try session.type("second-password")
        try session.waitFor("The two passwords differ; try again.")
        try session.waitFor("Password (at least 8 characters):", count: 3)
        try session.type("cobol-forever")
        try session.waitFor("Repeat the password:", count: 2)
        try session.type("cobol-forever")
        let (status, screen) = try session.waitForStatus("rc")
        #expect(status == 0)
        #expect(screen.contains { $0.contains("Welcome, Grace Hopper! You are signed in as @grace.") })
        #expect(!screen.joined().contains("cobol-forever"))
        // login asks for the account and the password; a username with its @ is fine.
        try session.run("tweetcli logout")
        try session.type("clear; tweetcli login; echo rc=$?")
        try session.waitFor("Username or email:")
        try session.type("@Grace")
        try session.waitFor("Password:")
        try session.type("cobol-forever")
        let login = try session.waitForStatus("rc")
        #expect(login.status == 0)
        #expect(login.screen.contains { $0.contains("Signed in as Grace Hopper @grace.") })
    }

    /// A password change asks for the current one, then the new one twice; the new one signs in,
    /// the old one no longer does, and another device's session of the account ends.
    @Test func passwordChangesAndSignsOutOtherSessions() throws {
        let session = try signedIn()
        let otherDevice = session.home.appendingPathComponent("other-state").path
        try session.run("XDG_STATE_HOME=\(otherDevice) tweetcli login ada --password-stdin <<< '\(password)'")
        #expect(try session.run("XDG_STATE_HOME=\(otherDevice) tweetcli whoami").status == 0)
        try session.type("clear; tweetcli password; echo rc=$?")
        try session.waitFor("Current password:")
        try session.type(password)
        try session.waitFor("New password (at least 8 characters):")
        try session.type("a-new-password")
        try session.waitFor("Repeat the password:")
        try session.type("a-new-password")
        let (status, screen) = try session.waitForStatus("rc")
        #expect(status == 0)
        #expect(screen.contains { $0.contains("Password changed. Signed out 1 other session.") })
        #expect(try session.run("tweetcli whoami").status == 0)
        #expect(try session.run("XDG_STATE_HOME=\(otherDevice) tweetcli whoami").status == 1)
        let old = try session.run("tweetcli login ada --password-stdin <<< '\(password)'")
        #expect(old.status == 1)
        #expect(try session.run("tweetcli login ada --password-stdin <<< 'a-new-password'").status == 0)
    }

    @Test func differentPasswordsFailWithoutAUsageLine() throws {
        let session = try TmuxSession(width: 100)
        try session.type("tweetcli register --email g@example.com --username grace --fullname Grace; echo rc=$?")
        try session.waitFor("Password (at least 8 characters):")
        for attempt in 1...3 {
            try session.waitFor("Password (at least 8 characters):", count: attempt)
            try session.type("first-password")
            try session.waitFor("Repeat the password:", count: attempt)
            try session.type("second-password")
        }
        let (status, screen) = try session.waitForStatus("rc")
        #expect(screen.contains { $0.contains("error: the two passwords differ; nothing was changed") })
        #expect(status == 1)
        #expect(!FileManager.default.fileExists(atPath: session.store))
    }

    /// A tweet written too long opens the editor again on it, the comment saying how much to cut,
    /// until it fits; nothing is posted before.
    @Test func aTooLongTweetReopensTheEditorSayingHowMuchToCut() throws {
        let session = try signedIn()
        let editor = session.home.appendingPathComponent("editor.sh")
        let rounds = session.home.appendingPathComponent("rounds")
        // Round 1 writes 300 characters; round 2 keeps what the file says, then writes a short tweet.
        let script = """
            #!/bin/sh
            echo x >> '\(rounds.path)'
            if [ "$(wc -l < '\(rounds.path)')" -eq 1 ]; then
              { printf 'x%.0s' $(seq 1 300); echo; cat "$1"; } > "$1.new" && mv "$1.new" "$1"
            else
              cp "$1" '\(rounds.path).seen'
              { echo 'short enough now'; sed -n '/^# Write your tweet/,$p' "$1"; } > "$1.new" && mv "$1.new" "$1"
            fi
            """
        try script.write(to: editor, atomically: true, encoding: .utf8)
        chmod(editor.path, 0o755)
        let result = try session.run("EDITOR=\(editor.path) tweetcli post")
        #expect(result.status == 0)
        let seen = try String(contentsOfFile: rounds.path + ".seen", encoding: .utf8)
        #expect(seen.hasPrefix(String(repeating: "x", count: 300) + "\n"), "the draft comes back to be cut")
        #expect(seen.contains("\n# This tweet weighs 300 of 280: cut 20 to post it.\n"))
        let posted = try session.run("tweetcli feed --json | grep -c -e 'short enough now' -e xxxxxxxxxx")
        #expect(posted.screen.contains("1"))
    }

    @Test func postWithNoCaptionOpensTheEditorAndPostsWhatIsWritten() throws {
        let session = try signedIn()
        try session.type("tweetcli post")
        try session.waitFor("# Write your tweet above this line")
        try session.type("iHello from vim, in a real terminal #vim", enter: false)
        try session.press("Escape")
        try session.type(":wq")
        try session.waitFor("♡ 0")
        let feed = try session.run("tweetcli feed --json | grep -c 'Hello from vim, in a real terminal #vim'")
        #expect(feed.screen.contains("1"))
    }

    @Test func anEmptyTweetCancelsAndATooLongOneGoesBackToTheEditor() throws {
        let session = try signedIn()
        try session.type("tweetcli post; echo rc=$?")
        try session.waitFor("# Write your tweet above this line")
        try session.type(":q!")
        var (status, screen) = try session.waitForStatus("rc")
        #expect(screen.contains { $0.contains("error: the tweet was empty, so nothing was posted") })
        #expect(status == 1)

        try session.type("clear; tweetcli post; echo rc=$?")
        try session.waitFor("# Write your tweet above this line")
        try session.type("i" + String(repeating: "long ", count: 60), enter: false)
        try session.press("Escape")
        try session.type(":wq")
        // The editor opens again on the tweet, saying how much to cut; cut it short and post it.
        try session.waitFor("# This tweet weighs 299 of 280: cut 19 to post it.")
        try session.type("ggD", enter: false)
        try session.type("iShort at last", enter: false)
        try session.press("Escape")
        try session.type(":wq")
        (status, screen) = try session.waitForStatus("rc")
        #expect(status == 0)
        #expect(screen.contains { $0.contains("Short at last") })
        let again = try session.run("tweetcli post --draft")
        #expect(again.status == 1)
        #expect(again.screen.joined().contains("there is no draft to reopen"))
    }

    @Test func whatWasWrittenIsKeptWhenThePostFailsForAnyReason() throws {
        let session = try signedIn()
        let editor = session.home.appendingPathComponent("editor.sh")
        try "#!/bin/sh\nprintf 'written while signed out\\n' > \"$1\"\n".write(
            to: editor, atomically: true, encoding: .utf8)
        #expect(chmod(editor.path, 0o755) == 0)
        try session.tweetcli(["logout"])
        let failed = try session.run("EDITOR=\(editor.path) tweetcli post")
        #expect(failed.status == 1)
        #expect(failed.screen.joined().contains("you are not signed in"))
        #expect(failed.screen.joined().contains("your draft is kept in"))
        let draft = session.home.appendingPathComponent("state/tweetcli/draft.txt")
        #expect(try String(contentsOf: draft, encoding: .utf8) == "written while signed out\n")
    }

    @Test func aPagerThatCannotRunLeavesTheOutputOnTheScreen() throws {
        let session = try TmuxSession(width: 100, height: 20, environment: ["PAGER": "no-such-pager"])
        try session.tweetcli(["seed", "--users", "5"])
        let result = try session.run("tweetcli feed --limit 20")
        #expect(result.status == 0)
        #expect(result.screen.contains { $0.hasPrefix("More: tweetcli feed --limit 20 --before ") })
    }

    @Test func deleteAsksFirstAndOnlyYesDeletes() throws {
        let session = try signedIn()
        let id = try json(session.tweetcli(["post", "to be deleted", "--json"]))["id"] as? String ?? ""
        let short = String(id.prefix(8))
        // Someone else's tweet, or none, is refused before anything is asked.
        let missing = try session.run("tweetcli delete \(short.dropLast(2))zz")
        #expect(missing.status == 1)
        #expect(!missing.screen.joined().contains("[y/N]"))
        // The question shows the tweet by its short ID and its first line; no is not an error.
        try session.type("clear; tweetcli delete \(short); echo rc=$?")
        try session.waitFor("Delete @ada's tweet \(short) “to be deleted”? This cannot be undone. [y/N]")
        try session.type("n")
        var (status, screen) = try session.waitForStatus("rc")
        #expect(status == 0)
        #expect(screen.contains { $0.contains("Nothing was deleted.") })
        #expect(try session.run("tweetcli feed --json | grep -c 'to be deleted'").screen.contains("1"))
        try session.type("clear; tweetcli delete \(short); echo rc=$?")
        try session.waitFor("[y/N]")
        try session.type("y")
        (status, screen) = try session.waitForStatus("rc")
        #expect(screen.contains { $0.contains("Deleted @ada's tweet \(short) “to be deleted”") })
        #expect(status == 0)
    }

    @Test func longOutputIsPagedAndShortOrPipedOutputIsNot() throws {
        let session = try TmuxSession(width: 100, height: 20)
        try session.tweetcli(["seed", "--users", "5"])
        try session.type("tweetcli feed --limit 20")
        let paged = try session.waitFor("id ")
        #expect(paged.last(where: { !$0.isEmpty }) == ":", "less shows its prompt: \(paged)")
        try session.press("q")
        try session.waitForPrompt()
        let short = try session.run("tweetcli feed --limit 1")
        #expect(short.status == 0)
        #expect(short.screen.contains { $0.contains("More: tweetcli feed --limit 1 --before") })
        let piped = try session.run("tweetcli feed --limit 20 | tail -n 1")
        #expect(piped.status == 0)
        #expect(piped.screen.contains { $0.hasPrefix("More: ") })
        let unpaged = try session.run("tweetcli feed --limit 20 --no-pager")
        #expect(unpaged.status == 0)
    }

    @Test(arguments: [40, 100])
    func everyLineIsWrappedAtWordsToTheWidth(_ width: Int) throws {
        let session = try signedIn(width: width)
        let caption =
            "Wrapping should break at spaces so that no word is ever cut in two by the terminal "
            + "itself, even when https://example.com/a/rather/long/path/that/goes/on is in the middle"
        try session.tweetcli(["post", caption])
        try session.tweetcli(["edit-profile", "--bio", "A bio long enough to need wrapping at forty columns, surely."])
        let feed = try session.run("tweetcli feed --limit 1")
        #expect(feed.status == 0)
        #expect(feed.screen.allSatisfy { $0.count <= width })
        let words = caption.split(separator: " ").filter { $0.count < width }
        for word in words { #expect(feed.screen.contains { $0.contains(word) }, "\(word) was cut: \(feed.screen)") }
        let captionRows = feed.screen.drop { !$0.hasPrefix("Wrapping") }.prefix { !$0.hasPrefix("♡") }
        #expect(captionRows.count == (width == 100 ? 2 : 5), "\(captionRows)")
        // Headers, profile details and help wrap too.
        let profile = try session.run("tweetcli profile")
        #expect(profile.status == 0)
        #expect(profile.screen.allSatisfy { $0.count <= width })
        #expect(profile.screen.contains { $0.hasPrefix("A bio long enough") })
        let help = try session.run("tweetcli help feed")
        #expect(help.status == 0)
        #expect(help.screen.allSatisfy { $0.count <= width } && help.screen.contains { $0.contains("--watch") })
    }

    @Test func notificationsAndQuotesKeepTheirIndentWhenTheyWrap() throws {
        let session = try signedIn(width: 40)
        let posted = try session.tweetcli(["post", "a tweet of ada's that others will quote and like", "--json"])
        let id = try #require(try json(posted)["id"] as? String)
        try session.tweetcli(
            [
                "register", "--email", "bob@example.com", "--username", "bob", "--fullname", "Bob Builder",
                "--password-stdin",
            ], stdin: password + "\n")
        try session.tweetcli(["like", id])
        try session.tweetcli(["post", "quoting it with a caption long enough to wrap twice here", "--quote", id])
        try session.tweetcli(["login", "--username", "ada", "--password-stdin"], stdin: password + "\n")
        let bell = try session.run("tweetcli notifications")
        #expect(bell.status == 0)
        #expect(bell.screen.allSatisfy { $0.count <= 40 }, "\(bell.screen)")
        #expect(bell.screen.contains { $0.contains("Bob Builder quoted your tweet") }, "\(bell.screen)")
        // The quoting tweet is shown indented under its line, and its wrapped lines stay indented.
        let quoteRows = bell.screen.drop { !$0.contains("quoted your tweet") }.dropFirst().prefix { !$0.isEmpty }
        #expect(quoteRows.count >= 4, "\(bell.screen)")
        #expect(quoteRows.allSatisfy { $0.hasPrefix("    ") }, "\(quoteRows)")
        // Read now: the feed no longer announces them.
        let feed = try session.run("tweetcli feed --limit 1")
        #expect(!feed.screen.contains { $0.contains("new notification") }, "\(feed.screen)")
    }

    @Test func storedEscapeSequencesNeitherRetitleNorClearTheScreen() async throws {
        let session = try signedIn()
        // Written past the composer's checks, as a hostile or older store might hold it.
        let services = try AppServices.local(
            storeDirectory: session.store,
            stateDirectory: AppPaths.stateDirectory(
                environment: ["XDG_STATE_HOME": session.home.appendingPathComponent("state").path]))
        let uid = try #require(try await services.auth.currentUid())
        try await services.store.runTransaction { transaction in
            transaction.setData(
                [
                    "uid": .string(uid), "caption": .string("evil \u{1B}]0;pwned\u{07} \u{1B}[2J\u{9B}2J done"),
                    "likes": .integer(0), "timestamp": .string("2026-11-30T00:00:00.000Z"), "replyToId": .null,
                ], at: DocumentPath(collection: "tweets", documentID: "0VhostileTweet000001"))
            transaction.updateData(
                ["fullname": .value(.string("Ada \u{1B}[8mhidden\u{202E}txt.exe"))],
                at: DocumentPath(collection: "users", documentID: uid))
        }
        try session.type("echo before-the-feed")
        try session.waitFor("before-the-feed")
        try session.type("tweetcli feed")
        let screen = try session.waitFor("done")
        #expect(screen.contains("before-the-feed"), "the screen was cleared: \(screen)")
        #expect(screen.contains { $0.contains("evil \\x1b]0;pwned\\x07 \\x1b[2J\\u009b2J done") })
        #expect(screen.contains { $0.contains("Ada \\x1b[8mhidden\\u202etxt.exe") })
        #expect(
            try session.tmux(["display-message", "-p", "#{pane_title}"]).trimmingCharacters(in: .newlines) != "pwned")
    }
}

func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

/// The progress line of long commands, as a person at the terminal sees it, and its absence
/// wherever stderr is not a terminal.
extension TerminalTests {
    @Test func seedShowsOneProgressLineThatGivesWayToTheSummary() throws {
        let session = try TmuxSession(width: 120)
        try session.type("clear; tweetcli seed --users 200 --tweets 20000; echo rc=$?")
        let during = try session.waitFor("a progress line with a rate and the time left", timeout: 120) {
            $0.hasPrefix("Seeding: ") && $0.contains(" documents · ") && $0.contains("/s · ") && $0.hasSuffix(" s left")
        }
        #expect(during.filter { $0.contains("Seeding: ") }.count == 1, "one line, redrawn in place: \(during)")
        let after = try session.waitFor("the summary", timeout: 180) { $0.hasPrefix("Seeded 200 users, 20000 tweets") }
        #expect(!after.contains { $0.contains("Seeding: ") }, "the progress line is gone: \(after)")
        #expect(try session.waitForStatus("rc").status == 0)
    }

    @Test func importOfAFileShowsItsProgressAndThenOnlyItsSummary() throws {
        let session = try TmuxSession(width: 120)
        try session.tweetcli(["seed", "--users", "200", "--tweets", "20000"])
        let backup = session.home.appendingPathComponent("backup.jsonl").path
        #expect(try session.run("tweetcli export > \(backup)", timeout: 120).status == 0)
        try session.type("clear; tweetcli --store \(session.home.path)/copy import \(backup); echo rc=$?")
        let during = try session.waitFor("an import's progress line", timeout: 120) {
            $0.hasPrefix("Importing: ") && $0.contains(" documents")
        }
        #expect(during.filter { $0.contains("Importing: ") }.count == 1, "\(during)")
        let after = try session.waitFor("the summary", timeout: 180) { $0.hasPrefix("Imported ") }
        #expect(!after.contains { $0.contains("Importing: ") }, "the progress line is gone: \(after)")
        #expect(try session.waitForStatus("rc").status == 0)
    }

    @Test func noProgressIsWrittenWhenStderrIsAFile() throws {
        let session = try TmuxSession(width: 120)
        let (home, errors) = (session.home.path, session.home.appendingPathComponent("err.txt"))
        let commands = [
            "tweetcli seed --users 200 --tweets 20000 2>>\(errors.path)",
            "tweetcli export > \(home)/backup.jsonl 2>>\(errors.path)",
            "tweetcli --store \(home)/copy import \(home)/backup.jsonl 2>>\(errors.path)",
            "tweetcli compact 2>>\(errors.path)",
            "tweetcli doctor 2>>\(errors.path)",
            "tweetcli import --merge \(home)/backup.jsonl >/dev/null 2>>\(errors.path)",
            "tweetcli doctor --repair 2>>\(errors.path)",
        ]
        for command in commands {
            let result = try session.run(command, timeout: 180)
            #expect(result.status == 0, "\(command): \(result.screen)")
        }
        let written = try String(contentsOf: errors, encoding: .utf8)
        #expect(!written.contains("\r"), "\(written.debugDescription)")
        #expect(written.isEmpty, "\(written.debugDescription)")
        let screen = try session.screen()
        #expect(!screen.contains { $0.contains("Seeding") || $0.contains("Importing") || $0.contains("Exporting") })
    }
}
