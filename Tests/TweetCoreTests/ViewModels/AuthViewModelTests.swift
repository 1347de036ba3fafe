import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

@MainActor
struct AuthViewModelTests {
    let env: TestEnvironment
    let services: AppServices

    init() throws {
        env = try TestEnvironment()
        services = try env.makeServices()
    }

    private func register(_ model: AuthViewModel) async throws {
        try await model.register(
            email: "Alice@Example.com", password: TestEnvironment.password, fullname: "Alice", username: "Alice")
    }

    @Test func registerSignsTheNewUserIn() async throws {
        let model = AuthViewModel(services: services)
        try await register(model)
        #expect(model.error == nil)
        let user = try #require(model.currentUser)
        #expect(user.username == "alice")
        #expect(user.email == "alice@example.com")
        #expect(model.userSession == user.id)
        #expect(try await services.auth.currentUid() == user.id)
    }

    @Test func aFailedRegistrationSetsTheErrorAndNoSession() async throws {
        let model = AuthViewModel(services: services)
        await #expect(throws: (any Error).self) {
            try await model.register(
                email: "alice@example.com", password: "short", fullname: "Alice", username: "alice")
        }
        #expect(model.error as? AuthError == .passwordTooShort)
        #expect(model.userSession == nil)
        #expect(model.currentUser == nil)
    }

    @Test func loginAndSignOutSetAndClearTheSession() async throws {
        let model = AuthViewModel(services: services)
        try await register(model)
        let alice = try #require(model.currentUser)
        try await model.signOut()
        #expect(model.userSession == nil)
        #expect(model.currentUser == nil)
        #expect(try await services.auth.currentUid() == nil)

        try await model.login(.username("@ALICE"), password: TestEnvironment.password)
        #expect(model.error == nil)
        #expect(model.currentUser == alice)
        #expect(model.userSession == alice.id)
    }

    @Test func aFailedLoginSetsTheErrorAndASuccessClearsIt() async throws {
        let model = AuthViewModel(services: services)
        try await register(model)
        try await model.signOut()
        await #expect(throws: AuthError.invalidCredentials) {
            try await model.login(.email("alice@example.com"), password: "not the password")
        }
        #expect(model.error as? AuthError == .invalidCredentials)
        #expect(model.userSession == nil)
        try await model.login(.email("alice@example.com"), password: TestEnvironment.password)
        #expect(model.error == nil)
        #expect(model.userSession != nil)
    }

    @Test func fetchUserRestoresTheSavedSession() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        let model = AuthViewModel(services: try env.makeServices())
        #expect(model.userSession == nil)
        try await model.fetchUser()
        #expect(model.userSession == alice.id)
        #expect(model.currentUser == alice)
    }

    @Test func fetchUserWithNoSessionLeavesEverythingEmpty() async throws {
        let model = AuthViewModel(services: services)
        try await model.fetchUser()
        #expect(model.error == nil)
        #expect(model.userSession == nil)
        #expect(model.currentUser == nil)
    }
}
