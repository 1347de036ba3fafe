import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal
@testable import TwitterArchive

/// Reading a Twitter archive as Twitter writes it, and importing it through the services.
struct TwitterArchiveReadingTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    private func folder(_ fixture: ArchiveFixture, _ name: String = "archive") throws -> URL {
        let url = URL(fileURLWithPath: env.path(name))
        try fixture.write(to: url)
        return url
    }

    @Test func textIsUnescapedLinksExpandedAndTimesKept() throws {
        var fixture = ArchiveFixture()
        let created = Date(timeIntervalSince1970: 1_691_856_637)  // Sat Aug 12 16:10:37 +0000 2023
        fixture.tweets = [
            .init(
                id: ArchiveFixture.snowflake(created), created: created,
                text: "Fish & chips <3 &amp; more: https://t.co/abc and https://t.co/abcd",
                links: [("https://t.co/abc", "https://example.org/a"), ("https://t.co/abcd", "https://example.org/b")],
                favorites: 7)
        ]
        let archive = try TwitterArchive.read(path: try folder(fixture).path)
        let tweet = try #require(archive.tweets.first)
        #expect(tweet.text == "Fish & chips <3 &amp; more: https://example.org/a and https://example.org/b")
        #expect(tweet.created == created && tweet.favorites == 7 && tweet.replyTo == nil)
        #expect(archive.account == .init(username: "Ada_L", displayName: "Ada Lovelace", email: "ada@example.com"))
        #expect(archive.profile == .init(bio: "Analyst & poet", website: "https://example.org/ada", location: "London"))
        #expect(archive.following == 3 && archive.followers == 5)
        #expect(TwitterTime.date("Sat Aug 12 18:10:37 +0200 2023") == created)
        #expect(TwitterTime.date("Sat Aug 12 16:10:37 2023") == nil)
    }

    @Test(arguments: [(true, 1), (true, 3), (false, 1), (false, 2)])
    func oldAndNewFileNamesAndPartsGiveEveryTweetOldestFirst(newNames: Bool, parts: Int) throws {
        var fixture = ArchiveFixture()
        fixture.newNames = newNames
        fixture.parts = parts
        fixture.tweets = ArchiveFixture.tweets(10).reversed()  // Twitter lists the newest first.
        let archive = try TwitterArchive.read(path: try folder(fixture).path)
        #expect(archive.tweets.map(\.text) == (0..<10).map { "archived tweet number \($0)" })
        let files = try FileManager.default.contentsOfDirectory(atPath: env.path("archive/data"))
        #expect(files.contains(newNames ? "tweets.js" : "tweet.js"))
        #expect(files.contains("manifest.js") == newNames)
        #expect(files.contains(newNames ? "tweets-part1.js" : "tweet-part1.js") == (parts > 1))
    }

    @Test(arguments: [false, true]) func aZipReadsAsItsFolderDoes(stored: Bool) throws {
        var fixture = ArchiveFixture()
        fixture.parts = 2
        fixture.tweets = ArchiveFixture.tweets(300) { "tweet \($0) " + String(repeating: "pad ", count: $0 % 50) }
        let source = try folder(fixture)
        let zip = URL(fileURLWithPath: env.path("archive.zip"))
        try ArchiveFixture.zip(source, to: zip, stored: stored)
        let fromZip = try TwitterArchive.read(path: zip.path)
        let fromFolder = try TwitterArchive.read(path: source.path)
        #expect(fromZip.tweets == fromFolder.tweets && fromZip.tweets.count == 300)
        // Inside one more folder, as some tools repack it.
        let wrapped = URL(fileURLWithPath: env.path("wrapped.zip"))
        try ArchiveFixture.zip(source, to: wrapped, inside: "twitter-2023-08-12")
        #expect(try TwitterArchive.read(path: wrapped.path).tweets == fromFolder.tweets)
    }

    @Test func aDamagedZipIsRefusedWithItsReason() throws {
        var fixture = ArchiveFixture()
        fixture.tweets = ArchiveFixture.tweets(200)
        let zip = URL(fileURLWithPath: env.path("archive.zip"))
        try ArchiveFixture.zip(try folder(fixture), to: zip, stored: true)
        var bytes = try Data(contentsOf: zip)
        // A byte inside a stored tweets.js changes: its CRC-32 no longer matches.
        let marker = try #require(bytes.range(of: Data("archived tweet number 150".utf8)))
        bytes[marker.lowerBound] ^= 0x20
        try bytes.write(to: zip)
        #expect {
            try TwitterArchive.read(path: zip.path)
        } throws: { error in
            (error as? ArchiveError)?.localizedDescription.contains("fails its CRC-32 check") == true
        }
        try Data(bytes.prefix(bytes.count / 2)).write(to: zip)  // cut short: no central directory
        #expect(throws: ArchiveError.self) { try TwitterArchive.read(path: zip.path) }
        try Data("not a zip".utf8).write(to: zip)
        #expect(throws: ArchiveError.unreadable(zip.path, reason: "it is neither a zip file nor a folder")) {
            try TwitterArchive.read(path: zip.path)
        }
    }

    @Test func aMalformedPartIsNamedWithItsPlace() throws {
        var fixture = ArchiveFixture()
        fixture.parts = 2
        fixture.tweets = ArchiveFixture.tweets(6)
        let url = try folder(fixture)
        let part = url.appendingPathComponent("data/tweets-part1.js")
        var text = try String(contentsOf: part, encoding: .utf8)
        // The second item of the second part (tweet 4) loses its created_at's year.
        let stamp = ArchiveFixture.createdAt(fixture.tweets[4].created)
        #expect(text.contains(stamp))
        text = text.replacingOccurrences(of: stamp, with: String(stamp.dropLast(5)))
        try text.write(to: part, atomically: true, encoding: .utf8)
        #expect {
            try TwitterArchive.read(path: url.path)
        } throws: { error in
            guard case .malformed(let file, let place, let reason) = error as? ArchiveError else { return false }
            return file == "data/tweets-part1.js" && place == "item 2" && reason.contains("created_at")
        }
        try "window.YTD.tweets.part1 = [ { \"tweet\" : { \"id_str\" : \"1\" ".write(
            to: part, atomically: true, encoding: .utf8)
        #expect(
            throws: ArchiveError.malformed(
                file: "data/tweets-part1.js", place: "its end",
                reason: "it ends before its value does (the file is cut short)")
        ) {
            try TwitterArchive.read(path: url.path)
        }
        try "var x = 1".write(to: part, atomically: true, encoding: .utf8)
        #expect(throws: ArchiveError.self) { try TwitterArchive.read(path: url.path) }
    }
}

extension TwitterArchiveReadingTests {
    @Test func onlyTcoLinksExpandEachInPlaceOnceAndTheGrowthIsBounded() {
        let links = [("https://t.co/abc", "https://example.org/a"), ("https://t.co/abcd", "https://example.org/b")]
        // Case does not matter in the scheme and host; the code after t.co/ must match whole.
        #expect(
            TwitterText.expand("HTTPS://T.CO/abc, https://t.co/abcd, https://t.co/abcde", links: links)
                == "https://example.org/a, https://example.org/b, https://t.co/abcde")
        // An expansion is not read again, even if it holds another link.
        #expect(
            TwitterText.expand(
                "https://t.co/x", links: [("https://t.co/x", "https://t.co/y"), ("https://t.co/y", "z")])
                == "https://t.co/y")
        // Entities that are not t.co links rewrite nothing: "a" would otherwise replace every a.
        let text = String(repeating: "a ", count: 50_000)
        #expect(
            TwitterText.expand(text, links: (0..<1000).map { _ in ("a", String(repeating: "b", count: 1000)) }) == text)
        // Many occurrences of one link grow the caption to at most maximumExpandedBytes.
        let many = String(repeating: "https://t.co/q ", count: 5_000)
        let long = "https://example.org/" + String(repeating: "p", count: 980)
        let expanded = TwitterText.expand(many, links: [("https://t.co/q", long)])
        #expect(expanded.utf8.count <= TwitterText.maximumExpandedBytes)
        #expect(expanded.hasPrefix(long + " ") && expanded.hasSuffix("https://t.co/q "))
        // Four megabytes of "http" and one link: one pass, not a search from every "http" (which
        // grows with the square of the text).
        let started = Date()
        let crowded = String(repeating: "http", count: 1 << 20) + " https://t.co/abc"
        // Past 128 KiB a link only expands to something no longer than itself.
        let found = TwitterText.expand(crowded, links: [("https://t.co/abc", "https://a.b")]).hasSuffix(
            "http https://a.b")
        #expect(found)
        #expect(Date().timeIntervalSince(started) < 30, "expanding is linear in the text")
    }

    /// A member whose local header has a long extra field holds, in its data, another member's
    /// local header and data: the second would be read twice (once inside the first). The
    /// overlap is found from where the data really starts, not from the central directory alone.
    @Test func aMemberHiddenInsideAnotherOnesDataIsRefused() throws {
        func le(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(value >> (8 * $0) & 0xFF) } }
        func local(_ name: [UInt8], _ data: [UInt8], extra: Int = 0) -> [UInt8] {
            [0x50, 0x4B, 0x03, 0x04] + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4)
                + le(Int(CRC32.checksum(data)), 4) + le(data.count, 4) + le(data.count, 4) + le(name.count, 2)
                + le(extra, 2) + name + [UInt8](repeating: 0, count: extra)
        }
        func central(_ name: [UInt8], _ data: [UInt8], at offset: Int) -> [UInt8] {
            [0x50, 0x4B, 0x01, 0x02] + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4)
                + le(Int(CRC32.checksum(data)), 4) + le(data.count, 4) + le(data.count, 4) + le(name.count, 2)
                + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(offset, 4) + name
        }
        let account = Array(#"window.YTD.account.part0 = [ {"account": {"username": "ada"}} ]"#.utf8)
        let followers = Array(
            ("window.YTD.follower.part0 = [" + Array(repeating: #"{"follower": {}}"#, count: 5).joined(separator: ",")
                + "]").utf8)
        let inner = Array("data/follower.js".utf8)
        let outer = Array("data/follower-part1.js".utf8)
        var bytes = local(Array("data/account.js".utf8), account) + account
        var directory = central(Array("data/account.js".utf8), account, at: 0)
        // The outer member's data is the inner member's local header and data, as they are.
        let hidden = local(inner, followers) + followers
        let outerAt = bytes.count
        let outerHeader = local(outer, hidden, extra: 1000)
        bytes += outerHeader + hidden
        directory += central(outer, hidden, at: outerAt)
        directory += central(inner, followers, at: outerAt + outerHeader.count)
        let end =
            [0x50, 0x4B, 0x05, 0x06] + le(0, 4) + le(3, 2) + le(3, 2) + le(directory.count, 4)
            + le(bytes.count, 4) + le(0, 2)
        let zip = URL(fileURLWithPath: env.path("hidden.zip"))
        try Data(bytes + directory + end).write(to: zip)
        expectOverlapRefused(zip)
    }

    private func expectOverlapRefused(_ zip: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            try TwitterArchive.read(path: zip.path)
        } throws: { error in
            (error as? ArchiveError)?.localizedDescription.contains("two of its members overlap") == true
        }
    }

    @Test func membersThatOverlapAreRefused() throws {
        var fixture = ArchiveFixture()
        fixture.tweets = ArchiveFixture.tweets(2)
        let zip = URL(fileURLWithPath: env.path("archive.zip"))
        try ArchiveFixture.zip(try folder(fixture), to: zip)
        #expect(try TwitterArchive.read(path: zip.path).followers == 5)
        // One member's data listed again as the follower file's second part: read three times,
        // it would count the followers three times.
        let twice = try ArchiveFixture.duplicatingEntry(
            try Data(contentsOf: zip), "data/follower.js", as: "data/follower-part1.js")
        try twice.write(to: zip)
        expectOverlapRefused(zip)
    }

    @Test func aManifestListsAFileOnceAndAsOneKindOnly() throws {
        var fixture = ArchiveFixture()
        fixture.tweets = ArchiveFixture.tweets(3)
        let url = try folder(fixture)
        let manifestURL = url.appendingPathComponent("data/manifest.js")
        let manifest = try String(contentsOf: manifestURL, encoding: .utf8)
        // following.js listed 50 times: still three accounts followed, read once.
        let entry = "{\"fileName\":\"data\\/following.js\",\"globalName\":\"YTD.following.part0\",\"count\":\"3\"}"
        let repeated = Array(repeating: entry, count: 50).joined(separator: ",")
        let regex = try NSRegularExpression(pattern: "\"following\"\\s*:\\s*\\{\\s*\"files\"\\s*:\\s*\\[[^\\]]*\\]")
        let range = NSRange(manifest.startIndex..., in: manifest)
        #expect(regex.firstMatch(in: manifest, range: range) != nil)
        let many = regex.stringByReplacingMatches(
            in: manifest, range: range, withTemplate: "\"following\": {\"files\": [\(repeated)]")
        try many.write(to: manifestURL, atomically: true, encoding: .utf8)
        #expect(try TwitterArchive.read(path: url.path).following == 3)
        // The tweets' file listed as the likes too: malformed, not read as both.
        let twice = manifest.replacingOccurrences(of: "like.js", with: "tweets.js")
        #expect(twice != manifest)
        try twice.write(to: manifestURL, atomically: true, encoding: .utf8)
        #expect {
            try TwitterArchive.read(path: url.path)
        } throws: { error in
            guard case .malformed(let file, _, let reason) = error as? ArchiveError else { return false }
            return file == "data/manifest.js" && reason.contains("data/tweets.js as tweets too")
        }
    }

    @Test func tweetsFromAfterTodayAreRefused() throws {
        var fixture = ArchiveFixture()
        let future = Date().addingTimeInterval(30 * 86_400)
        fixture.tweets = ArchiveFixture.tweets(2)
        fixture.tweets[1].id = ArchiveFixture.snowflake(future)
        let url = try folder(fixture)
        #expect {
            try TwitterArchive.read(path: url.path)
        } throws: { error in
            guard case .malformed(_, let place, let reason) = error as? ArchiveError else { return false }
            return place == "item 2" && reason.contains("id_str") && reason.contains("later than today")
        }
        fixture.tweets[1] = .init(id: 12345, created: future, text: "from the future")
        let other = try folder(fixture, "other")
        #expect {
            try TwitterArchive.read(path: other.path)
        } throws: { error in
            guard case .malformed(_, _, let reason) = error as? ArchiveError else { return false }
            return reason.contains("created_at is later than today")
        }
        #expect(TwitterTime.date("Sat Feb 31 16:10:37 +0000 2023") == nil)
        #expect(TwitterTime.date("Tue Feb 29 16:10:37 +0000 2028") != nil)
    }

    @Test func aFifoInTheArchiveIsRefusedNotWaitedOn() throws {
        var fixture = ArchiveFixture()
        fixture.tweets = ArchiveFixture.tweets(2)
        let url = try folder(fixture)
        let like = url.appendingPathComponent("data/like.js")
        try FileManager.default.removeItem(at: like)
        #expect(mkfifo(like.path, 0o600) == 0)
        #expect {
            try TwitterArchive.read(path: url.path)
        } throws: { error in
            (error as? ArchiveError)?.localizedDescription.contains("it is not a regular file") == true
        }
        let pipe = env.path("archive.zip")
        #expect(mkfifo(pipe, 0o600) == 0)
        #expect(throws: ArchiveError.unreadable(pipe, reason: "it is neither a zip file nor a folder")) {
            try TwitterArchive.read(path: pipe)
        }
    }
}
