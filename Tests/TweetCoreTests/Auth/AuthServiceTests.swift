import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct AuthServiceTests {
    let env: TestEnvironment
    let services: AppServices

    init() throws {
        env = try TestEnvironment()
        services = try env.makeServices()
    }

    private var auth: AuthService { services.auth }

    @discardableResult
    private func registerAlice() async throws -> User {
        try await auth.register(
            email: "  Alice@Example.COM ", password: TestEnvironment.password, fullname: "  Alice Liddell ",
            username: "@Alice_1")
    }

    // MARK: Register

    @Test func registerNormalisesStoresAndSignsIn() async throws {
        let user = try await registerAlice()
        #expect(user.email == "alice@example.com")
        #expect(user.username == "alice_1")
        #expect(user.fullname == "Alice Liddell")
        #expect(user.id.count == 20)
        #expect(try await auth.currentUid() == user.id)
        #expect(try await services.users.fetchUser(withUid: user.id) == user)
        let credentials = try await services.store.getDocument(
            DocumentPath(collection: Collections.credentials, documentID: user.id))
        #expect(credentials?.data["passwordHash"]?.stringValue?.hasPrefix("$y$") == true)
    }

    @Test(arguments: [StoreLayout.journal, .segments])
    func theStoreNeverHoldsThePlainPassword(_ layout: StoreLayout) async throws {
        let services = try env.makeServices(layout)
        let password = "Plain-Text-Secret-42"
        try await env.registerUser("alice", in: services, password: password)
        let needle = Array(password.utf8)
        for name in try env.files(in: env.storeDirectory) {
            let bytes = try env.bytes(of: env.path("store/\(name)"))
            #expect(!bytes.indices.contains { bytes[$0...].starts(with: needle) }, "\(name)")
        }
        let users = try await services.store.collection(Collections.users).query.getDocuments()
        #expect(users.allSatisfy { $0.data["passwordHash"] == nil && $0.data["password"] == nil })
    }

    @Test(arguments: [
        ("ALICE@example.com", "other", AuthError.emailTaken("alice@example.com")),
        ("other@example.com", "@ALICE_1", AuthError.usernameTaken("alice_1")),
    ])
    func emailsAndUsernamesAreUniqueIgnoringCase(_ email: String, _ username: String, _ expected: AuthError)
        async throws
    {
        try await registerAlice()
        let before = try env.bytes(of: env.journalPath)
        await #expect(throws: expected) {
            try await auth.register(
                email: email, password: TestEnvironment.password, fullname: "Other", username: username)
        }
        #expect(try env.bytes(of: env.journalPath) == before)
        #expect(try await services.store.collection(Collections.users).query.count() == 1)
    }

    @Test(arguments: [
        ("alice@example.com", "1234567", "Alice", "alice", AuthError.passwordTooShort),
        ("alice@example.com", "", "Alice", "alice", .passwordTooShort),
        ("alice", "password1", "Alice", "alice", .invalidEmail("alice")),
        ("alice@", "password1", "Alice", "alice", .invalidEmail("alice@")),
        ("@example.com", "password1", "Alice", "alice", .invalidEmail("@example.com")),
        ("alice@example", "password1", "Alice", "alice", .invalidEmail("alice@example")),
        ("alice@.com", "password1", "Alice", "alice", .invalidEmail("alice@.com")),
        ("alice@example.com.", "password1", "Alice", "alice", .invalidEmail("alice@example.com.")),
        ("al ice@example.com", "password1", "Alice", "alice", .invalidEmail("al ice@example.com")),
        ("a@b@example.com", "password1", "Alice", "alice", .invalidEmail("a@b@example.com")),
        ("alice@example.com", "password1", "Alice", "", .invalidUsername("")),
        ("alice@example.com", "password1", "Alice", "@", .invalidUsername("@")),
        ("alice@example.com", "password1", "Alice", "sixteen_chars_xx", .invalidUsername("sixteen_chars_xx")),
        ("alice@example.com", "password1", "Alice", "ali ce", .invalidUsername("ali ce")),
        ("alice@example.com", "password1", "Alice", "ali-ce", .invalidUsername("ali-ce")),
        ("alice@example.com", "password1", "Alice", "ålice", .invalidUsername("ålice")),
        ("alice@example.com", "password1", "Alice", "@@alice", .invalidUsername("@@alice")),
        ("alice@example.com", "password1", "   ", "alice", .invalidFullname),
        ("alice@example.com", "password1", String(repeating: "x", count: 51), "alice", .invalidFullname),
        (
            "alice@example.com", "password1", "Bob @bob · 1m", "alice",
            .spoofableFullname("a full name cannot hold @, which would make it look like a username")
        ),
        (
            "alice@example.com", "password1", "\u{3164}", "alice",
            .spoofableFullname("a full name needs a visible character, not only spaces or invisible fillers")
        ),
    ])
    func invalidRegistrationsAreRejectedAndWriteNothing(
        _ email: String, _ password: String, _ fullname: String, _ username: String, _ expected: AuthError
    ) async throws {
        await #expect(throws: expected) {
            try await auth.register(email: email, password: password, fullname: fullname, username: username)
        }
        // The store is created by its first write, so a refused registration leaves no store at all.
        #expect(!FileManager.default.fileExists(atPath: env.storeDirectory))
        #expect(try await auth.currentUid() == nil)
        #expect(!FileManager.default.fileExists(atPath: env.sessionPath))
    }

    @Test func theShortestPasswordAndLongestUsernameAreAccepted() async throws {
        let user = try await auth.register(
            email: "a@b.co", password: "12345678", fullname: String(repeating: "x", count: 50),
            username: "fifteen_chars_x")
        #expect(user.username == "fifteen_chars_x")
    }

    // MARK: Login

    @Test func aSignInWhoseSessionFileCannotBeSavedLeavesNoSessionInTheStore() async throws {
        try await registerAlice()
        try await auth.signOut()
        let sessions = services.store.collection(Collections.sessions).query
        #expect(try await sessions.getDocuments().isEmpty)
        // The session file's directory is a file now: the file cannot be written.
        try FileManager.default.removeItem(atPath: env.path("state"))
        try env.write(Array("x".utf8), to: env.path("state"))
        await #expect(throws: (any Error).self) {
            try await auth.login(.username("alice_1"), password: TestEnvironment.password)
        }
        #expect(try await sessions.getDocuments().isEmpty)
    }

    @Test(arguments: [
        AuthService.Identifier.email("alice@example.com"), .email("ALICE@Example.com"), .username("alice_1"),
        .username("@alice_1"), .username("@ALICE_1"), .username("Alice_1"),
    ])
    func loginFindsTheAccountByEmailOrUsername(_ identifier: AuthService.Identifier) async throws {
        let alice = try await registerAlice()
        try await auth.signOut()
        let user = try await auth.login(identifier, password: TestEnvironment.password)
        #expect(user == alice)
        #expect(try await auth.currentUid() == alice.id)
    }

    @Test func aWrongPasswordAndAnUnknownAccountGiveTheSameError() async throws {
        try await registerAlice()
        try await auth.signOut()
        let attempts: [(AuthService.Identifier, String)] = [
            (.email("alice@example.com"), "wrong password"), (.email("nobody@example.com"), TestEnvironment.password),
            (.username("alice_1"), TestEnvironment.password.uppercased()), (.username("nobody"), "wrong password"),
        ]
        for (identifier, password) in attempts {
            await #expect(throws: AuthError.invalidCredentials) { try await auth.login(identifier, password: password) }
        }
        #expect(try await auth.currentUid() == nil)
    }

    @Test func aUserWithoutCredentialsCannotLogIn() async throws {
        try await env.addUser("ghost", to: services)
        await #expect(throws: AuthError.invalidCredentials) {
            try await auth.login(.username("ghost"), password: TestEnvironment.password)
        }
    }

    // MARK: Session

    @Test func logoutClearsTheSession() async throws {
        try await registerAlice()
        try await auth.signOut()
        #expect(try await auth.currentUid() == nil)
        #expect(try await auth.currentUser() == nil)
        #expect(!FileManager.default.fileExists(atPath: env.sessionPath))
        await #expect(throws: AuthError.notSignedIn) { try await auth.requireUid() }
        try await auth.signOut()  // Signing out twice is fine.
    }

    /// A session file written before several accounts (one session at its top level) still signs
    /// its account in; the next sign-in keeps it beside the new one.
    @Test func aOneAccountSessionFileStillSignsIn() async throws {
        let alice = try await registerAlice()
        let saved = try #require(try SessionStore(path: env.sessionPath).load())
        let old: JSONObject = [
            "uid": .string(saved.uid), "store": .string(saved.store), "token": .string(saved.token ?? ""),
        ]
        try Data(old.serializedObject()).write(to: URL(fileURLWithPath: env.sessionPath))
        let fresh = AuthService(
            store: services.store, session: SessionStore(path: env.sessionPath), storeName: saved.store)
        #expect(try await fresh.currentUid() == alice.id)
        let bob = try await fresh.register(
            email: "bob@example.com", password: TestEnvironment.password, fullname: "Bob", username: "bob")
        #expect(try await fresh.accounts().map(\.uid) == [alice.id, bob.id])
        #expect(try await fresh.accounts().allSatisfy(\.isSignedIn))
    }

    @Test func aPasswordChangeNeedsTheCurrentPasswordAndEndsOtherSessions() async throws {
        let alice = try await registerAlice()
        // Another device's session of the account, in a session file of its own.
        let elsewhere = AuthService(
            store: services.store, session: SessionStore(path: env.path("elsewhere.json")),
            storeName: env.storeDirectory)
        _ = try await elsewhere.login(.username("alice_1"), password: TestEnvironment.password)
        await #expect(throws: AuthError.wrongPassword) {
            try await auth.changePassword(current: "not the password", new: "a new password")
        }
        await #expect(throws: AuthError.passwordTooShort) {
            try await auth.changePassword(current: TestEnvironment.password, new: "short")
        }
        #expect(try await elsewhere.currentUid() == alice.id, "a refused change ends nothing")
        #expect(try await auth.changePassword(current: TestEnvironment.password, new: "a new password") == 1)
        #expect(try await auth.currentUid() == alice.id)
        let after = AuthService(
            store: services.store, session: SessionStore(path: env.path("elsewhere.json")),
            storeName: env.storeDirectory)
        #expect(try await after.currentUid() == nil)
        await #expect(throws: AuthError.invalidCredentials) {
            try await after.login(.username("alice_1"), password: TestEnvironment.password)
        }
        _ = try await after.login(.username("alice_1"), password: "a new password")
    }

    @Test func theSessionFileIsPrivate() async throws {
        try await registerAlice()
        #expect(try env.permissions(of: env.sessionPath) == 0o600)
        #expect(try env.permissions(of: env.path("state")) == 0o700)
    }

    @Test func aNewAuthServiceOnTheSameFilesRestoresTheSession() async throws {
        let alice = try await registerAlice()
        let restarted = try env.makeServices()
        #expect(try await restarted.auth.currentUid() == alice.id)
        #expect(try await restarted.auth.currentUser() == alice)
    }

    @Test func aSessionForOneStoreIsNotUsedForAnother() async throws {
        try await registerAlice()
        let otherStore = try env.makeStore(directory: env.path("other-store"))
        let other = AuthService(
            store: otherStore, session: SessionStore(path: env.sessionPath), storeName: env.path("other-store"))
        #expect(try await other.currentUid() == nil)
        #expect(try await other.currentUser() == nil)
        await #expect(throws: AuthError.notSignedIn) { try await other.requireUid() }
    }

    @Test func aSessionForADeletedAccountGivesNoUser() async throws {
        let alice = try await registerAlice()
        try await services.store.runTransaction {
            $0.deleteDocument(DocumentPath(collection: Collections.users, documentID: alice.id))
        }
        #expect(try await auth.currentUser() == nil)
    }

    @Test func anUnreadableSessionFileIsAClearError() async throws {
        try FileManager.default.createDirectory(atPath: env.path("state"), withIntermediateDirectories: true)
        try env.write(Array("{not json".utf8), to: env.sessionPath)
        let error = await #expect(throws: AuthError.self) { try await auth.currentUid() }
        guard case .sessionUnavailable(let path, let reason)? = error else {
            Issue.record("expected sessionUnavailable, got \(String(describing: error))")
            return
        }
        #expect(path == env.sessionPath)
        #expect(reason == "it is unreadable")
        try await auth.signOut()  // The way out the CLI's hint names works.
        #expect(try await auth.currentUid() == nil)
    }

    @Test func aRegistrationThatFailsLeavesTheSessionAsItWas() async throws {
        try await registerAlice()
        let alice = try #require(try await auth.currentUid())
        await #expect(throws: AuthError.emailTaken("alice@example.com")) {
            try await auth.register(
                email: "alice@example.com", password: TestEnvironment.password, fullname: "Other", username: "other")
        }
        #expect(try await auth.currentUid() == alice)
    }
}
