import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

@MainActor
struct ExploreViewModelTests {
    let env: TestEnvironment
    let services: AppServices

    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        try await env.addUser("alice", fullname: "Alice Liddell", to: services)
        try await env.addUser("bob", fullname: "Bob Builder", to: services)
        try await env.addUser("dalia", fullname: "Dalia Rose", to: services)
    }

    @Test func anEmptySearchLoadsEveryoneByUsername() async throws {
        let model = ExploreViewModel(services: services)
        try await model.fetchUsers()
        #expect(model.error == nil)
        #expect(model.users.map(\.username) == ["alice", "bob", "dalia"])
        #expect(model.searchableUsers == model.users)
    }

    @Test(arguments: [
        ("ali", ["alice", "dalia"]), ("@BOB", ["bob"]), ("rose", ["dalia"]), ("LIDDELL", ["alice"]),
        ("  ", ["alice", "bob", "dalia"]),
        ("nobody", []),
    ])
    func theServiceFiltersByUsernameOrFullName(_ text: String, _ expected: [String]) async throws {
        let model = ExploreViewModel(services: services)
        model.searchText = text
        try await model.fetchUsers()
        #expect(model.searchableUsers.map(\.username) == expected)
        #expect(model.users == model.searchableUsers)
    }

    @Test func pagesFollowOneAnotherAndSayWhenThereAreMore() async throws {
        let model = ExploreViewModel(services: services)
        try await model.fetchUsers(limit: 2)
        #expect(model.users.map(\.username) == ["alice", "bob"])
        #expect(model.hasMore)
        try await model.fetchUsers(limit: 2, offset: 2)
        #expect(model.users.map(\.username) == ["dalia"])
        #expect(!model.hasMore)
    }

    @Test func otherUsersEmailsAreLeftOutAndYourOwnIsKept() async throws {
        let me = try #require(try await services.users.fetchUsers().first)
        try await env.signIn(me, in: services)
        let model = ExploreViewModel(services: services)
        try await model.fetchUsers()
        #expect(model.users.count == 3)
        for user in model.users {
            #expect(user.email == (user.id == me.id ? "\(user.username)@example.com" : nil))
        }
    }

    @Test func fetchingWithSearchTextAsksTheService() async throws {
        let model = ExploreViewModel(services: services)
        model.searchText = "Builder"
        try await model.fetchUsers()
        #expect(model.users.map(\.username) == ["bob"])
        model.searchText = "a"
        try await model.fetchUsers(limit: 1)
        #expect(model.users.map(\.username) == ["alice"])
    }
}
