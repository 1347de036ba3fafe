import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// Search and trends, served by the index and counters the posting transaction keeps.
struct SearchServiceTests {
    let env: TestEnvironment
    let services: AppServices
    let ada: User
    let bob: User

    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        ada = try await env.addUser("ada", to: services)
        bob = try await env.addUser("bob", to: services)
    }

    private func search(_ text: String, limit: Int = 20, before: String? = nil) async throws -> [String] {
        try await services.tweets.search(text, limit: limit, before: before).map(\.caption)
    }

    @Test func wordsTagsMentionsAndAuthorsFindTheirTweetsNewestFirst() async throws {
        _ = try await env.post("Café au lait with @bob #Coffee", as: ada, in: services)
        _ = try await env.post("明日東京に行きます", as: ada, in: services)
        _ = try await env.post("plain cafe talk #coffee", as: bob, in: services)
        _ = try await env.post("cafeteria is not a cafe word match", as: bob, in: services)
        #expect(
            try await search("cafe") == [
                "cafeteria is not a cafe word match", "plain cafe talk #coffee", "Café au lait with @bob #Coffee",
            ])
        #expect(try await search("CAFÉ talk") == ["plain cafe talk #coffee"])
        #expect(try await search("#COFFEE") == ["plain cafe talk #coffee", "Café au lait with @bob #Coffee"])
        #expect(try await search("@bob") == ["Café au lait with @bob #Coffee"])
        #expect(try await search("from:ada cafe") == ["Café au lait with @bob #Coffee"])
        #expect(try await search("from:ada") == ["明日東京に行きます", "Café au lait with @bob #Coffee"])
        #expect(try await search("東京") == ["明日東京に行きます"])
        #expect(try await search("cafet").isEmpty, "whole words only")
        await #expect(throws: UserError.notFound("@nobody")) { try await search("from:nobody") }
    }

    @Test func aBucketWhoseFirstTweetIsDeletedKeepsItsNameAsItsStart() async throws {
        let first = try await env.post("first about rivers", as: bob, in: services)
        _ = try await env.post("second about rivers", as: ada, in: services)
        try await env.signIn(bob, in: services)
        try await services.tweets.deleteTweet(id: first.id)
        _ = try await env.post("third about rivers", as: ada, in: services)
        let bucket = try await services.store.getDocument(
            DocumentPath(collection: SearchIndex.bucketsCollection("rivers"), documentID: first.id))
        #expect(bucket?.data["start"] == .string(first.id))
        let problems = try await StoreAudit(store: services.store).check()
        #expect(!problems.contains { "\($0)".contains("rivers") }, "\(problems)")
        #expect(try await search("rivers") == ["third about rivers", "second about rivers"])
    }

    @Test func pagesFollowTheCursorAcrossTermsThatMustAllMatch() async throws {
        for number in 0..<7 {
            _ = try await env.post("common \(number % 2 == 0 ? "rare" : "other") \(number)", as: ada, in: services)
        }
        let all = try await search("common rare")
        #expect(all == ["common rare 6", "common rare 4", "common rare 2", "common rare 0"])
        let tweets = try await services.tweets.search("common rare", limit: 2)
        let next = try await search("common rare", limit: 2, before: tweets.last?.id)
        #expect(next == ["common rare 2", "common rare 0"])
    }

    @Test func aTermOverManyBucketsReadsNewestFirstAcrossPagesAndDeletions() async throws {
        var posted: [Tweet] = []
        for number in 0..<(SearchIndex.bucketSize * 2 + 5) {
            posted.append(try await env.post("bucketed \(number)", as: ada, in: services))
        }
        try await env.signIn(ada, in: services)
        for index in [3, SearchIndex.bucketSize, posted.count - 1] {
            try await services.tweets.deleteTweet(id: posted[index].id)
        }
        let expected = posted.enumerated().filter {
            ![3, SearchIndex.bucketSize, posted.count - 1].contains($0.offset)
        }
        .map(\.element.caption).reversed()
        #expect(try await search("bucketed", limit: 100) == Array(expected))
        var paged: [String] = []
        var before: String?
        repeat {
            let page = try await services.tweets.search("bucketed", limit: 7, before: before)
            paged += page.map(\.caption)
            before = page.count == 7 ? page.last?.id : nil
        } while before != nil
        #expect(paged == Array(expected))
        let term = try await services.store.getDocument(SearchIndex.termPath("bucketed"))
        #expect(term?.data["tweets"]?.integerValue == Int64(expected.count))
    }

    /// The first page of a term's buckets is sized by the open bucket's size its document gives:
    /// whatever that size says, true or not, a search finds the same tweets.
    @Test func theOpenBucketsSizeDecidesHowManyBucketsAreReadNeverWhatIsFound() async throws {
        var posted: [String] = []
        for number in 0..<(SearchIndex.bucketSize * 2 + 5) {
            posted.append(try await env.post("sized \(number)", as: ada, in: services).caption)
        }
        let path = SearchIndex.termPath("sized")
        let term = try #require(try await services.store.getDocument(path))
        #expect(term.data["openSize"]?.integerValue == 5)
        for size: JSONValue in [
            .integer(5), .integer(0), .integer(1), .integer(10_000), .integer(-3), .integer(.max), .string("x"),
        ] {
            var fields = term.data
            fields["openSize"] = size
            try await services.store.setData(fields, at: path)
            for limit in [1, 4, 5, 6, 20, 100] {
                #expect(
                    try await search("sized", limit: limit) == Array(posted.reversed().prefix(limit)),
                    "\(size), \(limit)")
            }
        }
    }

    @Test func deletingATweetTakesItOutOfSearchAndTrends() async throws {
        let tweet = try await env.post("ephemeral #Gone", as: ada, in: services)
        _ = try await env.post("stays #Kept", as: ada, in: services)
        #expect(try await search("ephemeral") == ["ephemeral #Gone"])
        #expect(try await services.tweets.fetchTrends(now: env.clock.now).trends.map(\.hashtag).contains("#Gone"))
        try await env.signIn(ada, in: services)
        try await services.tweets.deleteTweet(id: tweet.id)
        #expect(try await search("ephemeral").isEmpty)
        #expect(try await search("#gone").isEmpty)
        let trends = try await services.tweets.fetchTrends(now: env.clock.now).trends
        #expect(trends == [Trend(hashtag: "#Kept", tweets: 1)])
        let terms = try await services.store.collection(SearchIndex.terms).query.getDocuments().map(\.documentID)
        #expect(!terms.contains("ephemeral"), "a term no tweet has is gone")
    }

    @Test func trendsCountTheWindowsHashtagsMostUsedFirst() async throws {
        _ = try await env.post("one #Swift", as: ada, in: services)
        _ = try await env.post("two #swift #Linux", as: bob, in: services)
        env.clock.advance(by: 30 * 3600)
        _ = try await env.post("later #Linux", as: bob, in: services)
        let day = try await services.tweets.fetchTrends(hours: 24, now: env.clock.now)
        #expect(day.trends == [Trend(hashtag: "#Linux", tweets: 1)])
        #expect(!day.endsAtNewestHashtag)
        let twoDays = try await services.tweets.fetchTrends(hours: 48, now: env.clock.now)
        #expect(twoDays.trends == [Trend(hashtag: "#Linux", tweets: 2), Trend(hashtag: "#Swift", tweets: 2)])
        // A quiet store: the window ends at its newest hashtag's hour, and says so.
        let quiet = try await services.tweets.fetchTrends(hours: 1, now: env.clock.now.addingTimeInterval(86_400))
        #expect(quiet.endsAtNewestHashtag)
        #expect(quiet.trends == [Trend(hashtag: "#Linux", tweets: 1)])
    }

    @Test func aWindowWithTweetsButNoHashtagsEndsAtTheNewestHourThatHasSome() async throws {
        let empty = try await services.tweets.fetchTrends(now: env.clock.now)
        #expect(empty.trends.isEmpty && !empty.endsAtNewestHashtag)
        _ = try await env.post("tagged #Swift", as: ada, in: services)
        env.clock.advance(by: 30 * 3600)
        _ = try await env.post("nothing tagged since", as: bob, in: services)
        let trends = try await services.tweets.fetchTrends(hours: 24, now: env.clock.now)
        #expect(trends.endsAtNewestHashtag)
        #expect(trends.trends == [Trend(hashtag: "#Swift", tweets: 1)])
        #expect(SearchIndex.hour(trends.end) == SearchIndex.hour(env.clock.now.addingTimeInterval(-30 * 3600)))
    }

    @Test func anHoursCountsLiveInOneDocumentAndADamagedOneIsReadForWhatIsSound() async throws {
        _ = try await env.post("one #Swift #swift", as: ada, in: services)
        _ = try await env.post("two #SWIFT #Linux", as: bob, in: services)
        let path = SearchIndex.trendPath(SearchIndex.hour(env.clock.now))
        let hour = try #require(try await services.store.getDocument(path))
        // One tweet counts a tag once however often it repeats it; the first spelling is kept.
        #expect(
            hour.data["tags"]
                == .object([
                    "swift": .array([.string("Swift"), .integer(2)]), "linux": .array([.string("Linux"), .integer(1)]),
                ]))
        try await services.store.setData(
            [
                "tags": .object([
                    "swift": .array([.string("Swift"), .integer(2)]), "bad": .string("x"),
                    "negative": .array([.string("Neg"), .integer(-5)]), "short": .array([.string("S")]),
                    "huge": .array([.string("Huge"), .integer(.max)]),
                ])
            ], at: path)
        let trends = try await services.tweets.fetchTrends(now: env.clock.now).trends
        #expect(trends == [Trend(hashtag: "#Huge", tweets: .max), Trend(hashtag: "#Swift", tweets: 2)])
        // Posting onto the damaged document keeps the sound counts and drops the rest.
        _ = try await env.post("three #huge #swift", as: ada, in: services)
        let after = try await services.tweets.fetchTrends(now: env.clock.now).trends
        #expect(after == [Trend(hashtag: "#Huge", tweets: .max), Trend(hashtag: "#Swift", tweets: 3)])
    }
}
