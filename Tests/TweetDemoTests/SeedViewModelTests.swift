import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetDemo
@testable import TweetStore
@testable import TweetStoreLocal

@MainActor
struct SeedViewModelTests {
    let env: TestEnvironment
    let services: AppServices

    init() throws {
        env = try TestEnvironment()
        services = try env.makeServices()
    }

    @Test func seedingAnEmptyStoreReportsWhatItMade() async throws {
        let model = SeedViewModel(services: services)
        try await model.seed(DemoSeeder.Options(users: 4, tweets: 12, likes: 6, follows: 1, seed: 3))
        #expect(model.error == nil)
        let summary = try #require(model.summary)
        #expect(summary.users == 4)
        #expect(summary.tweets == 12)
        #expect(summary.likes == 6)
        #expect(summary.follows == 4)
        #expect(try await services.tweets.fetchTweets(limit: 50).count == 12)
    }

    @Test func seedingAStoreWithUsersSetsTheError() async throws {
        try await env.addUser("alice", to: services)
        let model = SeedViewModel(services: services)
        await #expect(throws: (any Error).self) { try await model.seed(DemoSeeder.Options(users: 4, seed: 3)) }
        #expect(model.error as? SeedError == .storeNotEmpty)
        #expect(model.summary == nil)
        #expect(try await services.users.fetchUsers().map(\.username) == ["alice"])
    }
}
