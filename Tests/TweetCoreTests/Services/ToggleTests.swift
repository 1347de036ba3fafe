import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// The four marks a user sets on others' things (like, retweet, bookmark, follow) share one
/// mechanism: the thing must exist, and a mark set twice or cleared when absent writes nothing.
struct ToggleTests {
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

    /// The journal's bytes: a transaction that writes anything appends a record.
    private func journal() throws -> [UInt8] { try env.bytes(of: env.journalPath) }

    @Test func aMarkSetTwiceOrClearedWhenAbsentWritesNothing() async throws {
        let tweet = try await env.post("mark me", as: ada, in: services)
        try await env.signIn(bob, in: services)
        let marks: [(set: () async throws -> Void, clear: () async throws -> Void)] = [
            (
                { _ = try await services.tweets.likeTweet(id: tweet.id) },
                { _ = try await services.tweets.unlikeTweet(id: tweet.id) }
            ),
            (
                { _ = try await services.tweets.retweet(id: tweet.id) },
                { _ = try await services.tweets.unretweet(id: tweet.id) }
            ),
            (
                { _ = try await services.tweets.bookmark(id: tweet.id) },
                { _ = try await services.tweets.unbookmark(id: tweet.id) }
            ),
            (
                { _ = try await services.users.follow(uid: ada.id) },
                { _ = try await services.users.unfollow(uid: ada.id) }
            ),
        ]
        for (index, mark) in marks.enumerated() {
            let before = try journal()
            try await mark.clear()
            #expect(try journal() == before, "mark \(index): clearing an absent mark wrote")
            try await mark.set()
            let set = try journal()
            #expect(set.count > before.count, "mark \(index): setting it wrote nothing")
            try await mark.set()
            #expect(try journal() == set, "mark \(index): setting it again wrote")
            try await mark.clear()
            #expect(try journal().count > set.count, "mark \(index): clearing it wrote nothing")
        }
    }

    @Test func followReportsWhetherItChangedAndNotifiesOnce() async throws {
        try await env.signIn(bob, in: services)
        #expect(try await services.users.follow(uid: ada.id).changed)
        #expect(try await !services.users.follow(uid: ada.id).changed)
        try await env.signIn(ada, in: services)
        let bell = try await services.notifications.fetchNotifications(limit: 10)
        #expect(bell.filter { $0.type == .follow }.count == 1)
        try await env.signIn(bob, in: services)
        #expect(try await services.users.unfollow(uid: ada.id).changed)
        #expect(try await !services.users.unfollow(uid: ada.id).changed)
        try await env.signIn(ada, in: services)
        #expect(try await services.notifications.fetchNotifications(limit: 10).isEmpty)
    }

    @Test func aMarkOnSomethingMissingSaysSo() async throws {
        try await env.signIn(bob, in: services)
        await #expect(throws: TweetError.notFound("nope")) { try await services.tweets.likeTweet(id: "nope") }
        await #expect(throws: TweetError.notFound("nope")) { try await services.tweets.unbookmark(id: "nope") }
        await #expect(throws: UserError.notFound("nobody")) { try await services.users.follow(uid: "nobody") }
    }
}
