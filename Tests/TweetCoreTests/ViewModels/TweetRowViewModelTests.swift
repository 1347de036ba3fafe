import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

@MainActor
struct TweetRowViewModelTests {
    let env: TestEnvironment
    let services: AppServices
    let alice: User
    let bob: User
    let tweet: Tweet

    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        alice = try await env.addUser("alice", to: services)
        bob = try await env.addUser("bob", to: services)
        tweet = try await env.post("row", as: alice, in: services)
    }

    @Test func likeAndUnlikeUpdateTheTweet() async throws {
        let model = TweetRowViewModel(tweetID: tweet.id, services: services)
        #expect(model.tweet == nil)
        try await model.likeTweet()
        #expect(model.error == nil)
        #expect(model.tweet?.likes == 1)
        #expect(model.tweet?.didLike == true)
        try await model.likeTweet()
        #expect(model.tweet?.likes == 1)
        try await model.unlikeTweet()
        #expect(model.tweet?.likes == 0)
        #expect(model.tweet?.didLike == false)
    }

    @Test func deletingYourTweetClearsIt() async throws {
        let model = TweetRowViewModel(tweetID: tweet.id, services: services)
        try await model.likeTweet()
        try await model.deleteTweet()
        #expect(model.error == nil)
        #expect(model.tweet == nil)
        await #expect(throws: TweetError.notFound(tweet.id)) { try await services.tweets.fetchTweet(withID: tweet.id) }
    }

    @Test func deletingSomeoneElsesTweetSetsTheError() async throws {
        try await env.signIn(bob, in: services)
        let model = TweetRowViewModel(tweetID: tweet.id, services: services)
        try await model.likeTweet()
        await #expect(throws: TweetError.notOwner(tweet.id)) { try await model.deleteTweet() }
        #expect(model.error as? TweetError == .notOwner(tweet.id))
        #expect(model.tweet?.likes == 1)
    }

    @Test func likingAMissingTweetSetsTheError() async {
        let model = TweetRowViewModel(tweetID: "missing", services: services)
        await #expect(throws: (any Error).self) { try await model.likeTweet() }
        #expect(model.error as? TweetError == .notFound("missing"))
        #expect(model.tweet == nil)
    }
}
