import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// Blocks and mutes on every engine: what a block ends and refuses, what it hides both ways, and
/// what a mute hides from the one who mutes and from no one else.
struct SafetyServiceTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// ada and bob, who follow each other; bob posted "bob's cats #cats", ada "ada's dogs" and a
    /// reply to bob; cy posted "cy on cats".
    private func makeServices(_ layout: StoreLayout) async throws -> (
        AppServices, ada: User, bob: User, cy: User, bobs: Tweet
    ) {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        let bob = try await env.addUser("bob", to: services)
        let cy = try await env.addUser("cy", to: services)
        let bobs = try await env.post("bob's cats #cats", as: bob, in: services)
        try await services.users.follow(uid: ada.id)
        try await env.post("ada's dogs", as: ada, in: services)
        try await services.users.follow(uid: bob.id)
        try await env.post("ada replies", as: ada, in: services, replyTo: bobs.id)
        try await env.post("cy on cats", as: cy, in: services)
        return (services, ada, bob, cy, bobs)
    }

    private func captions(_ tweets: [Tweet]) -> [String] { tweets.map(\.caption) }

    @Test(arguments: StoreLayout.allCases)
    func aBlockEndsFollowsBothWaysAndHidesEachFromTheOther(_ layout: StoreLayout) async throws {
        let (services, ada, bob, _, bobs) = try await makeServices(layout)
        try await env.signIn(ada, in: services)
        let adas = try #require(try await services.tweets.fetchTweets(forUid: ada.id).first)
        #expect(try await services.safety.block(uid: bob.id))
        #expect(try await !services.safety.block(uid: bob.id), "blocking again changes nothing")
        // Both follows and all four counters.
        #expect(try await !services.users.isFollowing(uid: bob.id))
        #expect(try await services.users.fetchStats(forUid: ada.id) == UserStats(following: 0, followers: 0, tweets: 2))
        #expect(try await services.users.fetchStats(forUid: bob.id) == UserStats(following: 0, followers: 0, tweets: 1))
        #expect(try await services.users.followingUids(of: bob.id).isEmpty)
        // ada sees nothing of bob's, anywhere.
        #expect(captions(try await services.tweets.fetchTweets()) == ["cy on cats", "ada replies", "ada's dogs"])
        #expect(try await services.tweets.search("cats").map(\.caption) == ["cy on cats"])
        #expect(try await services.notifications.fetchNotifications().allSatisfy { $0.fromUid != bob.id })
        await #expect(throws: SafetyError.youBlocked(username: "bob")) {
            try await services.users.fetchProfile(matching: "@bob")
        }
        await #expect(throws: SafetyError.youBlocked(username: "bob")) {
            try await services.tweets.fetchThread(id: bobs.id)
        }
        // bob sees nothing of ada's, and can reach her in no way.
        try await env.signIn(bob, in: services)
        #expect(captions(try await services.tweets.fetchTweets()) == ["cy on cats", "bob's cats #cats"])
        #expect(try await services.safety.viewerFilters().blockedBy[ada.id] != nil)
        #expect(try await services.tweets.fetchTweets(forUid: ada.id).isEmpty)
        let blocked = SafetyError.blockedYou(username: "ada")
        await #expect(throws: blocked) { try await services.users.follow(uid: ada.id) }
        await #expect(throws: blocked) { try await services.tweets.likeTweet(id: adas.id) }
        await #expect(throws: blocked) { try await services.tweets.retweet(id: adas.id) }
        await #expect(throws: blocked) { try await services.tweets.bookmark(id: adas.id) }
        await #expect(throws: blocked) { try await services.tweets.uploadTweet(caption: "hey", replyTo: adas.id) }
        await #expect(throws: blocked) { try await services.tweets.uploadTweet(caption: "look", quote: adas.id) }
        await #expect(throws: blocked) { try await services.users.fetchProfile(matching: "@ada") }
        // A mention posts, but does not notify her.
        _ = try await services.tweets.uploadTweet(caption: "hello @ada")
        try await env.signIn(ada, in: services)
        #expect(try await services.notifications.fetchNotifications().allSatisfy { $0.type != .mention })
        // Unblocking lets them reach each other again; the follows stay ended.
        #expect(try await services.safety.unblock(uid: bob.id))
        #expect(try await !services.safety.unblock(uid: bob.id))
        #expect(try await services.safety.viewerFilters().isEmpty)
        try await env.signIn(bob, in: services)
        #expect(try await services.safety.viewerFilters().isEmpty, "the blocked side's record goes too")
        #expect(try await services.tweets.likeTweet(id: adas.id).changed)
        #expect(try await !services.users.isFollowing(uid: ada.id))
    }

    @Test(arguments: StoreLayout.allCases)
    func aMuteHidesFromTheMuterOnlyAndEndsOnItsOwn(_ layout: StoreLayout) async throws {
        let (services, ada, bob, cy, _) = try await makeServices(layout)
        try await env.signIn(ada, in: services)
        #expect(try await services.safety.mute(.user(bob.id)))
        #expect(try await !services.safety.mute(.user(bob.id)))
        #expect(captions(try await services.tweets.fetchFollowingTweets()) == ["ada replies", "ada's dogs"])
        // A mute hides, and ends nothing: the follow stays, and bob's profile shows his tweets.
        #expect(try await services.users.isFollowing(uid: bob.id))
        #expect(captions(try await services.tweets.fetchTweets(forUid: bob.id)) == ["bob's cats #cats"])
        // Only ada's view changes.
        try await env.signIn(cy, in: services)
        #expect(try await services.tweets.search("cats").count == 2)
        // Words match as search does: "CATS" is the word cats, "#cats" only the hashtag.
        try await env.signIn(ada, in: services)
        #expect(try await services.safety.unmute(.user(bob.id)))
        #expect(try await services.safety.mute(.words("#CATS")))
        #expect(captions(try await services.tweets.fetchTweets()) == ["cy on cats", "ada replies", "ada's dogs"])
        #expect(try await services.safety.mute(.words("CATS")))
        #expect(captions(try await services.tweets.fetchTweets()) == ["ada replies", "ada's dogs"])
        #expect(try await services.tweets.search("on").isEmpty)
        #expect(try await services.safety.unmute(.words("cats")))
        #expect(try await services.safety.unmute(.words("#cats")))
        // A mute for a while ends by itself: one that ended in the past hides nothing.
        let ended: JSONObject = [
            "since": .string("2020-01-01T00:00:00.000Z"), "until": .string("2020-01-02T00:00:00.000Z"),
        ]
        try await services.store.setData(
            ["mutedUsers": .object([bob.id: .object(ended)])], at: ViewerFilters.path(of: ada.id))
        #expect(captions(try await services.tweets.fetchTweets()).contains("bob's cats #cats"))
        #expect(try await services.safety.mutes().accounts.isEmpty)
    }

    @Test(arguments: StoreLayout.allCases)
    func hiddenRowsAreReadPastSoAPageStaysFull(_ layout: StoreLayout) async throws {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        let bob = try await env.addUser("bob", to: services)
        for index in 0..<5 { try await env.post("ada \(index)", as: ada, in: services) }
        for index in 0..<30 { try await env.post("bob \(index)", as: bob, in: services) }
        try await env.signIn(ada, in: services)
        try await services.safety.mute(.user(bob.id))
        let page = try await services.tweets.fetchTweets(limit: 4)
        #expect(captions(page) == ["ada 4", "ada 3", "ada 2", "ada 1"])
        try await services.safety.unmute(.user(bob.id))
        try await services.safety.mute(.words("bob"))
        #expect(captions(try await services.tweets.fetchTweets(limit: 6)) == (0..<5).reversed().map { "ada \($0)" })
    }

    @Test(arguments: StoreLayout.allCases)
    func theUnreadCountLeavesOutWhatTheMutesHide(_ layout: StoreLayout) async throws {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        let bob = try await env.addUser("bob", to: services)
        let cy = try await env.addUser("cy", to: services)
        let adas = try await env.post("ada's", as: ada, in: services)
        try await env.signIn(bob, in: services)
        try await services.tweets.likeTweet(id: adas.id)
        try await env.post("@ada spoilers ahead", as: bob, in: services)
        try await env.post("@ada hello", as: cy, in: services)
        try await env.signIn(ada, in: services)
        #expect(try await services.notifications.unreadCount() == 3)
        try await services.safety.mute(.words("spoilers"))
        #expect(try await services.notifications.unreadCount() == 2, "the muted word's mention is not counted")
        try await services.safety.mute(.user(bob.id))
        #expect(try await services.notifications.unreadCount() == 1, "nor anything of a muted account")
        #expect(try await services.notifications.fetchNotifications().map(\.fromUid) == [cy.id])
        try await services.safety.unmute(.user(bob.id))
        try await services.safety.unmute(.words("spoilers"))
        #expect(try await services.notifications.unreadCount() == 3)
    }

    /// The badge counts from the documents what the listing decides from its join: a muted word in
    /// a reply or quote, a muted account, and a protected account the viewer no longer follows.
    @Test(arguments: StoreLayout.allCases)
    func theUnreadCountIsWhatTheUnreadListingShows(_ layout: StoreLayout) async throws {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        let bob = try await env.addUser("bob", to: services)
        let cy = try await env.addUser("cy", to: services)
        let dee = try await env.addUser("dee", to: services)
        try await env.signIn(cy, in: services)
        #expect(try await services.users.setProtected(true))
        try await env.signIn(ada, in: services)
        #expect(try await services.users.follow(uid: cy.id).after == .requested)
        let adas = try await env.post("ada's", as: ada, in: services)
        try await env.signIn(cy, in: services)
        try await services.users.approveRequest(from: ada.id)
        _ = try await services.tweets.uploadTweet(caption: "cy answers", replyTo: adas.id)
        try await env.signIn(bob, in: services)
        try await services.tweets.likeTweet(id: adas.id)
        _ = try await services.tweets.uploadTweet(caption: "spoilers inside", replyTo: adas.id)
        _ = try await services.tweets.uploadTweet(caption: "bob quotes", quote: adas.id)
        try await env.signIn(dee, in: services)
        _ = try await services.tweets.uploadTweet(caption: "SPOILERS quoted", quote: adas.id)
        _ = try await services.tweets.uploadTweet(caption: "dee answers", replyTo: adas.id)
        try await env.signIn(ada, in: services)
        let everything = try await services.notifications.fetchNotifications(limit: 50, unreadOnly: true)
        #expect(try await services.notifications.unreadCount() == everything.count)
        try await services.users.unfollow(uid: cy.id)
        try await services.safety.mute(.words("spoilers"))
        try await services.safety.mute(.user(bob.id))
        let shown = try await services.notifications.fetchNotifications(limit: 50, unreadOnly: true)
        #expect(shown.map(\.fromUid) == [dee.id], "dee's reply; not dee's muted quote, bob, or cy's protected reply")
        #expect(try await services.notifications.unreadCount() == shown.count)
        try await services.safety.unmute(.user(bob.id))
        let again = try await services.notifications.fetchNotifications(limit: 50, unreadOnly: true)
        #expect(again.count == 3, "bob's like and quote are back; his muted reply is not")
        #expect(try await services.notifications.unreadCount() == again.count)
    }

    @Test func badMutesAreRefusedAndChangeNothing() async throws {
        let services = try env.makeServices()
        let ada = try await env.addUser("ada", to: services)
        try await env.signIn(ada, in: services)
        await #expect(throws: SafetyError.cannotMuteSelf) { try await services.safety.mute(.user(ada.id)) }
        await #expect(throws: SafetyError.cannotBlockSelf) { try await services.safety.block(uid: ada.id) }
        await #expect(throws: SafetyError.mutedAuthorFilter) { try await services.safety.mute(.words("from:bob")) }
        await #expect(throws: UserError.notFound("nobody")) { try await services.safety.block(uid: "nobody") }
        #expect(try await services.safety.viewerFilters().isEmpty)
        #expect(try await services.store.getDocument(ViewerFilters.path(of: ada.id)) == nil)
    }
}
