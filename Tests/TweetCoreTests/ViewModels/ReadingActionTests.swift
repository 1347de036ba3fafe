import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// Every view model's loading action reads as one: one consistent read of the store, begun and
/// ended once, around everything the action reads.
@MainActor
struct ReadingActionTests {
    let env: TestEnvironment
    let counting: CountingDocumentStore
    let services: AppServices
    let tweet: Tweet

    init() async throws {
        env = try TestEnvironment()
        counting = CountingDocumentStore(try env.makeStore())
        services = try env.makeServices(store: counting)
        let ada = try await env.addUser("ada", to: services)
        tweet = try await env.post("hello #swift", as: ada, in: services)
    }

    nonisolated static let actions: [String] = [
        "feed", "following", "profile", "explore", "search", "trends", "thread", "bookmarks", "notifications", "whoami",
    ]

    @Test(arguments: actions) func anActionReadsInOneScope(_ action: String) async throws {
        let before = counting.consistentReadScopes
        switch action {
        case "feed": try await FeedViewModel(services: services).fetchTweets()
        case "following": try await FeedViewModel(services: services, source: .following).fetchTweets()
        case "profile": try await ProfileViewModel(reference: nil, services: services).load()
        case "explore": try await ExploreViewModel(services: services).fetchUsers()
        case "search": try await SearchViewModel(services: services).search("swift")
        case "trends": try await TrendsViewModel(services: services).load()
        case "thread": try await ThreadViewModel(tweetID: tweet.id, services: services).load()
        case "bookmarks": try await BookmarksViewModel(services: services).load()
        case "notifications": try await NotificationsViewModel(services: services).load()
        default: try await AuthViewModel(services: services).fetchUser()
        }
        let after = counting.consistentReadScopes
        #expect(after.begun - before.begun == 1 && after.ended - before.ended == 1, "\(action): \(before) → \(after)")
    }
}
