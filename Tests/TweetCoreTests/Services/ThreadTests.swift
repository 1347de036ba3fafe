import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// `thread`: the chain up to the root, root first, then the replies depth first, oldest first at
/// each level, with their depth.
struct ThreadTests {
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

    private func post(_ caption: String, _ user: User, replyTo: Tweet? = nil) async throws -> Tweet {
        try await env.post(caption, as: user, in: services, replyTo: replyTo?.id)
    }

    @Test func aConversationReadsRootFirstThenRepliesInConversationOrder() async throws {
        let root = try await post("root", ada)
        let a = try await post("a", bob, replyTo: root)
        let middle = try await post("middle", ada, replyTo: a)
        let b = try await post("b", bob, replyTo: middle)
        let c = try await post("c", ada, replyTo: middle)
        _ = try await post("b1", ada, replyTo: b)
        _ = try await post("elsewhere", bob, replyTo: root)
        let thread = try await services.tweets.fetchThread(id: middle.id)
        #expect(thread.ancestors.map(\.caption) == ["root", "a"])
        #expect(thread.tweet.id == middle.id)
        #expect(thread.replies.map(\.caption) == ["b", "b1", "c"])
        #expect(thread.replies.map(\.depth) == [1, 2, 1])
        #expect(thread.replies.last?.id == c.id)
        #expect(thread.replies[0].replyTo?.username == "ada")
        #expect(!thread.hasMoreReplies)
        #expect(thread.deletedAncestor == nil)
    }

    @Test func theLimitCountsRepliesAndSaysThereAreMore() async throws {
        let root = try await post("root", ada)
        for number in 0..<5 { _ = try await post("reply \(number)", bob, replyTo: root) }
        let thread = try await services.tweets.fetchThread(id: root.id, limit: 3)
        #expect(thread.replies.map(\.caption) == ["reply 0", "reply 1", "reply 2"])
        #expect(thread.hasMoreReplies)
        #expect(thread.ancestors.isEmpty)
    }

    @Test func aDeletedAncestorEndsTheChainAndSaysSo() async throws {
        let root = try await post("root", ada)
        let reply = try await post("reply", bob, replyTo: root)
        try await env.signIn(ada, in: services)
        try await services.tweets.deleteTweet(id: root.id)
        let thread = try await services.tweets.fetchThread(id: reply.id)
        #expect(thread.ancestors.isEmpty)
        #expect(thread.deletedAncestor == root.id)
        #expect(thread.tweet.replyTo?.deleted == true)
        await #expect(throws: TweetError.notFound(root.id)) { try await services.tweets.fetchThread(id: root.id) }
    }
}
