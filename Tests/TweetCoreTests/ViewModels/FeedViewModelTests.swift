import Foundation
import Observation
import Testing
import TweetTestSupport

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

    /// The view models keep what a view shows in one observed value: reading any of its
    /// properties in a tracking scope is told of a change to it, as with a property of its own.
    @Test func readingAPropertyObservesTheChangesAnActionMakes() async throws {
        let model = FeedViewModel(services: services)
        let changed = Changes()
        withObservationTracking {
            _ = model.tweets
        } onChange: {
            changed.add("tweets")
        }
        withObservationTracking {
            _ = model.unreadNotifications
        } onChange: {
            changed.add("unread")
        }
        withObservationTracking {
            _ = model.error
        } onChange: {
            changed.add("error")
        }
        #expect(changed.names.isEmpty)
        try await model.fetchTweets()
        #expect(changed.names.sorted() == ["error", "tweets", "unread"])
        let profile = ProfileViewModel(reference: "@bob", services: services)
        withObservationTracking {
            _ = profile.stats
        } onChange: {
            changed.add("stats")
        }
        try await profile.load()
        #expect(changed.names.contains("stats") && profile.stats != nil)
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
        try await services.auth.signOutAll()
        let model = FeedViewModel(services: services, source: .following)
        await #expect(throws: (any Error).self) { try await model.fetchTweets() }
        #expect(model.error as? AuthError == .notSignedIn)
        #expect(model.tweets.isEmpty)
    }
}

/// Names recorded by observation callbacks, which may run on any thread.
private final class Changes: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    func add(_ name: String) {
        lock.lock()
        recorded.append(name)
        lock.unlock()
    }

    var names: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}
