import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

@MainActor
struct EditProfileViewModelTests {
    let env: TestEnvironment
    let services: AppServices
    let alice: User

    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
    }

    @Test func savingKeepsTheUpdatedProfile() async throws {
        let model = EditProfileViewModel(services: services)
        try await model.save(
            ProfileChanges(fullname: "Alice L.", bio: "Down the rabbit hole", website: "https://alice.example"))
        #expect(model.error == nil)
        let user = try #require(model.user)
        #expect(user.fullname == "Alice L.")
        #expect(user.bio == "Down the rabbit hole")
        #expect(user.website == "https://alice.example")
        #expect(try await services.users.fetchUser(withUid: alice.id) == user)
    }

    @Test func anInvalidChangeSetsTheErrorAndSavesNothing() async throws {
        let model = EditProfileViewModel(services: services)
        await #expect(throws: (any Error).self) {
            try await model.save(ProfileChanges(website: "gopher://alice.example"))
        }
        #expect(model.error is UserError)
        #expect(model.user == nil)
        #expect(try await services.users.fetchUser(withUid: alice.id) == alice)
    }

    @Test func savingSignedOutSetsTheError() async throws {
        try await services.auth.signOut()
        let model = EditProfileViewModel(services: services)
        await #expect(throws: (any Error).self) { try await model.save(ProfileChanges(bio: "x")) }
        #expect(model.error as? AuthError == .notSignedIn)
    }
}
