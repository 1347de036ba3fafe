import Foundation
import Synchronization
import TweetCore
import TweetStore
import TweetStoreLocal

/// One test's temporary directory with factories for stores and services over it; the directory
/// is removed when the environment is released, at the end of the test.
package final class TestEnvironment: Sendable {
    /// The password ``registerUser(_:in:password:fullname:)`` uses unless told otherwise.
    package static let password = "correct horse battery"

    /// The test's own directory.
    package let root: String
    /// The clock of every store made here unless a test passes another.
    package let clock: TestClock
    /// Gives each set of services its own ID seed, so two of them never make the same IDs.
    private let nextSeed = Atomic<UInt64>(1)
    /// The uids of users written directly by ``addUser(_:fullname:to:)``.
    private let userIDs = IDGenerator.seeded(0x5EED)
    /// The PostgreSQL schema standing for each store directory of this test.
    private let postgresLocations = Mutex<[String: String]>([:])

    /// The connection URI of the PostgreSQL schema that stands for `directory` in this test.
    package func postgresLocation(for directory: String) throws -> String {
        if let known = postgresLocations.withLock({ $0[directory] }) { return known }
        let fresh = try PostgresCluster.freshLocation()
        return postgresLocations.withLock { locations in
            if let known = locations[directory] { return known }
            locations[directory] = fresh
            return fresh
        }
    }

    package init(clock: TestClock = TestClock()) throws {
        let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("tweetcli-tests.XXXXXX")
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: template])
        }
        root = String(cString: made)
        self.clock = clock
        Self.roots.withLock { _ = $0.insert(root) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)  // Best effort: a temporary directory.
        Self.roots.withLock { _ = $0.remove(root) }
    }

    /// The directories of environments not yet released. The test runner keeps some suites, and
    /// so their environments, until the process exits, when no deinit runs: those are removed then.
    private static let roots: Mutex<Set<String>> = {
        atexit { TestEnvironment.removeRemaining() }
        return Mutex([])
    }()

    private static func removeRemaining() {
        for root in roots.withLock({ $0 }) {
            try? FileManager.default.removeItem(atPath: root)  // Best effort at exit: temporary directories.
        }
    }

    /// `relative` inside the test's directory.
    package func path(_ relative: String) -> String {
        (root as NSString).appendingPathComponent(relative)
    }

    /// The directory of the store ``makeStore(clock:directory:)`` opens by default.
    package var storeDirectory: String { path("store") }
    /// The journal of the default store.
    package var journalPath: String { path("store/journal.jsonl") }
    /// The session file of the services ``makeServices(clock:store:)`` makes.
    package var sessionPath: String { path("state/session.json") }

    // MARK: Factories

    /// Opens a store in `directory` (the default store when `nil`) with `clock` (the environment's when
    /// `nil`), the app's indexes and the engine's fold threshold unless told otherwise.
    package func makeStore(
        clock: TestClock? = nil, directory: String? = nil, indexes: [IndexDefinition] = AppServices.indexes,
        foldThreshold: Int? = nil
    ) throws -> LocalDocumentStore {
        let clock = (clock ?? self.clock).reading
        let directory = directory ?? storeDirectory
        guard let foldThreshold else {
            return try LocalDocumentStore(directory: directory, indexes: indexes, clock: clock)
        }
        return try LocalDocumentStore(
            directory: directory, indexes: indexes, clock: clock, foldThreshold: foldThreshold)
    }

    /// Services over `store` (a new store on the default directory when `nil`), sharing one session file.
    package func makeServices(clock: TestClock? = nil, store: (any DocumentStore)? = nil) throws -> AppServices {
        let store = try store ?? makeStore(clock: clock)
        let seed = nextSeed.add(1, ordering: .relaxed).oldValue
        let auth = AuthService(
            store: store, session: SessionStore(path: sessionPath), storeName: storeDirectory,
            ids: .seeded(seed))
        return AppServices(store: store, auth: auth, ids: .seeded(seed &+ 1_000_000))
    }

    // MARK: Users

    /// Registers `username` (email `username@example.com`) through the auth service, which signs it in.
    /// Costs one yescrypt hash.
    @discardableResult
    package func registerUser(
        _ username: String, in services: AppServices, password: String = TestEnvironment.password,
        fullname: String? = nil
    ) async throws -> User {
        try await services.auth.register(
            email: "\(username)@example.com", password: password, fullname: fullname ?? username.capitalized,
            username: username)
    }

    /// Writes a `users/{uid}` document directly, without credentials: fast, for tests that only need
    /// users to exist. The user is not signed in.
    @discardableResult
    package func addUser(_ username: String, fullname: String? = nil, to services: AppServices) async throws -> User {
        let user = User(
            id: userIDs.next(), email: "\(username)@example.com", username: username,
            fullname: fullname ?? username.capitalized)
        let path = DocumentPath(collection: Collections.users, documentID: user.id)
        try await services.store.runTransaction { try $0.setData(from: user, at: path) }
        return user
    }

    /// Signs `user` in as a login would (a session in the store and in the file), without a password.
    package func signIn(_ user: User, in services: AppServices) async throws {
        try await services.auth.signIn(uid: user.id)
    }

    /// Signs `user` in and posts `caption` as them.
    @discardableResult
    package func post(
        _ caption: String, as user: User, in services: AppServices, replyTo: String? = nil, quote: String? = nil
    ) async throws -> Tweet {
        try await signIn(user, in: services)
        return try await services.tweets.uploadTweet(caption: caption, replyTo: replyTo, quote: quote)
    }

    // MARK: Files

    /// The bytes of a file in the test's directory.
    package func bytes(of path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Overwrites a file with `bytes`.
    package func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Appends `bytes` to a file, as a process that crashed mid-write would leave them.
    package func append(_ bytes: [UInt8], to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }

    /// The names of the files in `directory`.
    package func files(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    /// The permission bits of a file or directory.
    package func permissions(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

extension User {
    /// The user as anyone but themselves sees it: without the email.
    package var asSeenByOthers: User {
        var user = self
        user.email = nil
        return user
    }
}
