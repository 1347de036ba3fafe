import Foundation
import Synchronization

/// Sign-up, sign-in and the current session (the course's `Auth.auth()`).
public final class AuthService: Sendable {
    /// The shortest password accepted.
    public static let minimumPasswordLength = 8

    /// How to find an account when signing in.
    public enum Identifier: Sendable, Equatable {
        case email(String)
        case username(String)
    }

    let store: any DocumentStore
    let session: SessionStore
    let storeName: String
    private let hasher: PasswordHasher
    private let ids: IDGenerator
    /// The session as this service last read it, with the file's stamp then: a command asks who
    /// is signed in several times (the page's authors, the likes, the view model), and the file is
    /// read again only when another process (or another service) has changed it since.
    private let knownSession = Mutex<(stamp: SessionStore.Stamp?, session: SessionStore.Session?)?>(nil)

    /// - Parameters:
    ///   - store: where users and credentials live.
    ///   - session: the session file for this store.
    ///   - storeName: the store's location, recorded in the session so a session is never used for another store.
    ///   - hasher: the password hasher (yescrypt).
    ///   - ids: the uid generator.
    public init(
        store: any DocumentStore, session: SessionStore, storeName: String, hasher: PasswordHasher = PasswordHasher(),
        ids: IDGenerator = .random
    ) {
        self.store = store
        self.session = session
        self.storeName = storeName
        self.hasher = hasher
        self.ids = ids
    }

    /// The signed-in uid, read from the session file; `nil` when signed out.
    public func currentUid() throws -> String? {
        let stamp = session.stamp()
        let saved: SessionStore.Session?
        if let known = knownSession.withLock({ $0 }), known.stamp == stamp {
            saved = known.session
        } else {
            saved = try session.load()
            knownSession.withLock { $0 = (stamp, saved) }
        }
        guard let saved, saved.store == storeName else { return nil }
        return saved.uid
    }

    /// The signed-in uid.
    /// - Throws: ``AuthError/notSignedIn`` when nobody is signed in.
    public func requireUid() throws -> String {
        guard let uid = try currentUid() else { throw AuthError.notSignedIn }
        return uid
    }

    /// The signed-in user, restored from the session; `nil` when signed out or the account is gone.
    public func currentUser() async throws -> User? {
        guard let uid = try currentUid() else { return nil }
        return try await store.getDocument(DocumentPath(collection: Collections.users, documentID: uid))?
            .data(as: User.self)
    }

    /// Creates an account and signs it in, as Firebase's `createUser` does.
    /// - Throws: ``AuthError`` for an invalid field or a taken email or username.
    public func register(email: String, password: String, fullname: String, username: String) async throws -> User {
        let email = try Self.normalizedEmail(email)
        let username = try Self.normalizedUsername(username)
        let fullname = fullname.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...50).contains(fullname.count) else { throw AuthError.invalidFullname }
        try TextRules.check(fullname, field: "full name", multiline: false, maximumBytes: 256)
        guard !password.utf8.contains(0) else { throw AuthError.passwordHasNul }
        guard password.count >= Self.minimumPasswordLength else { throw AuthError.passwordTooShort }
        let hash = try hasher.hash(password)  // Slow on purpose: done before taking the store's lock.
        let user = User(id: ids.next(), email: email, username: username, fullname: fullname)
        let users = store.collection(Collections.users)
        let credentials = store.collection(Collections.credentials)
        // The session first: if it cannot be saved, no account is made that nobody is signed in to.
        // If the account then cannot be made, the session before is put back.
        let previous: SessionStore.Session?
        do {
            previous = try session.load()
        } catch {
            previous = nil  // An unreadable session is replaced, as signing in replaces it.
        }
        try session.save(.init(uid: user.id, store: storeName))
        do {
            try await createAccount(user, hash: hash, users: users, credentials: credentials)
        } catch {
            if let previous { try session.save(previous) } else { try session.clear() }
            throw error
        }
        return user
    }

    private func createAccount(
        _ user: User, hash: String, users: CollectionReference, credentials: CollectionReference
    ) async throws {
        let email = user.email ?? ""
        let username = user.username
        try await store.runTransaction { transaction in
            guard
                try transaction.getDocuments(users.whereField("email", isEqualTo: .string(email)).limit(to: 1)).isEmpty
            else { throw AuthError.emailTaken(email) }
            guard
                try transaction.getDocuments(users.whereField("username", isEqualTo: .string(username)).limit(to: 1))
                    .isEmpty
            else { throw AuthError.usernameTaken(username) }
            try transaction.setData(from: user, at: users.document(user.id))
            transaction.setData(["passwordHash": .string(hash)], at: credentials.document(user.id))
            transaction.setData(
                StatsCounter.fields(UserStats(following: 0, followers: 0, tweets: 0)),
                at: StatsCounter.path(of: user.id))
        }
    }

    /// Signs in by email or username.
    /// - Throws: ``AuthError/invalidCredentials`` whether the account or the password was wrong.
    public func login(_ identifier: Identifier, password: String) async throws -> User {
        // crypt(3) stops at a NUL: "secret\0anything" must not sign in as "secret".
        guard !password.utf8.contains(0) else { throw AuthError.passwordHasNul }
        let users = store.collection(Collections.users)
        let query: Query
        switch identifier {
        case .email(let email):
            query = users.whereField(
                "email", isEqualTo: .string(email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()))
        case .username(let username):
            let name = username.hasPrefix("@") ? String(username.dropFirst()) : username
            query = users.whereField("username", isEqualTo: .string(name.lowercased()))
        }
        guard let snapshot = try await query.limit(to: 1).getDocuments().first else {
            guard try await store.exists() else { throw StoreError.noStore(path: storeName) }
            _ = hasher.verify(password, against: Self.decoyHash)  // Same work, so timing does not tell.
            throw AuthError.invalidCredentials
        }
        let user = try snapshot.data(as: User.self)
        let credentials = try await store.getDocument(
            DocumentPath(collection: Collections.credentials, documentID: user.id))
        guard let hash = credentials?.data["passwordHash"]?.stringValue, hasher.verify(password, against: hash) else {
            throw AuthError.invalidCredentials
        }
        try session.save(.init(uid: user.id, store: storeName))
        return user
    }

    /// Signs out.
    public func signOut() throws {
        try session.clear()
    }

    /// Records `uid` as signed in, without a password: for tests that act as a user.
    func signIn(uid: String) throws {
        try session.save(.init(uid: uid, store: storeName))
    }

    /// A valid yescrypt hash of no one's password, checked when the account does not exist.
    private static let decoyHash = "$y$j9T$nYvRgR2fds4qOm1JkkVNB.$SlORD3A9xkcuMrx4/zAd4uqpKkZ8GSU.HYsvGjw6/FC"

    static func normalizedEmail(_ email: String) throws -> String {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        try TextRules.check(email, field: "email", multiline: false, maximumBytes: 254)
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix("."), email.count <= 254, !email.contains(where: \.isWhitespace)
        else { throw AuthError.invalidEmail(email) }
        return email
    }

    /// Lowercases a username (dropping one leading "@") and checks it is 1–15 of `[a-z0-9_]`.
    static func normalizedUsername(_ username: String) throws -> String {
        let trimmed = username.hasPrefix("@") ? String(username.dropFirst()) : username
        let name = trimmed.lowercased()
        guard (1...15).contains(name.utf8.count),
            name.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 95 })
        else { throw AuthError.invalidUsername(username) }
        return name
    }
}
