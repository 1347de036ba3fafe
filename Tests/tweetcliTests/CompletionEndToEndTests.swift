import Foundation
import Testing
import TweetTestSupport

/// The built `tweetcli __complete` on seeded stores of both engines, and the bash, zsh and fish
/// scripts it serves, each in a real shell in tmux: it offers the store's usernames and the last
/// listing's IDs, and it neither writes, nor prints an error, nor fails.
@Suite(.serialized)
struct CompletionEndToEndTests {
    /// The lines `__complete WORDS` prints, after checking that it said nothing else and exited 0.
    private func complete(_ cli: CLIRunner, _ words: [String]) throws -> [String] {
        let result = try cli.run(["__complete"] + words)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Runs `tweetcli ARGS` with a terminal for its output (a pseudo-terminal from `script`), as a
    /// person sees a listing: only such a listing is kept for completion.
    private func runOnTerminal(_ cli: CLIRunner, _ arguments: [String]) throws -> CLIRunner.Result {
        let words = [CLIRunner.executable.path, "--store", cli.location, "--no-pager"] + arguments
        let command = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try cli.run(["-q", "-e", "-c", command, "/dev/null"], executable: "/usr/bin/script", store: false)
    }

    /// A store with ada, adam and bob, ada signed in with three tweets.
    private func store(location: String? = nil) throws -> CLIRunner {
        let cli = try CLIRunner(location: location)
        for name in ["ada", "adam", "bob"] { try cli.register(name, fullname: name.capitalized) }
        try cli.login("ada")
        for caption in ["first", "second", "third"] { _ = try cli.post(caption) }
        return cli
    }

    private func checkUsernamesAndListing(_ cli: CLIRunner) throws {
        #expect(try complete(cli, ["follow", "@ad"]) == ["@ada", "@adam"])
        #expect(try complete(cli, ["profile", "@"]) == ["@ada", "@adam", "@bob"])
        #expect(try complete(cli, ["unfollow", "b"]) == ["bob"])
        #expect(try complete(cli, ["follow", "@zz"]).isEmpty)
        // Before any listing there are no IDs to offer; after one, its rows in the order shown.
        #expect(try complete(cli, ["like", ""]).isEmpty)
        // A listing read by a program is not one a person completes from.
        #expect(try cli.run(["feed", "--limit", "1"]).status == 0)
        #expect(try complete(cli, ["like", ""]).isEmpty)
        let feed = try runOnTerminal(cli, ["feed", "--limit", "2"])
        #expect(feed.status == 0, "\(feed.stderr)")
        let ids = try complete(cli, ["like", ""]).map { String($0.prefix { $0 != "\t" }) }
        try #require(ids.count == 2)
        for (id, line) in zip(ids, try complete(cli, ["like", ""])) {
            #expect(line.hasPrefix(id + "\t@ada: "), "\(line)")
        }
        // A terminal ends lines with "\r\n", which Swift takes as one character.
        let screen = feed.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        let rows = screen.split(separator: "\n").filter { row in ids.contains { row.contains("id " + $0) } }
        #expect(rows.count == 2 && rows[0].contains(ids[0]) && rows[1].contains(ids[1]), "\(feed.stdout)")
        // Each offered ID names its tweet.
        #expect(try cli.run(["like", ids[1]]).status == 0)
        // --json is for programs, so it leaves the listing as it was.
        #expect(try cli.run(["feed", "--limit", "3", "--json"]).status == 0)
        #expect(try complete(cli, ["post", "--reply-to", ""]).count == 2)
        let keys = try complete(cli, ["config", "set", ""]).map { String($0.prefix { $0 != "\t" }) }
        #expect(
            keys == [
                "store", "color", "images", "limit", "postgres-connect-timeout", "postgres-statement-timeout",
                "postgres-lock-timeout",
            ])
    }

    @Test func usernamesAndTheLastListingCompleteOnALocalStore() throws {
        let cli = try store()
        try checkUsernamesAndListing(cli)
    }

    @Test(.enabled(if: PostgresCluster.isAvailable || PostgresCluster.isRequired))
    func usernamesAndTheLastListingCompleteOnPostgreSQL() throws {
        let cli = try store(location: try PostgresCluster.freshLocation())
        try checkUsernamesAndListing(cli)
    }

    @Test func atMostFiftyUsernamesAreOfferedInUsernameOrder() throws {
        let cli = try CLIRunner()
        let seed = try cli.run(["seed", "--users", "60", "--tweets", "10", "--seed", "3"])
        #expect(seed.status == 0, "\(seed.stderr)")
        let names = try complete(cli, ["follow", "@"])
        #expect(names.count == 50)
        #expect(names == names.sorted())
        #expect(names.allSatisfy { $0.hasPrefix("@") })
    }

    @Test func completingNeitherWritesTheStoreNorCreatesOne() throws {
        let cli = try store()
        #expect(try cli.run(["feed"]).status == 0)
        let before = try snapshot(of: cli.store)
        _ = try complete(cli, ["follow", "@"])
        _ = try complete(cli, ["like", ""])
        #expect(try snapshot(of: cli.store) == before)
        // No store, a store that is not one, a server that is not there: nothing, silently.
        let empty = try CLIRunner()
        #expect(try complete(empty, ["follow", "@"]).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: empty.store.path))
        for store in ["/dev/null", "postgresql://127.0.0.1:1/nothing", "postgresql://[bad"] {
            let result = try empty.run(["__complete", "--store", store, "follow", "@"], store: false)
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(store): \(result)")
        }
        // Words that make no sense still exit 0 with nothing.
        for words in [[], ["nosuch", ""], ["--store"], ["follow", "--store=", "@"]] {
            let result = try empty.run(["__complete"] + words)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(words): \(result)")
        }
    }

    @Test func theHiddenCommandIsInNeitherHelpNorTheCompletionsNorTheManPage() throws {
        let cli = try CLIRunner()
        for arguments in [["help"], ["manpage"], ["completions", "bash"], ["__complete", ""]] {
            #expect(!(try cli.run(arguments).stdout.contains("__complete\n")), "\(arguments)")
            #expect(!(try cli.run(arguments).stdout.contains("__complete ")) || arguments[0] == "completions")
        }
    }

    private func snapshot(of directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if let data = FileManager.default.contents(atPath: url.path) { files[url.path] = data }
        }
        return files
    }

    // MARK: bash

    @Test(.enabled(if: TmuxSession.isAvailable))
    func bashCompletesConfigKeysAndTheListingsIDsAtTab() throws {
        let session = try TmuxSession(width: 100)
        try session.tweetcli(
            ["register", "--email", "ada@example.com", "--username", "ada", "--fullname", "Ada", "--password-stdin"],
            stdin: "correct horse\n")
        for caption in ["one", "two", "three", "four"] { try session.tweetcli(["post", caption]) }
        #expect(try session.run("source <(tweetcli completions bash)").status == 0)
        try session.type("tweetcli config set ", enter: false)
        try session.press("Tab", "Tab")
        // Bash lists them in columns, over more than one row.
        let keys = try session.waitFor("the keys") { row in
            ["color", "postgres-connect-timeout"].allSatisfy { row.contains($0) }
        }
        #expect(["limit", "store", "postgres-lock-timeout"].allSatisfy { keys.joined().contains($0) }, "\(keys)")
        #expect(!keys.joined().contains("\t"))
        try session.press("C-c")
        try session.waitForPrompt()
        let feed = try session.run("tweetcli feed --limit 3")
        #expect(feed.status == 0)
        try session.type("tweetcli like ", enter: false)
        // Tab adds what the listing's three IDs share, which is where the feed's IDs start.
        try session.press("Tab")
        let line = try session.waitFor("the IDs' common start") { $0.hasPrefix("$ tweetcli like ") && $0.count > 16 }
        let start = try #require(line.last { $0.hasPrefix("$ tweetcli like ") }?.dropFirst(16))
        let shown = feed.screen.filter { $0.contains("id " + start) }
        #expect(shown.count == 3, "\(feed.screen)")
        try session.press("C-c")
        try session.waitForPrompt()
        try session.type("tweetcli follow @a", enter: false)
        try session.press("Tab")
        try session.waitFor("tweetcli follow @ada")
        try session.press("C-c")
    }

    // MARK: zsh and fish

    /// A session of `shell` with ada (signed in, four tweets) and bob, and the completion script
    /// loaded by `load`, as docs/COMMANDS.md says to.
    private func session(_ shell: TmuxSession.Shell, loading load: String) throws -> TmuxSession {
        let session = try TmuxSession(width: 120, shell: shell)
        for name in ["bob", "ada"] {
            try session.tweetcli(
                [
                    "register", "--email", "\(name)@example.com", "--username", name, "--fullname", name.capitalized,
                    "--password-stdin",
                ],
                stdin: "correct horse\n")
        }
        for caption in ["one", "two", "three", "four"] { try session.tweetcli(["post", caption]) }
        let loaded = try session.run(load)
        #expect(loaded.status == 0)
        // Only the row `echo` printed: a script that fails as it loads says so here.
        #expect(loaded.screen.filter { !$0.isEmpty && $0 != "$" }.count == 1, "\(loaded.screen)")
        return session
    }

    /// Presses Tab where a person would, and checks what the shell shows and inserts. zsh inserts
    /// the candidates' common start at the first Tab and lists them at the second; fish does both
    /// at once: `tabsToList` is the Tabs after the common start. zsh shows a description after
    /// `-- `, fish in brackets: `describedAs` is what comes before it.
    private func checkTabCompletion(_ session: TmuxSession, tabsToList: Int, describedAs opener: String) throws {
        /// Whether `row` shows `word` with `description` after it, as a description.
        func shows(_ row: String, _ word: String, _ description: String) -> Bool {
            guard let found = row.range(of: word + " ") else { return false }
            return row[found.upperBound...].drop { $0 == " " }.hasPrefix(opener + description)
        }
        try session.type("tweetcli config set ", enter: false)
        try session.press("Tab")
        let keys = try session.waitFor("the keys") { row in shows(row, "limit", "the default page size") }
        for key in ["store", "color", "limit"] {
            #expect(keys.contains { shows($0, key, "") }, "\(key): \(keys)")
        }
        // config's verbs come before the key, not as one.
        #expect(!keys.contains { ["list", "get", "unset"].contains(String($0.prefix { $0 != " " })) }, "\(keys)")
        try session.press("C-c")
        try session.waitForPrompt()
        // A described word goes in alone.
        try session.type("tweetcli config set c", enter: false)
        try session.press("Tab")
        try session.waitFor("color inserted alone") { $0 == "$ tweetcli config set color" }
        try session.press("C-c")
        try session.waitForPrompt()
        // bob starts otherwise, so @a is ada's alone.
        try session.type("tweetcli follow @a", enter: false)
        try session.press("Tab")
        try session.waitFor("@ada inserted") { $0 == "$ tweetcli follow @ada" }
        try session.press("C-c")
        try session.waitForPrompt()
        // An option's file name completes after its `=`.
        try session.type("tweetcli --store=\(session.home.path)/sto", enter: false)
        try session.press("Tab")
        try session.waitFor("the store's directory") { $0 == "$ tweetcli --store=\(session.store)/" }
        try session.press("C-c")
        try session.waitForPrompt()

        let feed = try session.run("tweetcli feed --limit 3")
        #expect(feed.status == 0)
        // Each row `♡ 0  ↻ 0  ↩ 0  id ID` follows its caption.
        let shown = feed.screen.indices.dropFirst().compactMap { index -> (id: String, caption: String)? in
            guard let id = feed.screen[index].components(separatedBy: "id ").dropFirst().last else { return nil }
            return (id, feed.screen[index - 1])
        }
        try #require(shown.map(\.caption) == ["four", "three", "two"], "\(feed.screen)")
        try session.type("tweetcli like ", enter: false)
        // The first Tab adds what the listing's three IDs share, which is where the feed's IDs start.
        try session.press("Tab")
        let line = try session.waitFor("the IDs' common start") { $0.hasPrefix("$ tweetcli like ") && $0.count > 16 }
        let start = try #require(line.last { $0.hasPrefix("$ tweetcli like ") }?.dropFirst(16))
        #expect(shown.allSatisfy { $0.id.hasPrefix(start) }, "\(start): \(shown)")
        for _ in 0..<tabsToList { try session.press("Tab") }
        let menu = try session.waitFor("the three IDs with their tweets") { row in
            shows(row, shown[2].id, "@ada: two")
        }
        for tweet in shown {
            #expect(menu.contains { shows($0, tweet.id, "@ada: " + tweet.caption) }, "\(tweet): \(menu)")
        }
        // The next Tab goes into the menu and inserts one of the IDs, alone.
        try session.press("Tab")
        try session.waitFor("an ID inserted alone") { row in
            row.hasPrefix("$ tweetcli like ") && shown.contains { $0.id == row.dropFirst(16) }
        }
        try session.press("C-c")
    }

    @Test(.enabled(if: TmuxSession.isAvailable(.zsh)))
    func zshCompletesConfigKeysUsernamesAndTheListingsIDs() throws {
        let session = try session(.zsh, loading: "source <(tweetcli completions zsh)")
        try checkTabCompletion(session, tabsToList: 1, describedAs: "-- ")
    }

    @Test(.enabled(if: TmuxSession.isAvailable(.fish)))
    func fishCompletesConfigKeysUsernamesAndTheListingsIDs() throws {
        let session = try session(.fish, loading: "tweetcli completions fish | source")
        try checkTabCompletion(session, tabsToList: 0, describedAs: "(")
    }
}
