import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

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
        // took two minutes here).
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

/// The import through the services, on every engine.
struct TwitterArchiveImportTests {
    /// Mid-archive: a tweet posted here sits among the archived ones in time.
    static let midArchive = Date(timeIntervalSince1970: 1_691_856_637 + 30 * 60 + 5)

    /// ada's archive: 60 tweets a minute apart, every tenth a reply to the one before, every
    /// seventh with #history, one of 300 characters, and likes of her own tweet 3 and of a
    /// tweet that is not here.
    static func fixture() -> ArchiveFixture {
        var fixture = ArchiveFixture()
        var tweets = ArchiveFixture.tweets(60) { index in
            index == 59
                ? String(repeating: "long ", count: 60) + "end"
                : "archive word \(index)" + (index % 7 == 0 ? " #history" : "")
        }
        for index in stride(from: 10, to: 60, by: 10) { tweets[index].replyTo = tweets[index - 1].id }
        fixture.tweets = tweets
        fixture.likes = [tweets[3].id, 1_700_000_000_000_000_000]
        return fixture
    }

    /// Every layout in one transaction, and the local journal in transactions of 7 tweets, so
    /// that replies, search buckets and hours span transactions.
    @Test(arguments: StoreLayout.allCases.map { ($0, TweetService.archiveBatch) } + [(.journal, 7), (.mixed, 7)])
    func tweetsRepliesLikesSearchAndCountsAreAsIfPostedThen(layout: StoreLayout, batchSize: Int) async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let services = try env.makeServices(layout)
        let ada = try await env.registerUser("ada", in: services)
        let native = try await services.tweets.uploadTweet(caption: "native archive word here")
        let url = URL(fileURLWithPath: env.path("archive"))
        try Self.fixture().write(to: url)
        let archive = try TwitterArchive.read(path: url.path)
        let report = try await services.tweets.importArchive(archive, batchSize: batchSize)
        #expect(report.tweets == 60 && report.replies == 5 && report.likes == 1 && report.overLimit == 1)
        #expect(report.skipped.likedTweetsNotHere == 1 && report.skipped.alreadyImported == 0)

        let mine = try await services.tweets.fetchTweets(forUid: ada.id, limit: 100)
        #expect(mine.count == 61 - 5, "the profile's Tweets tab leaves replies out")
        let replies = try await services.tweets.fetchReplies(forUid: ada.id, limit: 100)
        #expect(replies.count == 5)
        let first = try #require(replies.last)
        #expect(first.caption == "archive word 10" && first.replyToId != nil)
        let parent = try await services.tweets.fetchTweet(withID: try #require(first.replyToId))
        #expect(parent.caption == "archive word 9" && parent.replyCount == 1)
        #expect(parent.timestamp == archive.tweets[9].created)
        #expect(parent.source?.twitter == String(archive.tweets[9].twitterID))
        let long = try #require(mine.first { $0.caption.hasPrefix("long") })
        #expect(long.source?.overLimit == true && long.caption.count == 303)
        #expect(try await services.users.fetchStats(forUid: ada.id).tweets == 61)
        let liked = try await services.tweets.fetchLikedTweets(forUid: ada.id)
        #expect(liked.map(\.caption) == ["archive word 3"] && liked.first?.likes == 1)

        // Search: every archived tweet with the word (all but the long one), and the native one, newest first.
        let found = try await services.tweets.search("archive", limit: 100)
        #expect(found.count == 59 + 1)
        #expect(found.map(\.id) == found.map(\.id).sorted(by: >), "newest first")
        #expect(found.contains { $0.id == native.id })
        let history = try await services.tweets.search("#history", limit: 100).map(\.caption)
        #expect(history == stride(from: 56, through: 0, by: -7).map { "archive word \($0) #history" })
        try await Self.expectBucketsApartAndOpenNewest("archive", services.store)
        try await Self.expectBucketsApartAndOpenNewest("word", services.store)
        // A post after the import (and after the archive's last tweet) still comes first.
        env.clock.set(Self.midArchive.addingTimeInterval(3600))
        let later = try await services.tweets.uploadTweet(caption: "archive word afterwards")
        #expect(try await services.tweets.search("archive", limit: 1).map(\.id) == [later.id])
        try await Self.expectBucketsApartAndOpenNewest("archive", services.store)
        // The hashtags count in the hours they were posted in: 16:10 to 16:59 holds tweets 0 to 49.
        let trends = try await services.tweets.fetchTrends(hours: 1, now: archive.tweets[20].created)
        #expect(trends.trends == [Trend(hashtag: "#history", tweets: 8)], "\(trends)")

        // Again: nothing twice.
        let again = try await services.tweets.importArchive(archive, batchSize: batchSize)
        #expect(again.tweets == 0 && again.likes == 0 && again.skipped.alreadyImported == 60)
        #expect(again.skipped.likesAlreadyThere == 1)
        #expect(try await services.users.fetchStats(forUid: ada.id).tweets == 62)
        #expect(try await services.tweets.search("archive", limit: 100).count == 59 + 2)
    }

    /// A term's buckets hold sorted IDs, each bucket's all before the next one's start, and its
    /// `open` bucket, when it names one, is the newest: what search's order and posts rely on.
    static func expectBucketsApartAndOpenNewest(_ term: String, _ store: any DocumentStore) async throws {
        let buckets = try await store.collection(SearchIndex.bucketsCollection(term)).order(by: "start")
            .getDocuments()
        var previous: String?
        var total = 0
        for bucket in buckets {
            let ids = SearchIndex.ids(bucket.data)
            total += ids.count
            #expect(ids == ids.sorted(by: ByteOrder.precedes) && bucket.data["start"]?.stringValue == ids.first)
            if let previous, let first = ids.first { #expect(ByteOrder.precedes(previous, first), "\(term) overlaps") }
            previous = ids.last
        }
        let fields = try await store.getDocument(SearchIndex.termPath(term))?.data
        #expect(fields?["tweets"]?.integerValue == Int64(total))
        if let open = fields?["open"]?.stringValue {
            #expect(open == buckets.last?.documentID, "\(term)'s open bucket")
        }
    }

    @Test func anotherAccountsImportOfTheSameTweetsIsNotTakenOver() async throws {
        let env = try TestEnvironment()
        let services = try env.makeServices()
        try await env.registerUser("ada", in: services)
        let url = URL(fileURLWithPath: env.path("archive"))
        try Self.fixture().write(to: url)
        let archive = try TwitterArchive.read(path: url.path)
        _ = try await services.tweets.importArchive(archive)
        let bob = try await env.addUser("bob", to: services)
        try await env.signIn(bob, in: services)
        let report = try await services.tweets.importArchive(archive)
        #expect(report.tweets == 0 && report.skipped.importedByAnother == 60)
        // bob's like of ada's imported tweet 3 is his own.
        #expect(report.likes == 1)
        #expect(try await services.users.fetchStats(forUid: bob.id).tweets == 0)
    }
}

extension TwitterArchiveImportTests {
    /// An archive whose created_at runs backwards against the times its IDs hold (Twitter's own
    /// never does; hand-made and converted ones may): each tweet's place is its created_at's, in
    /// search and on the profile alike, and the buckets stay apart however the tweets come in.
    @Test(arguments: [7, TweetService.archiveBatch]) func createdAtAgainstTheIDsOrderStillIndexesInOrder(batchSize: Int)
        async throws
    {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let services = try env.makeServices(.journal)
        let ada = try await env.registerUser("ada", in: services)
        var fixture = ArchiveFixture()
        let start = Date(timeIntervalSince1970: 1_691_856_637)
        fixture.tweets = (0..<30).map { index in
            .init(
                id: ArchiveFixture.snowflake(start.addingTimeInterval(Double(index) * 60)),
                created: start.addingTimeInterval(Double(29 - index) * 60), text: "ordered word \(index)")
        }
        let url = URL(fileURLWithPath: env.path("archive"))
        try fixture.write(to: url)
        var archive = try TwitterArchive.read(path: url.path)
        archive.tweets.shuffle()
        let report = try await services.tweets.importArchive(archive, batchSize: batchSize)
        #expect(report.tweets == 30)
        let expected = (0..<30).map { "ordered word \($0)" }
        #expect(try await services.tweets.search("ordered", limit: 100).map(\.caption) == expected)
        #expect(try await services.tweets.fetchTweets(forUid: ada.id, limit: 100).map(\.caption) == expected)
        try await Self.expectBucketsApartAndOpenNewest("ordered", services.store)
        try await Self.expectBucketsApartAndOpenNewest("word", services.store)
        #expect(try await services.tweets.importArchive(archive, batchSize: batchSize).skipped.alreadyImported == 30)
    }

    /// Counts the store holds at the largest there is stay there; the import does not trap.
    @Test func countsAtTheirLargestDoNotOverflow() async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let services = try env.makeServices()
        let ada = try await env.registerUser("ada", in: services)
        _ = try await services.tweets.uploadTweet(caption: "archive word first")
        try await services.store.runTransaction { transaction in
            transaction.updateData(["tweets": .value(.integer(.max))], at: StatsCounter.path(of: ada.id))
            transaction.updateData(["tweets": .value(.integer(.max))], at: SearchIndex.termPath("archive"))
        }
        let url = URL(fileURLWithPath: env.path("archive"))
        try Self.fixture().write(to: url)
        let report = try await services.tweets.importArchive(try TwitterArchive.read(path: url.path))
        #expect(report.tweets == 60)
        #expect(try await services.users.fetchStats(forUid: ada.id).tweets == Int.max)
        #expect(try await services.store.getDocument(SearchIndex.termPath("archive"))?.data["tweets"] == .integer(.max))
    }

    /// The archive fills the profile's empty fields only; one set here stays, and is reported.
    @MainActor @Test func theProfileIsFilledWhereEmptyAndKeptWhereSet() async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let services = try env.makeServices()
        try await env.registerUser("ada", in: services)
        _ = try await services.users.updateProfile(
            ProfileChanges(bio: "My own bio", website: "https://example.org/ada"))
        let url = URL(fileURLWithPath: env.path("archive"))
        try Self.fixture().write(to: url)
        let viewModel = ArchiveImportViewModel(services: services)
        try await viewModel.read(path: url.path)
        try await viewModel.importArchive()
        let report = try #require(viewModel.report)
        #expect(report.profile == ["location"] && report.profileKept == ["bio"], "\(report)")
        let user = try #require(try await services.auth.currentUser())
        #expect(user.bio == "My own bio" && user.location == "London" && user.website == "https://example.org/ada")
    }

    /// A field the archive filled is the archive's on the next import, line breaks and all.
    @MainActor @Test func aFieldTheArchiveFilledIsNotReportedAsKeptNextTime() async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let services = try env.makeServices()
        try await env.registerUser("ada", in: services)
        var fixture = Self.fixture()
        fixture.bio = "  Line one\r\nline two "
        let url = URL(fileURLWithPath: env.path("archive"))
        try fixture.write(to: url)
        for run in 0..<2 {
            let viewModel = ArchiveImportViewModel(services: services)
            try await viewModel.read(path: url.path)
            try await viewModel.importArchive()
            let report = try #require(viewModel.report)
            #expect(report.profileKept.isEmpty, "run \(run): \(report)")
            #expect(report.profile == (run == 0 ? ["bio", "website", "location"] : []))
        }
        #expect(try await services.auth.currentUser()?.bio == "Line one\nline two")
    }
}
