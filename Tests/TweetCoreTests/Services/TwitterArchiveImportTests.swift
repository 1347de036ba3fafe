import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TwitterArchive

/// The import through the services, on every engine.
struct TwitterArchiveImportTests {
    /// Mid-archive: a tweet posted here sits among the archived ones in time.
    static let midArchive = Date(timeIntervalSince1970: 1_691_856_637 + 30 * 60 + 5)

    /// Every layout in one transaction, and the local journal in transactions of 7 tweets, so
    /// that replies, search buckets and hours span transactions.
    @Test(arguments: StoreLayout.allCases.map { ($0, TweetService.archiveBatch) } + [(.journal, 7), (.mixed, 7)])
    func tweetsRepliesLikesSearchAndCountsAreAsIfPostedThen(layout: StoreLayout, batchSize: Int) async throws {
        let env = try TestEnvironment(clock: TestClock(Self.midArchive))
        let services = try env.makeServices(layout)
        let ada = try await env.registerUser("ada", in: services)
        let native = try await services.tweets.uploadTweet(caption: "native archive word here")
        let url = URL(fileURLWithPath: env.path("archive"))
        try ArchiveFixture.sixtyTweets().write(to: url)
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
        try await expectBucketsApartAndOpenNewest("archive", services.store)
        try await expectBucketsApartAndOpenNewest("word", services.store)
        // A post after the import (and after the archive's last tweet) still comes first.
        env.clock.set(Self.midArchive.addingTimeInterval(3600))
        let later = try await services.tweets.uploadTweet(caption: "archive word afterwards")
        #expect(try await services.tweets.search("archive", limit: 1).map(\.id) == [later.id])
        try await expectBucketsApartAndOpenNewest("archive", services.store)
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
        try await expectBucketsApartAndOpenNewest("ordered", services.store)
        try await expectBucketsApartAndOpenNewest("word", services.store)
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
