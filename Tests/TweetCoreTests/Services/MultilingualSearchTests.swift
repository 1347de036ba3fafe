import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TwitterText

/// Search in Japanese, Chinese and Korean on every engine: one character finds the tweets that hold
/// it, and a Korean word finds itself with any particle.
struct MultilingualSearchTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    static let captions = [
        "猫が好きです", "我的猫很可爱", "明日東京に行きます", "고양이를 좋아해요", "고양이가 귀여워요", "우리 고양이",
        "고양시에 살아요", "학교에서는 조용히",
    ]

    /// A query and the captions it finds, newest first.
    static let searches: [(String, [String])] = [
        ("猫", ["我的猫很可爱", "猫が好きです"]), ("好", ["猫が好きです"]), ("京", ["明日東京に行きます"]), ("犬", []),
        ("東京", ["明日東京に行きます"]), ("고양이", ["우리 고양이", "고양이가 귀여워요", "고양이를 좋아해요"]),
        ("고양이를", ["우리 고양이", "고양이가 귀여워요", "고양이를 좋아해요"]), ("고양이 좋아해요", ["고양이를 좋아해요"]),
        ("학교", ["학교에서는 조용히"]), ("학교에서", ["학교에서는 조용히"]), ("from:bob 猫", ["我的猫很可爱"]),
    ]

    /// Services over a store of `layout` where ada and bob posted ``captions`` in turn, ada first.
    private func makeServices(_ layout: StoreLayout) async throws -> (AppServices, User, [Tweet]) {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        let bob = try await env.addUser("bob", to: services)
        var posted: [Tweet] = []
        for (index, caption) in Self.captions.enumerated() {
            posted.append(try await env.post(caption, as: index % 2 == 0 ? ada : bob, in: services))
        }
        return (services, ada, posted)
    }

    @Test(arguments: StoreLayout.allCases)
    func oneCharacterAndKoreanWordsWithParticlesFindTheirTweets(_ layout: StoreLayout) async throws {
        let (services, _, _) = try await makeServices(layout)
        for (query, expected) in Self.searches {
            #expect(try await services.tweets.search(query).map(\.caption) == expected, "\(query)")
        }
        for term in ["猫", "고양", "고양이"] { try await expectBucketsApartAndOpenNewest(term, services.store) }
    }

    @Test(arguments: StoreLayout.allCases)
    func deletingACJKTweetTakesItOutOfEveryCharactersTerm(_ layout: StoreLayout) async throws {
        let (services, ada, posted) = try await makeServices(layout)
        try await env.signIn(ada, in: services)
        try await services.tweets.deleteTweet(id: posted[0].id)
        #expect(try await services.tweets.search("猫").map(\.caption) == ["我的猫很可爱"])
        #expect(try await services.tweets.search("好").isEmpty)
        let terms = try await services.store.collection(SearchIndex.terms).query.getDocuments().map(\.documentID)
        #expect(!terms.contains("好") && !terms.contains("が") && !terms.contains("猫が") && terms.contains("猫"))
    }

    /// A tweet of 140 CJK characters, the most one can hold, is found by its last character and
    /// leaves no term behind when deleted: every term is written and removed in its transaction.
    @Test(arguments: StoreLayout.allCases)
    func aFullLengthCJKTweetIsFoundByItsLastCharacterAndLeavesNoTerm(_ layout: StoreLayout) async throws {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        let caption = String((0..<140).map { Character(UnicodeScalar(0x4E00 + $0 * 3)!) })
        let tweet = try await env.post(caption, as: ada, in: services)
        let last = String(caption.suffix(1))
        #expect(try await services.tweets.search(last).map(\.id) == [tweet.id])
        try await services.tweets.deleteTweet(id: tweet.id)
        #expect(try await services.tweets.search(last).isEmpty)
        #expect(try await services.store.collection(SearchIndex.terms).query.getDocuments().isEmpty)
    }
}
