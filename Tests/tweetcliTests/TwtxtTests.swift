import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore

/// `export --twtxt`: one account's tweets as a twtxt feed, read back by its lines and by the real
/// twtxt client (PyPI `twtxt`, which `.ci/run` installs in a virtual environment and names in
/// `TWEETCLI_TWTXT`).
@Suite(.serialized)
struct TwtxtTests {
    static let client = ProcessInfo.processInfo.environment["TWEETCLI_TWTXT"].flatMap { $0.isEmpty ? nil : $0 }

    /// A store where ada posts three tweets (one of two lines) and a reply, and bob one.
    private func store() throws -> (CLIRunner, captions: [String]) {
        let cli = try CLIRunner()
        try cli.register("bob", fullname: "Bob")
        let bobs = try cli.post("bob's own words")
        try cli.register("ada", fullname: "Ada Lovelace")
        var captions = ["alpha first #swift", "bravo on\ntwo lines"]
        _ = try cli.post(captions[0])
        #expect(try cli.run(["post", "-"], stdin: captions[1]).status == 0)
        captions.append("charlie replying")
        _ = try cli.post(captions[2], replyTo: bobs)
        return (cli, captions)
    }

    @Test func theSignedInUsersTweetsAreOneLineEachOldestFirst() throws {
        let (cli, captions) = try store()
        let result = try cli.run(["export", "--twtxt", "--url", "https://example.org/ada.txt"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("# nick = ada") && lines.contains("# url = https://example.org/ada.txt"))
        let posts = lines.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(posts.count == 3, "\(posts)")
        for (line, caption) in zip(posts, captions) {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            #expect(parts.count == 2 && ISO8601DateFormatter().date(from: parts[0]) != nil, "\(line)")
            #expect(parts.last == caption.replacingOccurrences(of: "\n", with: "\u{2028}"))
        }
        let bob = try cli.run(["export", "--twtxt", "--user", "@bob"])
        #expect(bob.stdout.contains("# nick = bob") && bob.stdout.contains("\tbob's own words\n"))
        #expect(!bob.stdout.contains("alpha"))
        // Bad input: one sentence, nothing printed on stdout.
        let stray = try cli.run(["export", "--url", "https://example.org/x.txt"])
        #expect(stray.status != 0 && stray.stdout.isEmpty && stray.stderr.contains("--url go with --twtxt"))
        let nobody = try cli.run(["export", "--twtxt", "--user", "@nobody"])
        #expect(nobody.status != 0 && nobody.stderr.contains("no user @nobody"))
    }

    @Test func textFromTheStoreCannotBreakALineOrReachTheTerminal() {
        let hostile = "a\u{1B}]0;owned\u{07}b\r\nc\td\u{9B}e\u{2029}f"
        #expect(Twtxt.clean(hostile) == "a\u{FFFD}]0;owned\u{FFFD}b\u{2028}c d\u{FFFD}e\u{2028}f")
        #expect(!Twtxt.header(nick: "ada\nx", url: nil).contains("\nx"))
    }

    @Test(.enabled(if: TwtxtTests.client != nil)) func theRealTwtxtClientShowsEveryTweet() throws {
        let (cli, captions) = try store()
        let feed = cli.home.appendingPathComponent("ada.txt")
        try Data(try cli.run(["export", "--twtxt"]).stdout.utf8).write(to: feed)
        let home = cli.home.appendingPathComponent("twtxt-home")
        let config = home.appendingPathComponent(".config/twtxt")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try """
        [twtxt]
        nick = ada
        twtfile = \(feed.path)
        include_yourself = True
        use_pager = False
        limit_timeline = 100

        [following]

        """.write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.client))
        process.arguments = ["timeline"]
        process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.components(separatedBy: "➤ ada").count - 1 == captions.count, "\(text)")
        for word in ["alpha", "bravo", "two lines", "charlie"] { #expect(text.contains(word), "\(word) in \(text)") }
    }

    @Test func theTwtxtClientTestRanOrSaysWhyNot() {
        if let client = Self.client {
            #expect(FileManager.default.isExecutableFile(atPath: client), "TWEETCLI_TWTXT names \(client)")
        } else {
            print("twtxt client test not run: TWEETCLI_TWTXT names no twtxt executable (.ci/run installs one)")
        }
    }
}
