import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// A page costs a fixed number of store reads, whatever its size: authors and likes are joined with
/// one batched read each, never one read per tweet (the course's N+1).
struct TweetServiceReadCostTests {
    /// The pages a profile or the feed shows.
    enum Page: CaseIterable, Sendable {
        case everyone, following, liked, everyoneAfterACursor
    }

    let env: TestEnvironment
    let counting: CountingDocumentStore
    let services: AppServices
    let viewer: User

    init() async throws {
        env = try TestEnvironment()
        counting = CountingDocumentStore(try env.makeStore())
        services = try env.makeServices(store: counting)
        viewer = try await env.addUser("viewer", to: services)
        var authors: [User] = []
        for index in 0..<26 { authors.append(try await env.addUser("author\(index)", to: services)) }
        var posted: [Tweet] = []
        for author in authors {
            posted.append(try await env.post("hello from \(author.username)", as: author, in: services))
        }
        try await env.signIn(viewer, in: services)
        for author in authors { try await services.users.follow(uid: author.id) }
        for tweet in posted where !tweet.caption.hasSuffix("3") { try await services.tweets.likeTweet(id: tweet.id) }
    }

    private func load(_ page: Page, limit: Int) async throws -> [Tweet] {
        switch page {
        case .everyone: return try await services.tweets.fetchTweets(limit: limit)
        case .following: return try await services.tweets.fetchFollowingTweets(limit: limit)
        case .liked: return try await services.tweets.fetchLikedTweets(forUid: viewer.id, limit: limit)
        case .everyoneAfterACursor:
            let first = try await services.tweets.fetchTweets(limit: 1)
            counting.reset()
            return try await services.tweets.fetchTweets(limit: limit, before: first.last?.id)
        }
    }

    /// The reads one page of `limit` costs, and the page.
    private func reads(_ page: Page, limit: Int) async throws -> (CountingDocumentStore.Counts, [Tweet]) {
        counting.reset()
        let tweets = try await load(page, limit: limit)
        return (counting.counts, tweets)
    }

    @Test(arguments: Page.allCases)
    func aPageOfTwentyCostsAsManyReadsAsAPageOfFive(_ page: Page) async throws {
        // The first listing after the session check takes the filters it read; the pages compared do not.
        _ = try await load(page, limit: 1)
        let (small, five) = try await reads(page, limit: 5)
        let (large, twenty) = try await reads(page, limit: 20)
        #expect(five.count == 5)
        #expect(twenty.count == 20)
        #expect(large == small)
        // The page's query, then one batch each for authors, likes and the viewer's retweets; the
        // following feed adds whom the viewer follows and the retweets of them.
        #expect(large.reads <= (page == .following ? 6 : 5), "\(large)")
        #expect(large.getDocument <= 1, "one read at most, for a cursor")
    }

    @Test(arguments: Page.allCases)
    func everyTweetOfAPageHasItsAuthorAndLikeState(_ page: Page) async throws {
        let (_, tweets) = try await reads(page, limit: 20)
        #expect(Set(tweets.map(\.uid)).count == 20, "twenty different authors")
        for tweet in tweets {
            #expect(tweet.user?.id == tweet.uid)
            #expect(tweet.caption == "hello from \(tweet.user?.username ?? "?")")
            #expect(tweet.didLike == !tweet.caption.hasSuffix("3"))
        }
    }

    /// The session check reads the viewer's blocks and mutes with the session, so the first
    /// listing after it reads nothing more for them.
    /// A filter hiding every other row costs one read of rows and one join, not one of each per
    /// half page: a filtered listing reads ahead of what it expects to keep.
    @Test(arguments: [Page.everyone, .following])
    func aFilterHidingHalfTheRowsCostsOneReadOfRowsAndOneJoin(_ page: Page) async throws {
        for index in stride(from: 1, to: 26, by: 2) { try await services.safety.mute(.words("author\(index)")) }
        _ = try await load(page, limit: 1)  // a listing before the counted one, as a command's first
        let (counts, tweets) = try await reads(page, limit: 10)
        #expect(tweets.count == 10)
        #expect(tweets.allSatisfy { ($0.user.map { Int($0.username.dropFirst(6)) ?? 1 } ?? 1) % 2 == 0 })
        #expect(counts.runQuery == 1, "\(counts)")
        #expect(counts.getDocuments <= (page == .following ? 3 : 2), "the filters, then one join: \(counts)")
    }

    @Test func listingsOfTheMomentUseTheFiltersTheSessionCheckRead() async throws {
        try await env.signIn(viewer, in: services)
        counting.reset()
        _ = try await services.auth.currentUid()
        #expect(counting.counts.getDocuments == 1 && counting.counts.getDocument == 0, "\(counting.counts)")
        counting.reset()
        _ = try await services.tweets.fetchTweets(limit: 5)
        #expect(counting.counts.getDocuments == 1 && counting.counts.runQuery == 1, "\(counting.counts)")
        counting.reset()
        _ = try await services.tweets.fetchTweets(limit: 5)
        #expect(counting.counts.getDocuments == 1, "the same command's next listing: \(counting.counts)")
        try await Task.sleep(for: services.auth.checkedMoment)
        counting.reset()
        _ = try await services.tweets.fetchTweets(limit: 5)
        #expect(counting.counts.getDocuments == 2, "a later listing reads them afresh: \(counting.counts)")
    }

    @Test func aPageReadByNobodySignedInCostsNoMore() async throws {
        try await services.auth.signOutAll()
        let (small, _) = try await reads(.everyone, limit: 5)
        let (large, tweets) = try await reads(.everyone, limit: 20)
        #expect(large == small)
        #expect(tweets.allSatisfy { $0.user != nil && $0.didLike == nil })
    }

    @Test func aUsersTabCostsTheSameForAnyPageSize() async throws {
        let author = try await env.addUser("prolific", to: services)
        for index in 0..<20 { try await env.post("post \(index)", as: author, in: services) }
        try await env.signIn(viewer, in: services)
        _ = try await services.auth.currentUid()  // The session is checked once per process.
        // The first listing after the check takes the filters it read; the pages compared do not.
        _ = try await services.tweets.fetchTweets(forUid: author.id, limit: 1)
        counting.reset()
        _ = try await services.tweets.fetchTweets(forUid: author.id, limit: 5)
        let small = counting.counts
        counting.reset()
        let page = try await services.tweets.fetchTweets(forUid: author.id, limit: 20)
        #expect(page.count == 20)
        #expect(counting.counts == small)
    }
}
