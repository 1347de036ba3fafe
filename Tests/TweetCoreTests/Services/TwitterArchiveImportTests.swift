import Foundation
import Synchronization
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TwitterArchive

/// The import through the services, on every engine.
struct TwitterArchiveImportTests {
    /// Mid-archive: a tweet posted here sits among the archived ones in time.
    static let midArchive = Date(timeIntervalSince1970: 1_691_856_637 + 30 * 60 + 5)

    /// Every layout: the local engine's bulk write, and PostgreSQL's transaction.
    @Test(arguments: StoreLayout.allCases)
    func tweetsRepliesLikesSearchAndCountsAreAsIfPostedThen(layout: StoreLayout) async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let services = try env.makeServices(layout)
        let ada = try await env.registerUser("ada", in: services)
        let native = try await services.tweets.uploadTweet(caption: "native archive word here")
        let url = URL(fileURLWithPath: env.path("archive"))
        try ArchiveFixture.sixtyTweets().write(to: url)
        let archive = try TwitterArchive.read(path: url.path)
        let tweets = try archive.readTweets()
        let report = try await services.tweets.importArchive(archive)
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
        #expect(parent.timestamp == tweets[9].created)
        #expect(parent.source?.twitter == String(tweets[9].twitterID))
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
        try await expectBucketsApartAndOpenNewest("archive", services.store)
        try await expectBucketsApartAndOpenNewest("word", services.store)
        // A post after the import (and after the archive's last tweet) still comes first.
        env.clock.set(Self.midArchive.addingTimeInterval(3600))
        let later = try await services.tweets.uploadTweet(caption: "archive word afterwards")
        #expect(try await services.tweets.search("archive", limit: 1).map(\.id) == [later.id])
        try await expectBucketsApartAndOpenNewest("archive", services.store)
        // The hashtags count in the hours they were posted in: 16:10 to 16:59 holds tweets 0 to 49.
        let trends = try await services.tweets.fetchTrends(hours: 1, now: tweets[20].created)
        #expect(trends.trends == [Trend(hashtag: "#history", tweets: 8)], "\(trends)")

        // Again: nothing twice.
        let again = try await services.tweets.importArchive(archive)
        #expect(again.tweets == 0 && again.likes == 0 && again.skipped.alreadyImported == 60)
        #expect(again.skipped.likesAlreadyThere == 1)
        #expect(try await services.users.fetchStats(forUid: ada.id).tweets == 62)
        #expect(try await services.tweets.search("archive", limit: 100).count == 59 + 2)
    }

    @Test func anotherAccountsImportOfTheSameTweetsIsNotTakenOver() async throws {
        let env = try TestEnvironment()
        let services = try env.makeServices()
        try await env.registerUser("ada", in: services)
        let url = URL(fileURLWithPath: env.path("archive"))
        try ArchiveFixture.sixtyTweets().write(to: url)
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
    @Test func createdAtAgainstTheIDsOrderStillIndexesInOrder() async throws {
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
        fixture.tweets.shuffle()
        let url = URL(fileURLWithPath: env.path("archive"))
        try fixture.write(to: url)
        let archive = try TwitterArchive.read(path: url.path)
        let report = try await services.tweets.importArchive(archive)
        #expect(report.tweets == 30)
        let expected = (0..<30).map { "ordered word \($0)" }
        #expect(try await services.tweets.search("ordered", limit: 100).map(\.caption) == expected)
        #expect(try await services.tweets.fetchTweets(forUid: ada.id, limit: 100).map(\.caption) == expected)
        try await expectBucketsApartAndOpenNewest("ordered", services.store)
        try await expectBucketsApartAndOpenNewest("word", services.store)
        #expect(try await services.tweets.importArchive(archive).skipped.alreadyImported == 30)
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
        try ArchiveFixture.sixtyTweets().write(to: url)
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
        try ArchiveFixture.sixtyTweets().write(to: url)
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
        var fixture = ArchiveFixture.sixtyTweets()
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

extension TwitterArchiveImportTests {
    /// A store whose bulk writes let `meanwhile` write (another process) between their produce
    /// and their commit: every time, or only the first `times` times.
    final class MeanwhileStore: ForwardingDocumentStore {
        let base: any DocumentStore
        private let meanwhile: @Sendable () async throws -> Void
        private let remaining: Mutex<Int>

        init(_ base: any DocumentStore, times: Int = .max, meanwhile: @escaping @Sendable () async throws -> Void) {
            self.base = base
            self.meanwhile = meanwhile
            remaining = Mutex(times)
        }

        func bulkWrite<T: Sendable>(
            produce: sending (_ bulk: BulkWrite) async throws -> Void,
            finish: @Sendable (_ transaction: Transaction, _ changed: Bool) async throws -> T
        ) async throws -> T {
            let write = remaining.withLock { count in
                defer { count -= 1 }
                return count > 0
            }
            let meanwhile = meanwhile
            return try await base.bulkWrite { bulk in
                try await produce(bulk)
                if write { try await meanwhile() }
            } finish: { transaction, changed in
                try await finish(transaction, changed)
            }
        }
    }

    /// Another process posts, while the archive is imported, a tweet newer than all of it with
    /// words the store did not have: the commit finds the terms written meanwhile and adds both
    /// counts, and the new tweet stays first in search.
    @Test func aNewerTweetPostedMeanwhileIsMergedIntoTheTerms() async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let local = try env.makeStore()
        let later = TestClock(Self.midArchive.addingTimeInterval(86_400))
        let other = try env.makeServices(clock: later)
        let store = MeanwhileStore(local, times: 1) {
            _ = try await other.tweets.uploadTweet(caption: "archive word meanwhile")
        }
        let services = try env.makeServices(store: store)
        let ada = try await env.registerUser("ada", in: services)
        let url = URL(fileURLWithPath: env.path("archive"))
        try ArchiveFixture.sixtyTweets().write(to: url)
        let report = try await services.tweets.importArchive(try TwitterArchive.read(path: url.path))
        #expect(report.tweets == 60)
        let found = try await services.tweets.search("archive", limit: 100)
        #expect(found.count == 59 + 1 && found.first?.caption == "archive word meanwhile")
        #expect(found.map(\.id) == found.map(\.id).sorted(by: >))
        try await expectBucketsApartAndOpenNewest("archive", local)
        try await expectBucketsApartAndOpenNewest("word", local)
        #expect(try await services.users.fetchStats(forUid: ada.id).tweets == 61)
    }

    /// A tweet posted meanwhile among the archive's own times lands in a bucket the import
    /// rewrites: that try is dropped and the import runs again; when it happens every time, the
    /// import stops after its tries, saying so, with nothing of the archive written.
    @Test func aTweetPostedMeanwhileAmongTheArchivesTimesMakesItTryAgain() async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let local = try env.makeStore()
        let other = try env.makeServices()
        let url = URL(fileURLWithPath: env.path("archive"))
        try ArchiveFixture.sixtyTweets().write(to: url)

        let once = MeanwhileStore(local, times: 1) {
            _ = try await other.tweets.uploadTweet(caption: "archive word meanwhile")
        }
        let services = try env.makeServices(store: once)
        let ada = try await env.registerUser("ada", in: services)
        _ = try await services.tweets.uploadTweet(caption: "native archive word here")
        let report = try await services.tweets.importArchive(try TwitterArchive.read(path: url.path))
        #expect(report.tweets == 60 && report.likes == 1)
        #expect(try await services.tweets.search("archive", limit: 100).count == 59 + 2)
        try await expectBucketsApartAndOpenNewest("archive", local)
        #expect(try await services.users.fetchStats(forUid: ada.id).tweets == 62)

        let busyEnv = try TestEnvironment(clock: TestClock(Self.midArchive))
        let busyLocal = try busyEnv.makeStore()
        let busyOther = try busyEnv.makeServices()
        let always = MeanwhileStore(busyLocal) {
            _ = try await busyOther.tweets.uploadTweet(caption: "archive word again")
        }
        let busy = try busyEnv.makeServices(store: always)
        let bob = try await busyEnv.registerUser("bob", in: busy)
        _ = try await busy.tweets.uploadTweet(caption: "native archive word here")
        await #expect(throws: ArchiveError.storeKeptChanging) {
            _ = try await busy.tweets.importArchive(try TwitterArchive.read(path: url.path))
        }
        #expect(try await busy.users.fetchStats(forUid: bob.id).tweets == 4, "the native post and three meanwhile")
        #expect(try await busy.tweets.fetchTweets(forUid: bob.id, limit: 100).count == 4)
        #expect(try await busy.tweets.search("archive", limit: 100).count == 4)
        #expect(try await busy.tweets.fetchLikedTweets(forUid: bob.id).isEmpty)
    }
}

extension TwitterArchiveImportTests {
    /// Another terminal switches this device to another account while an archive is imported:
    /// the tweets, and the account the summary names, stay those of the account that started it.
    @Test @MainActor func anAccountSwitchedToMeanwhileGetsNothing() async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let local = try env.makeStore()
        let other = try env.makeServices(store: local)
        let bob = try await env.registerUser("bob", in: other)
        let services = try env.makeServices(
            store: MeanwhileStore(local, times: 1) { try await other.auth.switchAccount(to: "bob") })
        let ada = try await env.registerUser("ada", in: services)
        let url = URL(fileURLWithPath: env.path("archive"))
        try ArchiveFixture.sixtyTweets().write(to: url)
        let model = ArchiveImportViewModel(services: services)
        try await model.read(path: url.path)
        try await model.importArchive()
        #expect(try await other.auth.currentUid() == bob.id, "the switch happened")
        #expect(model.user?.id == ada.id)
        #expect(model.report?.tweets == 60)
        #expect(try await services.users.fetchStats(forUid: ada.id).tweets == 60)
        #expect(try await services.users.fetchStats(forUid: bob.id).tweets == 0)
    }

    /// A tweet that answers itself, or a newer tweet, is no reply (as Twitter's never are): no
    /// import makes a reply its own ancestor.
    @Test func aReplyToItselfOrToANewerTweetIsNoReply() async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let services = try env.makeServices()
        try await env.registerUser("ada", in: services)
        var fixture = ArchiveFixture()
        fixture.tweets = ArchiveFixture.tweets(4)
        fixture.tweets[1].replyTo = fixture.tweets[1].id
        fixture.tweets[2].replyTo = fixture.tweets[3].id
        fixture.tweets[3].replyTo = fixture.tweets[0].id
        let url = URL(fileURLWithPath: env.path("archive"))
        try fixture.write(to: url)
        let report = try await services.tweets.importArchive(try TwitterArchive.read(path: url.path))
        #expect(report.tweets == 4 && report.replies == 1)
        let tweets = try await services.tweets.search("archived", limit: 10)
        let byCaption = Dictionary(uniqueKeysWithValues: tweets.map { ($0.caption, $0) })
        #expect(byCaption["archived tweet number 1"]?.replyToId == nil)
        #expect(byCaption["archived tweet number 1"]?.source?.inReplyTo == String(fixture.tweets[1].id))
        #expect(byCaption["archived tweet number 2"]?.replyToId == nil)
        #expect(byCaption["archived tweet number 3"]?.replyToId == byCaption["archived tweet number 0"]?.id)
        #expect(byCaption["archived tweet number 0"]?.replyCount == 1)
        #expect(byCaption["archived tweet number 1"]?.replyCount == 0)
    }
}
