import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

@MainActor
struct ProfileViewModelTests {
    let env: TestEnvironment
    let services: AppServices
    let alice: User
    let bob: User

    /// Bob posts a tweet and a reply and likes Alice's tweet; Alice is signed in.
    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        alice = try await env.addUser("alice", to: services)
        bob = try await env.addUser("bob", to: services)
        let hers = try await env.post("alice's tweet", as: alice, in: services)
        let his = try await env.post("bob's tweet", as: bob, in: services)
        try await env.post("bob's reply", as: bob, in: services, replyTo: hers.id)
        try await services.tweets.likeTweet(id: hers.id)
        try await services.tweets.likeTweet(id: his.id)
        try await env.signIn(alice, in: services)
    }

    @Test func yourOwnProfileOffersToEditIt() async throws {
        let model = ProfileViewModel(user: alice, services: services)
        try await model.load()
        #expect(model.error == nil)
        #expect(model.isCurrentUser)
        #expect(!model.isFollowed)
        #expect(model.actionButtonTitle == "Edit Profile")
    }

    @Test func anotherProfileOffersToFollowThenShowsFollowing() async throws {
        let model = ProfileViewModel(user: bob, services: services)
        try await model.load()
        #expect(!model.isCurrentUser)
        #expect(model.actionButtonTitle == "Follow")
        #expect(model.stats?.followers == 0)

        try await model.follow()
        #expect(model.error == nil)
        #expect(model.actionButtonTitle == "Following")
        #expect(model.stats?.followers == 1)

        let reloaded = ProfileViewModel(user: bob, services: services)
        try await reloaded.load()
        #expect(reloaded.actionButtonTitle == "Following")

        try await model.unfollow()
        #expect(model.actionButtonTitle == "Follow")
        #expect(model.stats?.followers == 0)
    }

    @Test func statsCountFollowsAndTweets() async throws {
        try await services.users.follow(uid: bob.id)
        let model = ProfileViewModel(user: bob, services: services)
        try await model.load()
        #expect(model.stats == UserStats(following: 0, followers: 1, tweets: 2))
    }

    @Test(arguments: [
        (TweetFilter.tweets, ["bob's tweet"]), (.replies, ["bob's reply"]), (.likes, ["bob's tweet", "alice's tweet"]),
    ])
    func eachTabShowsItsTweets(_ filter: TweetFilter, _ captions: [String]) async throws {
        let model = ProfileViewModel(user: bob, services: services)
        model.selectedFilter = filter
        try await model.load()
        #expect(model.error == nil)
        #expect(model.tweets.map(\.caption) == captions)
    }

    @Test(arguments: ["@bob", "@BOB", "bob"])
    func aReferenceResolvesToTheUser(_ reference: String) async throws {
        let model = ProfileViewModel(reference: reference, services: services)
        #expect(model.user == nil)
        try await model.load()
        #expect(model.error == nil)
        #expect(model.user == bob.asSeenByOthers)
        #expect(model.tweets.map(\.caption) == ["bob's tweet"])
    }

    @Test func aUidReferenceResolvesToTheUser() async throws {
        let model = ProfileViewModel(reference: bob.id, services: services)
        try await model.load()
        #expect(model.user == bob.asSeenByOthers)
    }

    @Test func noReferenceMeansTheSignedInUser() async throws {
        let model = ProfileViewModel(reference: nil, services: services)
        try await model.load()
        #expect(model.user == alice)
        #expect(model.actionButtonTitle == "Edit Profile")
        try await services.auth.signOutAll()
        let signedOut = ProfileViewModel(reference: nil, services: services)
        await #expect(throws: (any Error).self) { try await signedOut.load() }
        #expect(signedOut.error as? AuthError == .notSignedIn)
    }

    @Test func anUnknownReferenceSetsTheError() async {
        let model = ProfileViewModel(reference: "@nobody", services: services)
        await #expect(throws: (any Error).self) { try await model.load() }
        #expect(model.error as? UserError == .notFound("@nobody"))
        #expect(model.user == nil)
        #expect(model.stats == nil)
        #expect(model.tweets.isEmpty)
    }

    @Test func followingYourselfSetsTheError() async {
        let model = ProfileViewModel(user: alice, services: services)
        await #expect(throws: (any Error).self) { try await model.follow() }
        #expect(model.error as? UserError == .cannotFollowSelf)
        #expect(!model.isFollowed)
    }
}
