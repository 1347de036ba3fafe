import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

@MainActor
struct FeedViewModelTests {
    let env: TestEnvironment
    let services: AppServices
    let alice: User
    let bob: User

    /// Alice follows Bob; Carol posts too.
    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        alice = try await env.addUser("alice", to: services)
        bob = try await env.addUser("bob", to: services)
        let carol = try await env.addUser("carol", to: services)
        try await env.post("alice 1", as: alice, in: services)
        try await env.post("bob 1", as: bob, in: services)
        try await env.post("carol 1", as: carol, in: services)
        try await env.post("bob 2", as: bob, in: services)
        try await env.signIn(alice, in: services)
        try await services.users.follow(uid: bob.id)
    }

    @Test func theEveryoneFeedShowsAllTweetsNewestFirst() async throws {
        let model = FeedViewModel(services: services)
        try await model.fetchTweets()
        #expect(model.error == nil)
        #expect(model.tweets.map(\.caption) == ["bob 2", "carol 1", "bob 1", "alice 1"])
        #expect(model.tweets.allSatisfy { $0.user != nil })
    }

    @Test func theFollowingFeedShowsOnlyFollowedUsersAndYourOwn() async throws {
        let model = FeedViewModel(services: services, source: .following)
        try await model.fetchTweets()
        #expect(model.tweets.map(\.caption) == ["bob 2", "bob 1", "alice 1"])
    }

    @Test func theFeedPagesWithLimitAndBefore() async throws {
        let model = FeedViewModel(services: services)
        try await model.fetchTweets(limit: 2)
        #expect(model.tweets.map(\.caption) == ["bob 2", "carol 1"])
        try await model.fetchTweets(limit: 2, before: model.tweets.last?.id)
        #expect(model.tweets.map(\.caption) == ["bob 1", "alice 1"])
    }

    @Test func switchingTheSourceChangesWhatLoads() async throws {
        let model = FeedViewModel(services: services)
        model.source = .following
        try await model.fetchTweets()
        #expect(!model.tweets.map(\.caption).contains("carol 1"))
    }

    @Test func theFollowingFeedSignedOutSetsTheError() async throws {
        try await services.auth.signOut()
        let model = FeedViewModel(services: services, source: .following)
        await #expect(throws: (any Error).self) { try await model.fetchTweets() }
        #expect(model.error as? AuthError == .notSignedIn)
        #expect(model.tweets.isEmpty)
    }
}
