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

    func folder(_ fixture: ArchiveFixture, _ name: String = "archive") throws -> URL {
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
        let tweet = try #require(try archive.readTweets().first)
        #expect(tweet.text == "Fish & chips <3 &amp; more: https://example.org/a and https://example.org/b")
        #expect(tweet.created == created && tweet.favorites == 7 && tweet.replyTo == nil)
        #expect(archive.account == .init(username: "Ada_L", displayName: "Ada Lovelace", email: "ada@example.com"))
        #expect(archive.profile == .init(bio: "Analyst & poet", website: "https://example.org/ada", location: "London"))
        #expect(archive.following == 3 && archive.followers == 5)
        #expect(TwitterTime.date("Sat Aug 12 18:10:37 +0200 2023") == created)
        #expect(TwitterTime.date("Sat Aug 12 16:10:37 2023") == nil)
        // Twitter's fixed layout is read by place; anything else as fields, with the same checks.
        #expect(TwitterTime.date("Wed Aug 2 16:10:37 +0000 2023") == created.addingTimeInterval(-10 * 86_400))
        #expect(TwitterTime.date("Wed Aug  2 16:10:37 +0000 2023") == created.addingTimeInterval(-10 * 86_400))
        for bad in [
            "Sat Agu 12 16:10:37 +0000 2023", "Sat Aug 12 24:10:37 +0000 2023", "Sat Aug 32 16:10:37 +0000 2023",
            "Sat Aug 12 16:60:37 +0000 2023", "Sat Aug 12 16:10:37 *0000 2023", "Sat Aug 12 16:10:37 +0000 1969",
        ] {
            #expect(TwitterTime.date(bad) == nil, "\(bad)")
        }
        // Offsets are four digits and at most 14 hours either way.
        #expect(TwitterTime.date("Sun Aug 13 06:10:37 +1400 2023") == created)
        #expect(TwitterTime.date("Sat Aug 12 04:10:37 -1200 2023") == created)
        for zone in ["+9999", "-1401", "+1460", "+1+00", "+ 100", "+12345"] {
            #expect(TwitterTime.date("Sat Aug 12 16:10:37 \(zone) 2023") == nil, "\(zone)")
        }
    }

    @Test(arguments: [(true, 1), (true, 3), (false, 1), (false, 2)])
    func oldAndNewFileNamesAndPartsGiveEveryTweetOldestFirst(newNames: Bool, parts: Int) throws {
        var fixture = ArchiveFixture()
        fixture.newNames = newNames
        fixture.parts = parts
        fixture.tweets = ArchiveFixture.tweets(10).reversed()  // Twitter lists the newest first.
        let archive = try TwitterArchive.read(path: try folder(fixture).path)
        #expect(try archive.readTweets().map(\.text) == (0..<10).map { "archived tweet number \($0)" })
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
        #expect(try fromZip.readTweets() == fromFolder.readTweets() && fromZip.summaries.count == 300)
        // Inside one more folder, as some tools repack it.
        let wrapped = URL(fileURLWithPath: env.path("wrapped.zip"))
        try ArchiveFixture.zip(source, to: wrapped, inside: "twitter-2023-08-12")
        #expect(try TwitterArchive.read(path: wrapped.path).readTweets() == fromFolder.readTweets())
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
        let followers = Array(
            ("window.YTD.follower.part0 = [" + Array(repeating: #"{"follower": {}}"#, count: 5).joined(separator: ",")
                + "]").utf8)
        var zip = HandMadeZip()
        zip.add("data/account.js", HandMadeZip.account)
        // The outer member's data is the inner member's local header and data, as they are.
        let inner = HandMadeZip.Header("data/follower.js", followers)
        let hidden = HandMadeZip.local(inner) + followers
        let outerAt = zip.add("data/follower-part1.js", hidden, extra: 1000)
        zip.list(inner, at: outerAt + 30 + 22 + 1000)
        let url = URL(fileURLWithPath: env.path("hidden.zip"))
        try zip.write(to: url)
        expectOverlapRefused(url)
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

/// What libarchive is handed of a zip, and what becomes of it.
extension TwitterArchiveReadingTests {
    /// Info-ZIP's `zip` writing to a pipe puts each member's sizes and CRC-32 after its data (as
    /// Java's ZipOutputStream does), stored or deflated; with `-fz` it writes ZIP64 records.
    @Test(arguments: [(["-0"], true), (["-9"], true), (["-fz"], false)])
    func aZipWrittenToAPipeOrAsZip64ReadsAsItsFolderDoes(options: [String], piped: Bool) throws {
        var fixture = ArchiveFixture()
        fixture.parts = 2
        fixture.tweets = ArchiveFixture.tweets(300) { "tweet \($0) " + String(repeating: "pad ", count: $0 % 50) }
        let source = try folder(fixture)
        let zip = env.path("written.zip")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.currentDirectoryURL = source
        let command = "zip -q -r \(options.joined(separator: " "))"
        process.arguments = ["-c", piped ? "\(command) - . | cat > \(zip)" : "\(command) \(zip) ."]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: zip))
        // The files' local headers: bit 3 of the flags puts a file's sizes after its data; a
        // ZIP64 header says its sizes are in its extra field.
        var headers: [Data] = []
        var from = bytes.startIndex
        while let found = bytes.range(of: Data([0x50, 0x4B, 0x03, 0x04]), in: from..<bytes.endIndex) {
            headers.append(bytes[found.lowerBound..<(found.lowerBound + 30)])
            from = found.upperBound
        }
        let files = headers.filter { $0[$0.startIndex + 26] > 5 }  // longer names than "data/"
        #expect(files.count == 10)
        #expect(files.contains { $0[$0.startIndex + 6] & 0x08 != 0 } == piped)
        #expect(files.allSatisfy { $0[($0.startIndex + 18)..<($0.startIndex + 26)].allSatisfy { $0 == 0xFF } } != piped)
        let fromZip = try TwitterArchive.read(path: zip)
        #expect(
            try fromZip.readTweets() == TwitterArchive.read(path: source.path).readTweets()
                && fromZip.summaries.count == 300)
    }

    /// A member whose local header names a compression other than deflate, under a directory entry
    /// that says it is stored: refused, not decoded, since libarchive reads the local header.
    @Test func aMemberCompressedAnotherWayIsRefusedWhateverTheDirectorySays() throws {
        let likes = Array("window.YTD.like.part0 = [ ]".utf8)
        var zip = HandMadeZip()
        zip.add("data/account.js", HandMadeZip.account)
        let header = HandMadeZip.Header("data/like.js", likes)
        var bzip2 = header
        bzip2.method = 12
        zip.list(header, at: zip.append(HandMadeZip.local(bzip2) + likes))
        let url = URL(fileURLWithPath: env.path("bzip2.zip"))
        try zip.write(to: url)
        #expect {
            try TwitterArchive.read(path: url.path)
        } throws: { error in
            (error as? ArchiveError)?.localizedDescription.contains("data/like.js is compressed with method 12") == true
        }
    }

    /// A directory that says a member is small, over a local header that says it is large (a
    /// decompression bomb's way past a size check): reading stops where the directory's size ends.
    @Test func aMemberLongerThanItsDirectorySaysIsStoppedThere() throws {
        let likes = Array(("window.YTD.like.part0 = [" + String(repeating: " ", count: 100_000) + "]").utf8)
        var zip = HandMadeZip()
        zip.add("data/account.js", HandMadeZip.account)
        let header = HandMadeZip.Header("data/like.js", likes)
        zip.list(header.with(size: 40), at: zip.append(HandMadeZip.local(header) + likes))
        let url = URL(fileURLWithPath: env.path("bomb.zip"))
        try zip.write(to: url)
        #expect {
            try TwitterArchive.read(path: url.path)
        } throws: { error in
            (error as? ArchiveError)?.localizedDescription.contains("data/like.js is longer than its directory says")
                == true
        }
    }

    /// A deflated member whose local header says its data runs on through the next member's
    /// header and data (one stored block holding them), where the directory says it ends before:
    /// libarchive is handed the member's own bytes only, so it finds the member cut short rather
    /// than reading the next member's data as this one's.
    @Test func aLocalHeaderReachingIntoTheNextMembersDataIsCutShort() throws {
        let followers = Array("window.YTD.follower.part0 = []".utf8)
        let inner = HandMadeZip.Header("data/follower.js", followers)
        // The next member's header falls inside a string, where the script reader waits for its end.
        let start = Array(#"window.YTD.like.part0 = [ {"like": {"tweetId": ""#.utf8)
        let content = start + HandMadeZip.local(inner) + followers
        // A final stored block: its length, the length's complement, then the bytes as they are.
        let block = [0x01] + HandMadeZip.le(content.count, 2) + HandMadeZip.le(~content.count & 0xFFFF, 2) + content
        var zip = HandMadeZip()
        zip.add("data/account.js", HandMadeZip.account)
        var like = HandMadeZip.Header("data/like.js", content, method: 8)
        like.compressedSize = block.count
        let likeAt = zip.append(HandMadeZip.local(like) + block)
        like.compressedSize = 5 + start.count
        zip.list(like, at: likeAt)
        zip.list(inner, at: likeAt + HandMadeZip.local(like).count + 5 + start.count)
        let url = URL(fileURLWithPath: env.path("reaching.zip"))
        try zip.write(to: url)
        #expect {
            try TwitterArchive.read(path: url.path)
        } throws: { error in
            (error as? ArchiveError)?.localizedDescription.contains("data/like.js cannot be read (libarchive: ") == true
        }
    }

    @Test func withoutLibarchiveAZipIsRefusedWithWhatToInstall() {
        guard case .failure(let missing) = LibArchive.load("libarchive-that-is-not-installed.so.13") else {
            Issue.record("a library that is not there was loaded")
            return
        }
        #expect(
            missing.reason
                == "reading a zip file needs libarchive, which is not installed (Debian: apt-get install libarchive-dev)"
        )
        #expect(throws: Never.self) { try LibArchive.shared.get() }
    }
}

/// A zip file made byte by byte, for what `zip` would never write: members whose headers and
/// directory entries disagree, or that share their data.
private struct HandMadeZip {
    static let account = Array(#"window.YTD.account.part0 = [ {"account": {"username": "ada"}} ]"#.utf8)

    /// What a local header and a directory entry say of a member.
    struct Header {
        var name: String
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var method = 0
        var extra = 0

        /// A header for `content`, stored unless `method` says otherwise.
        init(_ name: String, _ content: [UInt8], method: Int = 0, extra: Int = 0) {
            self.name = name
            crc = CRC32.checksum(content)
            compressedSize = content.count
            size = content.count
            self.method = method
            self.extra = extra
        }

        /// The same header, saying both sizes are `size`.
        func with(size: Int) -> Header {
            var header = self
            header.size = size
            header.compressedSize = size
            return header
        }
    }

    private(set) var bytes: [UInt8] = []
    private var directory: [UInt8] = []
    private var count = 0

    static func le(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(value >> (8 * $0) & 0xFF) } }

    static func local(_ header: Header) -> [UInt8] {
        [0x50, 0x4B, 0x03, 0x04] + le(20, 2) + le(0, 2) + le(header.method, 2) + le(0, 4) + le(Int(header.crc), 4)
            + le(header.compressedSize, 4) + le(header.size, 4) + le(header.name.utf8.count, 2) + le(header.extra, 2)
            + Array(header.name.utf8) + [UInt8](repeating: 0, count: header.extra)
    }

    /// Appends `raw` to the members' bytes.
    /// - Returns: Where it starts.
    mutating func append(_ raw: [UInt8]) -> Int {
        defer { bytes += raw }
        return bytes.count
    }

    /// Lists a member in the directory, its local header at `offset`.
    mutating func list(_ header: Header, at offset: Int) {
        directory +=
            [0x50, 0x4B, 0x01, 0x02] + Self.le(20, 2) + Self.le(20, 2) + Self.le(0, 2) + Self.le(header.method, 2)
            + Self.le(0, 4) + Self.le(Int(header.crc), 4) + Self.le(header.compressedSize, 4) + Self.le(header.size, 4)
            + Self.le(header.name.utf8.count, 2) + Self.le(0, 2) + Self.le(0, 2) + Self.le(0, 2) + Self.le(0, 2)
            + Self.le(0, 4) + Self.le(offset, 4) + Array(header.name.utf8)
        count += 1
    }

    /// Adds a stored member, its local header and directory entry telling the truth.
    /// - Returns: Where its local header is.
    @discardableResult
    mutating func add(_ name: String, _ content: [UInt8], extra: Int = 0) -> Int {
        let header = Header(name, content, extra: extra)
        let offset = append(Self.local(header) + content)
        list(header, at: offset)
        return offset
    }

    func write(to url: URL) throws {
        let end =
            [0x50, 0x4B, 0x05, 0x06] + Self.le(0, 4) + Self.le(count, 2) + Self.le(count, 2)
            + Self.le(directory.count, 4) + Self.le(bytes.count, 4) + Self.le(0, 2)
        try Data(bytes + directory + end).write(to: url)
    }
}

extension TwitterArchiveReadingTests {
    /// The second reading hands over exactly the tweets the first one summarized: a file changed
    /// in between (a tweet cut, one replaced by a repeat of another's ID) stops it.
    @Test func aFileChangedBetweenTheTwoReadingsIsRefused() throws {
        var fixture = ArchiveFixture()
        fixture.tweets = ArchiveFixture.tweets(10)
        let url = try folder(fixture)
        let archive = try TwitterArchive.read(path: url.path)
        #expect(try archive.readTweets().count == 10)
        fixture.tweets.removeLast()
        try fixture.write(to: url)
        #expect(throws: ArchiveError.unreadable(url.path, reason: "it changed while it was imported")) {
            try archive.forEachTweet { _, _, _ in }
        }
        fixture.tweets = ArchiveFixture.tweets(10)
        fixture.tweets[9].id = fixture.tweets[0].id
        try fixture.write(to: url)
        #expect(throws: ArchiveError.self) { try archive.forEachTweet { _, _, _ in } }
    }

    /// Twitter's IDs start at 1: a reply to tweet 0 is malformed.
    @Test func aReplyToTweetZeroIsMalformed() throws {
        var fixture = ArchiveFixture()
        fixture.tweets = ArchiveFixture.tweets(3)
        fixture.tweets[2].replyTo = 0
        let url = try folder(fixture)
        #expect(throws: ArchiveError.self) { try TwitterArchive.read(path: url.path) }
    }
}
