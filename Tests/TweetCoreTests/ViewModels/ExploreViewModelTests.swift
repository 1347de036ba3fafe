import Foundation
import Testing

@testable import TweetCore

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

    @Test func anEmptySearchLoadsEveryoneByUsername() async {
        let model = ExploreViewModel(services: services)
        await model.fetchUsers()
        #expect(model.error == nil)
        #expect(model.users.map(\.username) == ["alice", "bob", "dalia"])
        #expect(model.searchableUsers == model.users)
    }

    @Test(arguments: [
        ("ali", ["alice", "dalia"]), ("@BOB", ["bob"]), ("rose", ["dalia"]), ("LIDDELL", ["alice"]),
        ("  ", ["alice", "bob", "dalia"]),
        ("nobody", []),
    ])
    func searchableUsersFiltersTheLoadedUsers(_ text: String, _ expected: [String]) async {
        let model = ExploreViewModel(services: services)
        await model.fetchUsers()
        model.searchText = text
        #expect(model.searchableUsers.map(\.username) == expected)
        #expect(model.users.count == 3)
    }

    @Test func fetchingWithSearchTextAsksTheService() async {
        let model = ExploreViewModel(services: services)
        model.searchText = "Builder"
        await model.fetchUsers()
        #expect(model.users.map(\.username) == ["bob"])
        model.searchText = "a"
        await model.fetchUsers(limit: 1)
        #expect(model.users.map(\.username) == ["alice"])
    }
}
