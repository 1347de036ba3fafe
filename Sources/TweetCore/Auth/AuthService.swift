import FoundationEssentials
import Synchronization
import TweetStore
import TweetSystem
import TwitterText

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
    private let knownSession = Mutex<(stamp: FileIO.Stamp, uid: String?)?>(nil)
    /// The signed-in user's documents the session check read in the same batch (their
    /// `user-filters` and notification state; `nil` fields for one that does not exist), for the
    /// command's listings and counts to use rather than read again. They stand for the moment of
    /// the check only (``checkedMoment``): a later action of a long-lived process reads afresh.
    private let checkedDocuments =
        Mutex<(uid: String, at: ContinuousClock.Instant, writes: Int?, fields: [DocumentPath: JSONObject?])?>(nil)

    /// More documents of the account the next session check reads along (see
    /// ``readWithNextCheck(_:)``), by the uid the session file names.
    private let nextAlongside = Mutex<(@Sendable (String) -> [DocumentPath])?>(nil)

    /// What of the account the next session check sends ahead (see ``prefetchWithNextCheck(_:)``),
    /// by the uid the session file names.
    private let nextPrefetches = Mutex<[@Sendable (String) async -> Void]>([])

    /// How long after the session check the documents read with it are used: one command's time.
    let checkedMoment: Duration

    /// - Parameters:
    ///   - store: where users and credentials live.
    ///   - session: the session file for this store.
    ///   - storeName: the store's location, recorded in the session so a session is never used for another store.
    ///   - hasher: the password hasher (yescrypt).
    ///   - ids: the uid generator.
    ///   - checkedMoment: how long the documents the session check read stand: 2 s, one
    ///     command's time (tests that run beside many others make it longer).
    public init(
        store: any DocumentStore, session: SessionStore, storeName: String, hasher: PasswordHasher = PasswordHasher(),
        ids: IDGenerator = .random, checkedMoment: Duration = .seconds(2)
    ) {
        self.checkedMoment = checkedMoment
        self.store = store
        self.session = session
        self.storeName = storeName
        self.hasher = hasher
        self.ids = ids
    }

    /// The session file this service signs in with: other per-store files of this device sit
    /// beside it, named alike.
    public var sessionPath: String { session.path }

    /// The uid an action resolved once with ``withViewer(_:)``, and the service that resolved it
    /// (another store's service resolves its own); `nil` outside such an action.
    @TaskLocal private static var actionViewer: (service: ObjectIdentifier, uid: String?)? = nil

    /// Runs `body` with the signed-in user resolved once: every ``currentUid()`` within it, in
    /// whichever service, gives that uid without looking at the session again. For actions that
    /// only read, or that act as one account throughout (an archive import, which another terminal
    /// may switch accounts under); one that signs in or out resolves anew.
    public func withViewer(_ body: () async throws -> Void) async throws {
        let uid = try await currentUid()
        try await Self.$actionViewer.withValue((ObjectIdentifier(self), uid)) { try await body() }
    }

    /// The signed-in uid: the session file's token, checked against `sessions/{name}` in the store,
    /// so that a session file edited to another uid signs nobody in; `nil` when signed out.
    public func currentUid() async throws -> String? {
        if let viewer = Self.actionViewer, viewer.service == ObjectIdentifier(self) {
            forgetNextCheckAsks()
            return viewer.uid
        }
        let stamp = session.stamp()
        if let known = knownSession.withLock({ $0 }), known.stamp == stamp {
            forgetNextCheckAsks()
            return known.uid
        }
        let uid = try await verifiedUid(try session.load())
        knownSession.withLock { $0 = (stamp, uid) }
        return uid
    }

    /// Has the next session check read `paths` of the account too, in the same batch, for the
    /// listing that follows to take with ``checkedSinceNoWrite(_:of:)`` (on a server, where a read
    /// is a round trip: a following feed's list of whom the account follows).
    func readWithNextCheck(_ paths: @escaping @Sendable (String) -> [DocumentPath]) {
        nextAlongside.withLock { $0 = paths }
    }

    /// Has the next session check send reads of the account ahead, in the same round trip: `ask`
    /// says them to the store (``DocumentStore/prefetch(_:)``) for the listing that follows (its
    /// own bookmarks). They are asked by the uid the session file names; the listing reads by the
    /// uid the check confirmed, so a prefetch for any other uid is never used.
    func prefetchWithNextCheck(_ ask: @escaping @Sendable (String) async -> Void) {
        nextPrefetches.withLock { $0.append(ask) }
    }

    /// No check goes now: what was asked to go with one is read when needed, not at a later
    /// check (a long-lived process, inside ``withViewer(_:)``, would otherwise gather them).
    private func forgetNextCheckAsks() {
        nextAlongside.withLock { $0 = nil }
        nextPrefetches.withLock { $0 = [] }
    }

    private func verifiedUid(_ saved: SessionStore.Session?) async throws -> String? {
        let asked = nextAlongside.withLock { asked in
            defer { asked = nil }
            return asked
        }
        let ahead = nextPrefetches.withLock { ahead in
            defer { ahead = [] }
            return ahead
        }
        guard let saved, saved.store == storeName, let token = saved.token else { return nil }
        for ask in ahead { await ask(saved.uid) }
        let path = DocumentPath(collection: Collections.sessions, documentID: try PasswordHasher.tokenName(token))
        // The user's filters come in the same read: nearly every command that checks a session
        // then lists something they filter. From a server, so does their notification state, which
        // a listing's banner counts from: a round trip saved is worth the document read.
        let alongside =
            [ViewerFilters.path(of: saved.uid)]
            + (store.readsAreRoundTrips
                ? [NotificationBatch.statePath(of: saved.uid)] + (asked?(saved.uid) ?? []) : [])
        // Counted before the read: a write that begins while it waits makes what it read old.
        let writes = store.writesBegun
        let found = try await store.getDocuments([path] + alongside)
        guard let known = found.first(where: { $0.path == path }), known.data["uid"]?.stringValue == saved.uid else {
            return nil
        }
        var fields: [DocumentPath: JSONObject?] = [:]
        for other in alongside { fields[other] = .some(found.first { $0.path == other }?.data) }
        checkedDocuments.withLock { $0 = (saved.uid, .now, writes, fields) }
        return saved.uid
    }

    /// Whether the store still knows `saved`'s session. On a server that keeps the accounts, an
    /// account other than the active one is asked through its own device: the active device may
    /// not read another account's session.
    private func isSignedIn(_ saved: SessionStore.Session, active: String?) async throws -> Bool {
        guard saved.store == storeName, let device = saved.device, let server = store as? any AccountServer else {
            return try await verifiedUid(saved) != nil
        }
        if saved.uid != active { return try await server.isSignedIn(device) }
        do {
            return try await verifiedUid(saved) != nil
        } catch {
            // The active device's own connection fails once its session ended: that is an answer.
            if try await !server.isSignedIn(device) { return false }
            throw error
        }
    }

    /// Drops the documents the session check read: after a block, a mute or a marker moved, or
    /// when a watch wakes because the store changed, they are out of date.
    public func forgetCheckedDocuments() {
        checkedDocuments.withLock { $0 = nil }
    }

    /// The `user-filters` fields of `uid` as the session check read them; `nil` when they were
    /// not read, read for someone else, or too long ago.
    func checkedFilters(of uid: String) -> JSONObject?? {
        checked(ViewerFilters.path(of: uid), of: uid)
    }

    /// The fields at `path` of `uid` as the session check read them; `nil` when not read, read
    /// for someone else, or too long ago.
    func checked(_ path: DocumentPath, of uid: String) -> JSONObject?? {
        checked(path, of: uid, unwritten: false)
    }

    /// ``checked(_:of:)``, only if this process has written nothing to the store since the check
    /// (an engine that does not count its writes never says so): then the fields are as the
    /// store still has them, whatever they say.
    func checkedSinceNoWrite(_ path: DocumentPath, of uid: String) -> JSONObject?? {
        checked(path, of: uid, unwritten: true)
    }

    private func checked(_ path: DocumentPath, of uid: String, unwritten: Bool) -> JSONObject?? {
        let writes = unwritten ? store.writesBegun : nil
        return checkedDocuments.withLock { checked in
            guard let checked, checked.uid == uid, ContinuousClock.now - checked.at < checkedMoment,
                let fields = checked.fields[path]
            else { return nil }
            if unwritten, writes == nil || checked.writes != writes { return nil }
            return .some(fields)
        }
    }

    /// The signed-in uid.
    /// - Throws: ``AuthError/notSignedIn`` when nobody is signed in.
    public func requireUid() async throws -> String {
        guard let uid = try await currentUid() else { throw AuthError.notSignedIn }
        return uid
    }

    /// A new random session token: 128 bits from the system's generator, as hex.
    private static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// The session document's path and fields for a new session of `uid`.
    private func sessionDocument(token: String, uid: String, time: Date) throws -> (DocumentPath, JSONObject) {
        let path = DocumentPath(collection: Collections.sessions, documentID: try PasswordHasher.tokenName(token))
        let stamp = JSONValue.string(Timestamp.string(from: time))
        return (path, ["uid": .string(uid), "created": stamp, "lastUsed": stamp])
    }

    /// The signed-in user, restored from the session; `nil` when signed out or the account is gone.
    public func currentUser() async throws -> User? {
        guard let uid = try await currentUid() else { return nil }
        return try await store.getDocument(DocumentPath(collection: Collections.users, documentID: uid))?
            .data(as: User.self)
    }

    /// Creates an account and signs it in, as Firebase's `createUser` does.
    /// - Throws: ``AuthError`` for an invalid field or a taken email or username.
    public func register(email: String, password: String, fullname: String, username: String) async throws -> User {
        let email = try Self.normalizedEmail(email)
        let username = try Self.normalizedUsername(username)
        let fullname = fullname.trimmed()
        guard (1...50).contains(fullname.count) else { throw AuthError.invalidFullname }
        if let problem = User.problem(withFullname: fullname) { throw AuthError.spoofableFullname(problem) }
        try TextRules.check(fullname, field: "full name", multiline: false, maximumBytes: 256)
        guard !password.utf8.contains(0) else { throw AuthError.passwordHasNul }
        guard password.count >= Self.minimumPasswordLength else { throw AuthError.passwordTooShort }
        let user = User(id: ids.next(), email: email, username: username, fullname: fullname)
        if let server = try await accountServer(signingIn: true) {
            return try await register(user, password: password, on: server)
        }
        let hash = try hasher.hash(password)  // Slow on purpose: done before taking the store's lock.
        let users = store.collection(Collections.users)
        let credentials = store.collection(Collections.credentials)
        // The session first: if it cannot be saved, no account is made that nobody is signed in to.
        // If the account then cannot be made, the sessions before are put back.
        let previous = loadAccounts()
        let token = Self.newToken()
        var accounts = previous
        accounts.add(.init(uid: user.id, store: storeName, token: token, username: user.username))
        try session.save(accounts)
        do {
            try await createAccount(user, hash: hash, token: token, users: users, credentials: credentials)
        } catch {
            try session.save(previous)
            throw error
        }
        return user
    }

    /// The server that keeps this store's accounts, when it does (see ``AccountServer``).
    /// `signingIn`: for a sign-up or sign-in, which connect as the store's location says (the guest),
    /// not as the device signed in before, whose session may have ended.
    private func accountServer(signingIn: Bool = false) async throws -> (any AccountServer)? {
        guard let server = store as? any AccountServer else { return nil }
        if signingIn { await server.use(nil) }
        guard try await server.keepsAccounts() else { return nil }
        return server
    }

    /// ``register(email:password:fullname:username:)`` on a server that keeps the accounts: it
    /// makes the account and this device's role; the session file then holds the device's login.
    private func register(_ user: User, password: String, on server: any AccountServer) async throws -> User {
        let token = Self.newToken()
        let device: DeviceLogin
        do {
            device = try await server.registerAccount(
                NewAccount(
                    uid: user.id, username: user.username, email: user.email ?? "", fullname: user.fullname,
                    password: password),
                sessionName: try PasswordHasher.tokenName(token))
        } catch let refusal as AccountServerRefusal {
            throw Self.authError(refusal, user: user)
        }
        _ = try await save(
            .init(uid: user.id, store: storeName, token: token, username: user.username, device: device), on: server)
        return user
    }

    /// Adds the session of a device the server just signed in to the file, as the active account;
    /// if the file cannot be written, the device is ended again.
    /// - Returns: the session it replaced for the same account, if any.
    private func save(_ signedIn: SessionStore.Session, on server: any AccountServer) async throws
        -> SessionStore.Session?
    {
        var accounts = loadAccounts()
        let replaced = accounts.sessions.first { $0.uid == signedIn.uid }
        accounts.add(signedIn)
        do {
            try session.save(accounts)
        } catch {
            // Best effort: the error to report is the session file's, and nobody holds the device's password.
            try? await server.signOutDevice()
            throw error
        }
        return replaced
    }

    /// The sentence for what the accounts' server refused.
    private static func authError(_ refusal: AccountServerRefusal, user: User? = nil) -> AuthError {
        switch refusal {
        case .usernameTaken: return .usernameTaken(user?.username ?? "")
        case .emailTaken: return .emailTaken(user?.email ?? "")
        case .invalidCredentials: return .invalidCredentials
        case .wrongPassword: return .wrongPassword
        case .notSignedIn: return .notSignedIn
        case .refused(let reason): return .refusedByServer(reason)
        }
    }

    private func createAccount(
        _ user: User, hash: String, token: String, users: CollectionReference, credentials: CollectionReference
    ) async throws {
        let (sessionPath, _) = try sessionDocument(token: token, uid: user.id, time: Date())
        let email = user.email ?? ""
        let username = user.username
        try await store.runTransaction { transaction in
            guard
                try await transaction.getDocuments(users.whereField("email", isEqualTo: .string(email)).limit(to: 1))
                    .isEmpty
            else { throw AuthError.emailTaken(email) }
            guard
                try await transaction.getDocuments(
                    users.whereField("username", isEqualTo: .string(username)).limit(to: 1)
                )
                .isEmpty
            else { throw AuthError.usernameTaken(username) }
            try transaction.setData(from: user, at: users.document(user.id))
            transaction.setData(["passwordHash": .string(hash)], at: credentials.document(user.id))
            transaction.setData(
                StatsCounter.fields(UserStats(following: 0, followers: 0, tweets: 0)),
                at: StatsCounter.path(of: user.id))
            let stamp = JSONValue.string(Timestamp.string(from: transaction.time))
            transaction.setData(["uid": .string(user.id), "created": stamp, "lastUsed": stamp], at: sessionPath)
        }
    }

    /// Signs in by email or username.
    /// - Throws: ``AuthError/invalidCredentials`` whether the account or the password was wrong.
    public func login(_ identifier: Identifier, password: String) async throws -> User {
        // crypt(3) stops at a NUL: "secret\0anything" must not sign in as "secret".
        guard !password.utf8.contains(0) else { throw AuthError.passwordHasNul }
        if let server = try await accountServer(signingIn: true) {
            return try await login(identifier, password: password, on: server)
        }
        let users = store.collection(Collections.users)
        let query: Query
        switch identifier {
        case .email(let email):
            query = users.whereField(
                "email", isEqualTo: .string(email.trimmed().lowercased()))
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
        try await startSession(uid: user.id, username: user.username)
        return user
    }

    /// ``login(_:password:)`` on a server that keeps the accounts: the server checks the password
    /// and makes this device's role; the session file then holds the device's login.
    private func login(_ identifier: Identifier, password: String, on server: any AccountServer) async throws -> User {
        let text: String
        switch identifier {
        case .email(let email): text = email
        case .username(let username): text = username
        }
        let token = Self.newToken()
        let name = try PasswordHasher.tokenName(token)
        let signedIn: SignedInDevice
        do {
            signedIn = try await server.signIn(identifier: text, password: password, sessionName: name)
        } catch AccountServerRefusal.invalidCredentials {
            // No role takes the password: the account may be one made before the server was set
            // up, which the server checks by its kept hash, made again here from the password.
            do {
                signedIn = try await server.claimKeptAccount(identifier: text, password: password, sessionName: name) {
                    try hasher.hash(password, setting: $0)
                }
            } catch let refusal as AccountServerRefusal {
                throw Self.authError(refusal)
            }
        } catch let refusal as AccountServerRefusal {
            throw Self.authError(refusal)
        }
        let replaced = try await save(
            .init(
                uid: signedIn.uid, store: storeName, token: token, username: signedIn.username,
                device: signedIn.device), on: server)
        if let replaced, replaced.device != nil {
            // Best effort: the new session works either way, and the old device is in no file now.
            // (`forget` connects as the active device, the new one, again when it is done.)
            try? await forget([replaced])
        }
        guard
            let user = try await store.getDocument(
                DocumentPath(collection: Collections.users, documentID: signedIn.uid))?
                .data(as: User.self)
        else { throw AuthError.invalidCredentials }
        return user
    }

    /// The sessions of this store's accounts on this device: the file's, or none when it is
    /// missing, unreadable (signing in replaces it) or another store's.
    private func loadAccounts() -> SessionStore.Accounts {
        // An unreadable file is replaced, as signing in always replaced it.
        guard let accounts = try? session.loadAccounts(), accounts.store == storeName else {
            return SessionStore.Accounts(store: storeName)
        }
        return accounts
    }

    /// Writes a new session to the store, then adds it to the session file as the active account;
    /// a session the account had on this device before is ended.
    private func startSession(uid: String, username: String) async throws {
        let token = Self.newToken()
        let (path, fields) = try sessionDocument(token: token, uid: uid, time: Date())
        try await store.runTransaction { transaction in
            let stamp = JSONValue.string(Timestamp.string(from: transaction.time))
            transaction.setData(fields.merging(["created": stamp, "lastUsed": stamp]) { $1 }, at: path)
        }
        var accounts = loadAccounts()
        let replaced = accounts.sessions.first { $0.uid == uid }?.token
        accounts.add(.init(uid: uid, store: storeName, token: token, username: username))
        do {
            try session.save(accounts)
        } catch {
            // Nobody holds the token: the store forgets it again, so the failed sign-in changes nothing.
            // Best effort: the error to report is the session file's, and a token nobody holds signs nobody in.
            try? await store.runTransaction { $0.deleteDocument(path) }
            throw error
        }
        if let replaced {
            // Best effort: the new session works either way, and the old token is in no file now.
            try? await forget([SessionStore.Session(uid: uid, store: storeName, token: replaced)])
        }
    }

    /// Checks the signed-in user's password, as an action that cannot be undone asks for it.
    /// - Throws: ``AuthError/wrongPassword``, ``AuthError/passwordHasNul``.
    public func verifyPassword(_ password: String) async throws {
        let uid = try await requireUid()
        guard !password.utf8.contains(0) else { throw AuthError.passwordHasNul }
        if let server = try await accountServer() {
            do {
                return try await server.verifyPassword(password, username: try await username(of: uid))
            } catch let refusal as AccountServerRefusal {
                throw Self.authError(refusal)
            }
        }
        let credentials = DocumentPath(collection: Collections.credentials, documentID: uid)
        guard let stored = try await store.getDocument(credentials)?.data["passwordHash"]?.stringValue,
            hasher.verify(password, against: stored)
        else { throw AuthError.wrongPassword }
    }

    /// Changes the signed-in user's password, given the current one, and signs out every other
    /// session of the account, on this device and elsewhere; this one stays signed in.
    /// - Throws: ``AuthError/wrongPassword``, ``AuthError/passwordTooShort``,
    ///   ``AuthError/passwordHasNul``.
    /// - Returns: How many other sessions were signed out.
    @discardableResult
    public func changePassword(current: String, new: String) async throws -> Int {
        let uid = try await requireUid()
        guard !new.utf8.contains(0), !current.utf8.contains(0) else { throw AuthError.passwordHasNul }
        guard new.count >= Self.minimumPasswordLength else { throw AuthError.passwordTooShort }
        if let server = try await accountServer() {
            do {
                return try await server.changePassword(
                    current: current, new: new, username: try await username(of: uid))
            } catch let refusal as AccountServerRefusal {
                throw Self.authError(refusal)
            }
        }
        let credentials = DocumentPath(collection: Collections.credentials, documentID: uid)
        guard let stored = try await store.getDocument(credentials)?.data["passwordHash"]?.stringValue,
            hasher.verify(current, against: stored)
        else { throw AuthError.wrongPassword }
        let hash = try hasher.hash(new)  // Slow on purpose: done before taking the store's lock.
        let keep = try session.load()?.token.map { try PasswordHasher.tokenName($0) }
        let sessions = store.collection(Collections.sessions).whereField("uid", isEqualTo: .string(uid))
        let ended = try await store.runTransaction { transaction in
            // Changed by another process since it was verified: the current password is not that.
            guard try await transaction.getDocument(credentials)?.data["passwordHash"]?.stringValue == stored else {
                throw AuthError.wrongPassword
            }
            transaction.setData(["passwordHash": .string(hash)], at: credentials)
            var ended = 0
            for other in try await transaction.getDocuments(sessions.select([])) where other.documentID != keep {
                transaction.deleteDocument(other.path)
                ended += 1
            }
            return ended
        }
        // The file holds one session for each account, this one: it has nothing else to drop.
        return ended
    }

    /// Signs out the active account (with `--as`, that account): the store forgets its session and
    /// the file drops it; the most recently added account left becomes the active one.
    /// - Returns: The username of the account active now, if one is.
    @discardableResult
    public func signOut() async throws -> String? {
        let accounts: SessionStore.Accounts?
        do {
            accounts = try session.loadAccounts()
        } catch {
            // An unreadable session file is what signing out must clear.
            try session.clear()
            return nil
        }
        guard var accounts, accounts.store == storeName else {
            try session.clear()
            return nil
        }
        let leaving = try session.load()
        if let leaving { try await forget([leaving]) }
        accounts.remove(leaving?.uid ?? "")
        try session.save(accounts)
        return accounts.activeSession?.username
    }

    /// Signs out every account signed in on this device.
    public func signOutAll() async throws {
        // An unreadable session file is what signing out must clear.
        let accounts = (try? session.loadAccounts()).flatMap { $0 }
        if let accounts, accounts.store == storeName { try await forget(accounts.sessions) }
        try session.clear()
    }

    /// The username of `uid`, as its `users` document says.
    private func username(of uid: String) async throws -> String {
        guard
            let name = try await store.getDocument(DocumentPath(collection: Collections.users, documentID: uid))?
                .data["username"]?.stringValue
        else { throw AuthError.notSignedIn }
        return name
    }

    /// The store forgets `sessions` (their tokens sign nobody in any more); on a server that keeps
    /// the accounts, each one's device role is ended, connected as it.
    private func forget(_ sessions: [SessionStore.Session]) async throws {
        if let server = store as? any AccountServer, sessions.contains(where: { $0.device != nil }) {
            let active = loadAccounts().activeSession?.device
            for device in sessions.compactMap(\.device) {
                await server.use(device)
                // A device the server ended already (a password changed elsewhere) has nothing left
                // to end, and one it cannot reach now is in no file once this returns.
                try? await server.signOutDevice()
            }
            await server.use(active.flatMap { active in sessions.contains { $0.device == active } ? nil : active })
            return
        }
        let paths = try sessions.compactMap(\.token).map {
            DocumentPath(collection: Collections.sessions, documentID: try PasswordHasher.tokenName($0))
        }
        guard !paths.isEmpty, try await store.exists() else { return }
        try await store.runTransaction { transaction in
            for path in paths { transaction.deleteDocument(path) }
        }
    }

    /// An account signed in on this device.
    public struct Account: Equatable, Sendable {
        public let uid: String
        public let username: String?
        /// Whether commands act as it unless told otherwise.
        public let isActive: Bool
        /// Whether the store still knows its session.
        public let isSignedIn: Bool
    }

    /// The accounts signed in on this device, in the order they signed in.
    public func accounts() async throws -> [Account] {
        let accounts = loadAccounts()
        var result: [Account] = []
        for saved in accounts.sessions {
            result.append(
                Account(
                    uid: saved.uid, username: saved.username, isActive: saved.uid == accounts.active,
                    isSignedIn: try await isSignedIn(saved, active: accounts.active)))
        }
        return result
    }

    /// Makes the account called `username` the active one, without a password: it is signed in
    /// on this device already.
    /// - Throws: ``AuthError/notSignedInAs(_:)`` when it is not; ``AuthError/sessionEnded(_:)``
    ///   when the store no longer knows its session.
    /// - Returns: The account's username.
    @discardableResult
    public func switchAccount(to username: String) async throws -> String {
        var accounts = loadAccounts()
        guard let saved = accounts.session(named: username) else { throw AuthError.notSignedInAs(username) }
        guard try await isSignedIn(saved, active: accounts.active) else {
            throw AuthError.sessionEnded(saved.username ?? username)
        }
        accounts.active = saved.uid
        try session.save(accounts)
        // From now on this command acts as the account switched to, through its own device.
        if let device = saved.device, let server = store as? any AccountServer { await server.use(device) }
        return saved.username ?? username
    }

    /// Signs `uid` in without a password: for tests that act as a user.
    package func signIn(uid: String) async throws {
        let username =
            try await store.getDocument(DocumentPath(collection: Collections.users, documentID: uid))?.data[
                "username"]?.stringValue ?? uid
        try await startSession(uid: uid, username: username)
    }

    /// A valid yescrypt hash of no one's password, checked when the account does not exist.
    private static let decoyHash = "$y$j9T$nYvRgR2fds4qOm1JkkVNB.$SlORD3A9xkcuMrx4/zAd4uqpKkZ8GSU.HYsvGjw6/FC"

    static func normalizedEmail(_ email: String) throws -> String {
        let email = email.trimmed().lowercased()
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
