import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// Protected accounts on every engine: a follow becomes a request the owner answers, and until
/// then the tweets reach no listing, search, thread, notification or action of anyone else.
struct ProtectedAccountTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// ada, protected, who posted "ada's secret #hush" and then a public-looking "ada on cats";
    /// bob and cy, who do not follow her; cy posted "cy on cats".
    private func makeServices(_ layout: StoreLayout) async throws -> (
        AppServices, ada: User, bob: User, cy: User, secret: Tweet
    ) {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        let bob = try await env.addUser("bob", to: services)
        let cy = try await env.addUser("cy", to: services)
        try await env.signIn(ada, in: services)
        #expect(try await services.users.setProtected(true))
        #expect(try await !services.users.setProtected(true), "protecting twice changes nothing")
        let secret = try await env.post("ada's secret #hush", as: ada, in: services)
        try await env.post("ada on cats", as: ada, in: services)
        try await env.post("cy on cats", as: cy, in: services)
        return (services, ada, bob, cy, secret)
    }

    private func captions(_ tweets: [Tweet]) -> [String] { tweets.map(\.caption) }

    @Test(arguments: StoreLayout.allCases)
    func aProtectedAccountsTweetsReachOnlyItsApprovedFollowers(_ layout: StoreLayout) async throws {
        let (services, ada, bob, _, secret) = try await makeServices(layout)
        let hidden = ProtectionError.protected(username: "ada")
        try await env.signIn(bob, in: services)
        #expect(captions(try await services.tweets.fetchTweets()) == ["cy on cats"])
        #expect(captions(try await services.tweets.search("cats")) == ["cy on cats"])
        #expect(try await services.tweets.search("#hush").isEmpty)
        await #expect(throws: hidden) { try await services.tweets.fetchTweet(withID: secret.id) }
        await #expect(throws: hidden) { try await services.tweets.fetchThread(id: secret.id) }
        await #expect(throws: hidden) { try await services.tweets.fetchTweets(forUid: ada.id) }
        await #expect(throws: hidden) { try await services.tweets.fetchReplies(forUid: ada.id) }
        await #expect(throws: hidden) { try await services.tweets.fetchLikedTweets(forUid: ada.id) }
        await #expect(throws: hidden) { try await services.tweets.likeTweet(id: secret.id) }
        await #expect(throws: hidden) { try await services.tweets.bookmark(id: secret.id) }
        await #expect(throws: hidden) { try await services.tweets.uploadTweet(caption: "hi", replyTo: secret.id) }
        await #expect(throws: ProtectionError.cannotShare(username: "ada")) {
            try await services.tweets.retweet(id: secret.id)
        }
        // The profile's header is still there, with the protection shown.
        let profile = try await services.users.fetchProfile(matching: "@ada")
        #expect(profile.user.isProtected && profile.status == .none && profile.stats.tweets == 2)

        // Signed out, nothing of hers either.
        _ = try await services.auth.signOut()
        #expect(captions(try await services.tweets.fetchTweets()) == ["cy on cats"])
        await #expect(throws: hidden) { try await services.tweets.fetchTweets(forUid: ada.id) }

        // She sees her own.
        try await env.signIn(ada, in: services)
        #expect(
            captions(try await services.tweets.fetchTweets(forUid: ada.id)) == ["ada on cats", "ada's secret #hush"])
        #expect(captions(try await services.tweets.search("cats")) == ["cy on cats", "ada on cats"])
    }

    @Test(arguments: StoreLayout.allCases)
    func aFollowBecomesARequestTheOwnerApproves(_ layout: StoreLayout) async throws {
        let (services, ada, bob, _, secret) = try await makeServices(layout)
        try await env.signIn(bob, in: services)
        #expect(try await services.users.follow(uid: ada.id) == FollowChange(before: .none, after: .requested))
        #expect(try await services.users.follow(uid: ada.id) == FollowChange(before: .requested, after: .requested))
        #expect(try await services.users.followStatus(of: ada.id) == .requested)
        #expect(try await services.users.fetchStats(forUid: ada.id).followers == 0, "a request is no follow")
        await #expect(throws: ProtectionError.protected(username: "ada")) {
            try await services.tweets.fetchTweet(withID: secret.id)
        }

        try await env.signIn(ada, in: services)
        let requests = try await services.users.followRequests()
        #expect(requests.map(\.uid) == [bob.id] && requests.first?.user?.username == "bob")
        let bell = try await services.notifications.fetchNotifications()
        #expect(bell.map(\.type) == [.request] && bell.first?.fromUid == bob.id)
        #expect(try await services.notifications.unreadCount() == 1)
        try await services.users.approveRequest(from: bob.id)
        await #expect(throws: ProtectionError.noRequest(bob.id)) {
            try await services.users.approveRequest(from: bob.id)
        }
        #expect(try await services.users.followRequests().isEmpty)
        #expect(
            try await services.notifications.fetchNotifications().isEmpty, "the request's notification is withdrawn")
        #expect(try await services.notifications.unreadCount() == 0)
        #expect(try await services.users.fetchStats(forUid: ada.id).followers == 1)

        try await env.signIn(bob, in: services)
        #expect(try await services.users.followStatus(of: ada.id) == .following)
        #expect(
            captions(try await services.tweets.fetchTweets()) == ["cy on cats", "ada on cats", "ada's secret #hush"])
        #expect(captions(try await services.tweets.fetchFollowingTweets()) == ["ada on cats", "ada's secret #hush"])
        #expect(captions(try await services.tweets.search("#hush")) == ["ada's secret #hush"])
        #expect(try await services.tweets.likeTweet(id: secret.id).changed)
        #expect(try await services.tweets.fetchThread(id: secret.id).tweet.id == secret.id)
        // Even an approved follower cannot share it.
        await #expect(throws: ProtectionError.cannotShare(username: "ada")) {
            try await services.tweets.retweet(id: secret.id)
        }
        await #expect(throws: ProtectionError.cannotShare(username: "ada")) {
            try await services.tweets.uploadTweet(caption: "look", quote: secret.id)
        }
        // Unfollowed, it is hidden again; the like stays bob's to take back.
        #expect(try await services.users.unfollow(uid: ada.id) == FollowChange(before: .following, after: .none))
        #expect(try await services.tweets.fetchLikedTweets(forUid: bob.id).isEmpty)
        #expect(try await services.tweets.unlikeTweet(id: secret.id).changed)
    }

    @Test(arguments: StoreLayout.allCases)
    func aRequestCanBeDeniedOrWithdrawnAndMakingTheAccountPublicApprovesTheRest(_ layout: StoreLayout) async throws {
        let (services, ada, bob, cy, _) = try await makeServices(layout)
        let dee = try await env.addUser("dee", to: services)
        for user in [bob, cy, dee] {
            try await env.signIn(user, in: services)
            try await services.users.follow(uid: ada.id)
        }
        // dee withdraws hers.
        #expect(try await services.users.unfollow(uid: ada.id) == FollowChange(before: .requested, after: .none))
        try await env.signIn(ada, in: services)
        #expect(Set(try await services.users.followRequests().map(\.uid)) == [bob.id, cy.id])
        try await services.users.denyRequest(from: bob.id)
        await #expect(throws: ProtectionError.noRequest(dee.id)) { try await services.users.denyRequest(from: dee.id) }
        #expect(try await services.users.followRequests().map(\.uid) == [cy.id])
        #expect(try await services.notifications.fetchNotifications().map(\.fromUid) == [cy.id])

        // Made public: cy's waiting request is approved; bob, denied, follows no one.
        #expect(try await services.users.setProtected(false))
        #expect(try await services.users.followRequests().isEmpty)
        #expect(try await services.users.fetchStats(forUid: ada.id).followers == 1)
        try await env.signIn(cy, in: services)
        #expect(try await services.users.followStatus(of: ada.id) == .following)
        try await env.signIn(bob, in: services)
        #expect(try await services.users.followStatus(of: ada.id) == .none)
        #expect(captions(try await services.tweets.search("cats")) == ["cy on cats", "ada on cats"])
        // Public now, a follow is a follow.
        #expect(try await services.users.follow(uid: ada.id) == FollowChange(before: .none, after: .following))
    }

    @Test(arguments: StoreLayout.allCases)
    func aProtectedAccountsHashtagsStayOutOfTrendsAndItsMentionsReachOnlyFollowers(_ layout: StoreLayout)
        async throws
    {
        let (services, ada, bob, cy, _) = try await makeServices(layout)
        try await env.signIn(bob, in: services)
        try await services.users.follow(uid: ada.id)
        try await env.signIn(ada, in: services)
        try await services.users.approveRequest(from: bob.id)
        try await env.post("#cats rule", as: cy, in: services)
        let shout = try await env.post("@bob @cy #cats #hush", as: ada, in: services)
        let trends = try await services.tweets.fetchTrends()
        #expect(trends.trends.map(\.hashtag) == ["#cats"] && trends.trends.first?.tweets == 1)
        // Deleting it takes nothing off the trends that never counted it.
        try await services.tweets.deleteTweet(id: shout.id)
        #expect(try await services.tweets.fetchTrends().trends.first?.tweets == 1)
        let again = try await env.post("@bob @cy hello", as: ada, in: services)
        try await env.signIn(bob, in: services)
        #expect(try await services.notifications.fetchNotifications().map(\.tweetId) == [again.id])
        try await env.signIn(cy, in: services)
        #expect(try await services.notifications.fetchNotifications().isEmpty, "cy does not follow ada")
        #expect(try await services.notifications.unreadCount() == 0)
    }

    @Test(arguments: StoreLayout.allCases)
    func whatItSharedBeforeIsHiddenWhenItIsProtectedAfter(_ layout: StoreLayout) async throws {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        let bob = try await env.addUser("bob", to: services)
        let cy = try await env.addUser("cy", to: services)
        let adas = try await env.post("ada in public", as: ada, in: services)
        let cys = try await env.post("cy in public", as: cy, in: services)
        let quote = try await env.post("bob quotes", as: bob, in: services, quote: adas.id)
        try await env.signIn(ada, in: services)
        try await services.tweets.retweet(id: cys.id)
        try await services.users.setProtected(true)

        try await env.signIn(bob, in: services)
        let rows = try await services.tweets.fetchTweets()
        #expect(captions(rows) == ["bob quotes", "cy in public"])
        #expect(rows.first?.quoted == .unavailable(id: adas.id))
        // Her retweet of cy's is hers to show only to her followers.
        #expect(try await services.tweets.fetchTweets(forUid: cy.id).allSatisfy { $0.retweetedBy == nil })
        #expect(try await services.tweets.fetchTweet(withID: quote.id).quoted == .unavailable(id: adas.id))

        // A blocked author's quoted tweet is unavailable too.
        let dee = try await env.addUser("dee", to: services)
        let dees = try await env.post("dee in public", as: dee, in: services)
        let other = try await env.post("cy quotes dee", as: cy, in: services, quote: dees.id)
        try await env.signIn(bob, in: services)
        try await services.safety.block(uid: dee.id)
        #expect(
            try await services.tweets.fetchTweets().first { $0.id == other.id }?.quoted == .unavailable(id: dees.id))
    }

    @Test(arguments: StoreLayout.allCases)
    func aBlockEndsRequestsBothWays(_ layout: StoreLayout) async throws {
        let (services, ada, bob, _, _) = try await makeServices(layout)
        try await env.signIn(bob, in: services)
        try await services.users.follow(uid: ada.id)
        try await env.signIn(ada, in: services)
        try await services.safety.block(uid: bob.id)
        #expect(try await services.users.followRequests().isEmpty)
        #expect(try await services.notifications.fetchNotifications().isEmpty)
        try await env.signIn(bob, in: services)
        await #expect(throws: SafetyError.blockedYou(username: "ada")) { try await services.users.follow(uid: ada.id) }
    }
}
