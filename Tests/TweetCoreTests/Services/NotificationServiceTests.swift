import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// The bell: each action notifies the one it concerns, in the same transaction; undoing it withdraws
/// the notification; nobody hears of their own actions; the marker counts what is unread.
struct NotificationServiceTests {
    let env: TestEnvironment
    let services: AppServices
    let ada: User
    let bob: User
    let cy: User

    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        ada = try await env.addUser("ada", to: services)
        bob = try await env.addUser("bob", to: services)
        cy = try await env.addUser("cy", to: services)
    }

    private var tweets: TweetService { services.tweets }
    private var bell: NotificationService { services.notifications }

    private func signIn(_ user: User) async throws { try await env.signIn(user, in: services) }

    /// `user`'s notifications as (type, from, tweet) triples, newest first, without moving the marker.
    private func list(_ user: User) async throws -> [String] {
        try await signIn(user)
        return try await bell.fetchNotifications(limit: 50).map {
            "\($0.type.rawValue) \($0.from?.username ?? "?") \($0.tweet?.caption ?? "-")"
        }
    }

    @Test func everyKindReachesTheOneItConcerns() async throws {
        let tweet = try await env.post("hello", as: ada, in: services)
        try await signIn(bob)
        _ = try await services.users.follow(uid: ada.id)
        _ = try await tweets.likeTweet(id: tweet.id)
        try await tweets.retweet(id: tweet.id)
        _ = try await tweets.uploadTweet(caption: "a reply", replyTo: tweet.id)
        _ = try await tweets.uploadTweet(caption: "a quote", quote: tweet.id)
        _ = try await tweets.uploadTweet(caption: "hey @ADA and @cy and @nobody")
        #expect(
            try await list(ada) == [
                "mention bob hey @ADA and @cy and @nobody", "quote bob a quote", "reply bob a reply",
                "retweet bob hello", "like bob hello", "follow bob -",
            ])
        #expect(try await list(cy) == ["mention bob hey @ADA and @cy and @nobody"])
        #expect(try await list(bob).isEmpty)
    }

    @Test func nobodyIsNotifiedOfTheirOwnActionsAndAReplyThatMentionsIsOneNotification() async throws {
        let tweet = try await env.post("mine", as: ada, in: services)
        try await signIn(ada)
        _ = try await tweets.likeTweet(id: tweet.id)
        try await tweets.retweet(id: tweet.id)
        _ = try await tweets.uploadTweet(caption: "me again @ada", replyTo: tweet.id)
        #expect(try await list(ada).isEmpty)
        try await signIn(bob)
        _ = try await tweets.uploadTweet(caption: "@ada replying", replyTo: tweet.id)
        #expect(try await list(ada) == ["reply bob @ada replying"])
    }

    @Test func undoingAnActionWithdrawsItsNotificationAndTheUnreadCount() async throws {
        let tweet = try await env.post("hello", as: ada, in: services)
        try await signIn(bob)
        _ = try await services.users.follow(uid: ada.id)
        _ = try await tweets.likeTweet(id: tweet.id)
        try await tweets.retweet(id: tweet.id)
        let reply = try await tweets.uploadTweet(caption: "reply @ada @cy", replyTo: tweet.id)
        try await signIn(ada)
        #expect(try await bell.unreadCount() == 4)
        try await signIn(bob)
        _ = try await services.users.unfollow(uid: ada.id)
        _ = try await tweets.unlikeTweet(id: tweet.id)
        try await tweets.unretweet(id: tweet.id)
        try await tweets.deleteTweet(id: reply.id)
        #expect(try await list(ada).isEmpty)
        #expect(try await list(cy).isEmpty)
        try await signIn(ada)
        #expect(try await bell.unreadCount() == 0)
        try await signIn(cy)
        #expect(try await bell.unreadCount() == 0)
    }

    @Test func deletingATweetWithdrawsTheNotificationsAboutIt() async throws {
        let tweet = try await env.post("popular", as: ada, in: services)
        for user in [bob, cy] {
            try await signIn(user)
            _ = try await tweets.likeTweet(id: tweet.id)
            try await tweets.retweet(id: tweet.id)
        }
        #expect(try await list(ada).count == 4)
        try await signIn(ada)
        try await tweets.deleteTweet(id: tweet.id)
        #expect(try await list(ada).isEmpty)
        #expect(try await bell.unreadCount() == 0)
    }

    @Test func showingTheNewestMovesTheMarkerAndOnlyNewerOnesAreUnread() async throws {
        let tweet = try await env.post("hello", as: ada, in: services)
        try await signIn(bob)
        _ = try await tweets.likeTweet(id: tweet.id)
        try await signIn(cy)
        _ = try await tweets.likeTweet(id: tweet.id)
        try await signIn(ada)
        #expect(try await bell.unreadCount() == 2)
        let shown = try await bell.fetchNotifications()
        #expect(shown.allSatisfy { !$0.read })
        try await bell.markSeen(upTo: shown[0].id)
        #expect(try await bell.unreadCount() == 0)
        #expect(try await bell.fetchNotifications().allSatisfy(\.read))
        #expect(try await bell.fetchNotifications(unreadOnly: true).isEmpty)
        // One more: only it is unread, and a withdrawn read one leaves the count alone.
        try await signIn(bob)
        try await tweets.retweet(id: tweet.id)
        _ = try await tweets.unlikeTweet(id: tweet.id)
        try await signIn(ada)
        #expect(try await bell.unreadCount() == 1)
        let unread = try await bell.fetchNotifications(unreadOnly: true)
        #expect(unread.map(\.type) == [.retweet])
        // Marking an older one seen does not move the marker back.
        try await bell.markSeen(upTo: try await bell.fetchNotifications().last?.id)
        #expect(try await bell.unreadCount() == 1)
    }

    @Test func unreadOnesCanBePagedThroughBeforeTheMarkerMoves() async throws {
        let tweet = try await env.post("hello", as: ada, in: services)
        let dan = try await env.addUser("dan", to: services)
        for user in [bob, cy, dan] {
            try await signIn(user)
            _ = try await tweets.likeTweet(id: tweet.id)
        }
        try await signIn(ada)
        let viewModel = await NotificationsViewModel(services: services)
        try await viewModel.load(limit: 2, unreadOnly: true)
        #expect(await viewModel.notifications.map(\.fromUid) == [dan.id, cy.id])
        #expect(await viewModel.hasMore)
        try await viewModel.markShownAsSeen(unreadOnly: true, isFirstPage: true)
        #expect(try await bell.unreadCount() == 3)  // Not all were shown yet.
        let last = await viewModel.notifications.last?.id
        try await viewModel.load(limit: 2, before: last, unreadOnly: true)
        #expect(await viewModel.notifications.map(\.fromUid) == [bob.id])
        try await viewModel.markShownAsSeen(unreadOnly: true, isFirstPage: false)
        #expect(try await bell.unreadCount() == 0)
        #expect(try await bell.fetchNotifications(unreadOnly: true).isEmpty)
    }

    @Test func aReplysNotificationIsWithdrawnEvenAfterItsParentWasDeleted() async throws {
        let tweet = try await env.post("parent", as: ada, in: services)
        let reply = try await env.post("reply", as: bob, in: services, replyTo: tweet.id)
        try await signIn(ada)
        try await tweets.deleteTweet(id: tweet.id)
        #expect(try await bell.unreadCount() == 1)
        try await signIn(bob)
        try await tweets.deleteTweet(id: reply.id)
        #expect(try await list(ada).isEmpty)
        try await signIn(ada)
        #expect(try await bell.unreadCount() == 0)
    }

    @Test func pagesFollowTheCursorAndAnUnknownOneIsAnError() async throws {
        let tweet = try await env.post("hello", as: ada, in: services)
        for user in [bob, cy] {
            try await signIn(user)
            _ = try await tweets.likeTweet(id: tweet.id)
        }
        try await signIn(ada)
        let first = try await bell.fetchNotifications(limit: 1)
        let second = try await bell.fetchNotifications(limit: 1, before: first[0].id)
        #expect(first.map(\.fromUid) == [cy.id])
        #expect(second.map(\.fromUid) == [bob.id])
        await #expect(throws: TweetError.notificationNotFound("nope")) {
            try await bell.fetchNotifications(before: "nope")
        }
    }

    @Test func notificationsNeedSomeoneSignedIn() async throws {
        await #expect(throws: AuthError.notSignedIn) { try await bell.fetchNotifications() }
        await #expect(throws: AuthError.notSignedIn) { try await bell.unreadCount() }
    }
}

/// On a server, the session check reads the notification state with the session, and the unread
/// count takes it from there while this process has written nothing since: a round trip saved.
/// After a write of its own, the count is read again.
struct NotificationCountOnAServerTests {
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func theStateTheSessionCheckReadStandsUntilAWriteOfThisProcess() async throws {
        let env = try TestEnvironment()
        // Beside the other suites a step can take seconds: what the check read stands for the test.
        let readerStore = try env.makeStore(.postgres)
        let reader = AppServices(
            store: readerStore,
            auth: AuthService(
                store: readerStore, session: SessionStore(path: env.sessionPath), storeName: env.storeDirectory,
                ids: .seeded(5), checkedMoment: .seconds(600)),
            ids: .seeded(6))
        // Another process on the same database, with a session file of its own.
        let store = try env.makeStore(.postgres)
        let writer = AppServices(
            store: store,
            auth: AuthService(
                store: store, session: SessionStore(path: env.path("elsewhere/session.json")),
                storeName: env.storeDirectory, ids: .seeded(7)),
            ids: .seeded(8))
        let ada = try await env.addUser("ada", to: writer)
        let bob = try await env.addUser("bob", to: writer)
        let tweet = try await env.post("hello", as: ada, in: writer)
        try await env.signIn(bob, in: writer)
        _ = try await writer.tweets.likeTweet(id: tweet.id)

        try await env.signIn(ada, in: reader)
        #expect(try await reader.auth.currentUid() == ada.id)  // the check: one unread
        try await writer.tweets.retweet(id: tweet.id)
        #expect(try await reader.notifications.unreadCount() == 1, "the count the check read")
        _ = try await reader.tweets.uploadTweet(caption: "a write of this process")
        #expect(try await reader.notifications.unreadCount() == 2, "read again after a write")
    }
}
