import Foundation
import Testing

@testable import TweetCLI

/// What `tweetcli __complete` offers for the words typed so far, without a store: the command
/// table's words, the config keys, and which words ask the store or the last listing.
@MainActor
struct CompletionCandidatesTests {
    typealias Kind = CompletionCandidates.Kind

    /// The words a completion offers, without descriptions.
    private func words(_ typed: [String]) -> [String]? {
        guard case .words(let candidates) = CompletionCandidates.analyse(typed).kind else { return nil }
        return candidates.map(\.word)
    }

    @Test func anEmptyLineOffersEveryCommandAndNoHiddenOne() throws {
        let offered = try #require(words([""]))
        #expect(offered == CommandLineTool.commands.map { $0.name })
        #expect(!offered.contains(CompletionCandidates.commandName))
    }

    @Test func everyCommandOffersEachOfItsOptionsAndTheGlobalOnes() throws {
        for command in CommandLineTool.commands {
            let offered = try #require(words([command.name, "-"]), "\(command.name)")
            for option in command.options + [.help] + GlobalOptions.table {
                #expect(offered.contains(option.name), "\(command.name) lacks \(option.name)")
            }
        }
    }

    @Test(arguments: [
        (["config", ""], ["list", "get", "set", "unset"]),
        (["config", "set", ""], ConfigFile.Key.allCases.map(\.rawValue)),
        (["config", "get", ""], ConfigFile.Key.allCases.map(\.rawValue)),
        (["--store", "/tmp/s", "config", "unset", ""], ConfigFile.Key.allCases.map(\.rawValue)),
        (["config", "set", "color", ""], ["auto", "always", "never"]),
        (["--color", ""], ["auto", "always", "never"]),
        (["feed", "--color", ""], ["auto", "always", "never"]),
        (["profile", "--tab", ""], ["tweets", "replies", "likes", "media"]),
        (["completions", ""], ["bash", "zsh", "fish"]),
    ])
    func fixedWordsAreOfferedWhereTheyGo(typed: [String], expected: [String]) {
        #expect(words(typed) == expected)
    }

    @Test(arguments: [
        (["follow", "@a"], Kind.users), (["unfollow", ""], .users), (["profile", "--tab", "likes", "@"], .users),
        (["like", ""], .tweets), (["unlike", "0V"], .tweets), (["retweet", ""], .tweets), (["unretweet", ""], .tweets),
        (["bookmark", ""], .tweets), (["unbookmark", ""], .tweets), (["delete", "-f", ""], .tweets),
        (["thread", ""], .tweets), (["post", "--reply-to", ""], .tweets), (["post", "hi", "--quote", ""], .tweets),
        (["feed", "--before", ""], .tweets),
        (["--store", ""], .files), (["config", "set", "store", ""], .files), (["follow", "--twtxt", ""], .files),
        (["like", "0VZdnn3w", ""], .nothing), (["follow", "@ada", ""], .nothing), (["nosuch", ""], .nothing),
        (["feed", "--limit", ""], .nothing), (["config", "set", "limit", ""], .nothing),
        (["config", "list", ""], .nothing),
    ])
    func eachWordAsksForWhatCompletesIt(typed: [String], expected: Kind) {
        #expect(CompletionCandidates.analyse(typed).kind == expected)
    }

    @Test func theHiddenCommandRunsAfterGlobalOptionsAndOnlyThen() {
        #expect(CompletionCandidates.words(of: ["__complete", "fe"]) == ["fe"])
        #expect(
            CompletionCandidates.words(of: ["--store", "s", "--json", "__complete", ""]) == [
                "--store", "s", "--json", "",
            ])
        #expect(CompletionCandidates.words(of: ["--color=never", "__complete"]) == ["--color=never"])
        #expect(CompletionCandidates.words(of: ["post", "__complete"]) == nil)
        #expect(CompletionCandidates.words(of: ["--store"]) == nil)
    }

    @Test func theStoreOnTheLineIsTheOneAskedEitherWayItIsSpelled() {
        #expect(CompletionCandidates.analyse(["--store", "/tmp/a", "follow", "@"]).storePath == "/tmp/a")
        #expect(
            CompletionCandidates.analyse(["follow", "--store=postgresql:///x", "@"]).storePath == "postgresql:///x")
        #expect(CompletionCandidates.analyse(["follow", "@"]).storePath == nil)
    }

    @Test func aValueAfterAnEqualsSignKeepsTheOptionBeforeIt() async {
        let analysis = CompletionCandidates.analyse(["feed", "--color=al"])
        #expect(analysis.prefix == "--color=" && analysis.typed == "al")
        let lines = await CompletionCandidates.lines(for: analysis, usernames: { _ in [] }, listing: { LastListing() })
        #expect(lines == ["--color=always"])
    }

    @Test func optionsAndCommandsComeWithTheirDescriptions() async {
        let lines = await CompletionCandidates.lines(
            for: CompletionCandidates.analyse(["fe"]), usernames: { _ in [] }, listing: { LastListing() })
        #expect(lines == ["feed\t" + FeedCommand.summary])
    }

    @Test func usernamesAreAskedForWithoutTheirAtAndOfferedWithIt() async {
        var asked: [String] = []
        let found = ["ada", "adam"]
        for (typed, expected) in [("@ad", ["@ada", "@adam"]), ("", ["@ada", "@adam"]), ("ad", ["ada", "adam"])] {
            let lines = await CompletionCandidates.lines(
                for: CompletionCandidates.analyse(["follow", typed]),
                usernames: { start in
                    asked.append(start)
                    return found
                }, listing: { LastListing() })
            #expect(lines == expected, "\(typed)")
        }
        #expect(asked == ["ad", "", "ad"])
    }

    @Test func tweetIDsComeFromTheListingInItsOrderWithTheirDescriptions() async {
        let listing = LastListing(entries: [
            .init(id: "0VZdnn3w", description: "@ada: hello"), .init(id: "0VZaaaaa", description: "@bob: hi"),
            .init(id: "1AAAAAAA", description: ""),
        ])
        let lines = await CompletionCandidates.lines(
            for: CompletionCandidates.analyse(["like", "0VZ"]), usernames: { _ in [] }, listing: { listing })
        #expect(lines == ["0VZdnn3w\t@ada: hello", "0VZaaaaa\t@bob: hi"])
    }

    @Test func filesAreLeftToTheShell() async {
        let lines = await CompletionCandidates.lines(
            for: CompletionCandidates.analyse(["--store", "/tm"]), usernames: { _ in [] }, listing: { LastListing() })
        #expect(lines == [CompletionCandidates.filesDirective])
    }
}

/// The last listing's file: written as shown, read back as untrusted.
struct LastListingTests {
    @Test func aListingReadsBackAsItWasSaved() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }  // A temporary directory: best effort.
        let path = LastListing.path(forStore: "/some/store", stateDirectory: directory.path)
        #expect(LastListing.load(path: path) == LastListing())
        let listing = LastListing(entries: [
            .init(id: "0VZdnn3w", description: "@ada: first"), .init(id: "0VZdnn3x", description: "@bob: second"),
        ])
        try listing.save(path: path)
        #expect(LastListing.load(path: path) == listing)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        // Another store keeps a file of its own.
        #expect(LastListing.path(forStore: "/other/store", stateDirectory: directory.path) != path)
    }

    @Test func aHostileFileIsReadWithoutItsControlCharactersOrBadLines() {
        let text =
            "0VZdnn3w\t@ada: \u{1B}]0;pwned\u{07}\u{202E}x\r\n" + "not an id!\tx\n" + "no tab here\n"
            + String(repeating: "y", count: 40) + "\ttoo long an id\n" + "0VZdnn3w\tduplicate\n"
            + "AB12cd34\t" + String(repeating: "z", count: 500) + "\n"
        let listing = LastListing(parsing: Substring(text))
        #expect(listing.entries.map(\.id) == ["0VZdnn3w", "AB12cd34"])
        #expect(listing.entries[0].description == "@ada:  ]0;pwned  x ")
        #expect(listing.entries[1].description.count == LastListing.maximumDescription)
        // Cut at a character's edge, never inside one.
        #expect(LastListing.neutralised("日本語", maximumBytes: 8) == "日本")
        #expect(LastListing.neutralised("a\u{85}b\u{2066}c") == "a b c")
    }

    @Test func aListingKeepsAtMostItsBound() {
        let text = (0..<1000).map { "id\($0)\tx\n" }.joined()
        #expect(LastListing(parsing: Substring(text)).entries.count == LastListing.maximumEntries)
    }

    @Test func aHugeFileIsReadOnlyUpToItsCap() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // A temporary directory: best effort.
        let path = directory.appendingPathComponent("listing.tsv").path
        let text = "AAAAAAAA\tfirst\n" + String(repeating: "x", count: 4 << 20) + "\nBBBBBBBB\tlast\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(LastListing.load(path: path).entries.map(\.id) == ["AAAAAAAA"])
    }
}
