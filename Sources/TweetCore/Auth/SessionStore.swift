import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps who is signed in, apart from the database, as Firebase Auth keeps its session on the
/// device: one small JSON file per store, mode 0600. It holds a session for each account signed
/// in on this device (as `gh auth` and toot keep several), and which one is active.
public struct SessionStore: Sendable {
    /// The session file.
    public let path: String
    /// The username of the account this process acts as (`--as @user`) instead of the active one.
    public let actingAs: String?

    /// One account's session.
    struct Session: Equatable {
        var uid: String
        var store: String
        /// The random token whose name (its hash) the store keeps at `sessions/{name}`; a session
        /// file without one, or with one the store does not know, signs nobody in.
        var token: String?
        /// The account's username when it signed in, to name it in `accounts`, `switch` and `--as`.
        var username: String?
        /// On a server that keeps the accounts (``AccountServer``), the role this device connects
        /// as and its random password: the file is the device's key, as the token is.
        var device: DeviceLogin?

        init(uid: String, store: String, token: String?, username: String? = nil, device: DeviceLogin? = nil) {
            self.uid = uid
            self.store = store
            self.token = token
            self.username = username
            self.device = device
        }
    }

    /// Every account's session, and the active one's uid.
    struct Accounts: Equatable {
        var store: String
        var active: String?
        var sessions: [Session]

        /// The session of the active account.
        var activeSession: Session? { sessions.first { $0.uid == active } }

        /// The session of the account called `username` (with or without its `@`, in any case).
        func session(named username: String) -> Session? {
            let name = (username.hasPrefix("@") ? String(username.dropFirst()) : username).lowercased()
            return sessions.first { $0.username?.lowercased() == name }
        }

        /// Adds `session` (replacing the account's session before, if any) and makes it active.
        mutating func add(_ session: Session) {
            sessions.removeAll { $0.uid == session.uid }
            sessions.append(session)
            active = session.uid
        }

        /// Removes the session of `uid`; if it was active, the most recently added one left is.
        mutating func remove(_ uid: String) {
            sessions.removeAll { $0.uid == uid }
            if active == uid || !sessions.contains(where: { $0.uid == active }) { active = sessions.last?.uid }
        }

        /// The file's fields; the first session's also at the top level, in the one-account form
        /// an older tweetcli reads.
        var fields: JSONObject {
            let list: [JSONValue] = sessions.map { session in
                var fields: JSONObject = ["uid": .string(session.uid)]
                if let token = session.token { fields["token"] = .string(token) }
                if let username = session.username { fields["username"] = .string(username) }
                if let device = session.device {
                    fields["device"] = .string(device.role)
                    fields["devicePassword"] = .string(device.password)
                }
                return .object(fields)
            }
            var fields: JSONObject = ["store": .string(store), "accounts": .array(list)]
            if let active { fields["active"] = .string(active) }
            if let session = activeSession {
                fields["uid"] = .string(session.uid)
                if let token = session.token { fields["token"] = .string(token) }
            }
            return fields
        }

        /// Reads the file's fields: the several-account form, or the one-account form before it.
        init(reading fields: FieldReader) throws {
            store = try fields.string("store")
            guard case .array(let accounts)? = fields.fields["accounts"] else {
                let session = Session(
                    uid: try fields.string("uid"), store: store, token: try fields.optionalString("token"))
                (active, sessions) = (session.uid, [session])
                return
            }
            let store = store
            sessions = try accounts.map { value in
                guard case .object(let object) = value else { throw AuthError.notSignedIn }
                let account = FieldReader(fields: object, documentID: nil)
                let device = try account.optionalString("device").flatMap { role in
                    try account.optionalString("devicePassword").map { DeviceLogin(role: role, password: $0) }
                }
                return Session(
                    uid: try account.string("uid"), store: store, token: try account.optionalString("token"),
                    username: try account.optionalString("username"), device: device)
            }
            active = try fields.optionalString("active")
        }

        init(store: String) {
            self.store = store
            sessions = []
        }
    }

    /// A session kept at `path`, acting as the account `actingAs` names when it is given.
    public init(path: String, actingAs: String? = nil) {
        self.path = path
        self.actingAs = actingAs
    }

    /// The file's inode, size and modification time: a rename makes a new inode, an edit a new time.
    func stamp() -> FileIO.Stamp {
        FileIO.stamp(of: path)
    }

    /// The session this process signs in with: the active account's, or with ``actingAs`` that
    /// account's; `nil` when nobody is signed in.
    /// - Throws: ``AuthError/notSignedInAs(_:)`` when ``actingAs`` names no account signed in here.
    func load() throws -> Session? {
        guard let accounts = try loadAccounts() else {
            if let actingAs { throw AuthError.notSignedInAs(actingAs) }
            return nil
        }
        guard let actingAs else { return accounts.activeSession }
        guard let session = accounts.session(named: actingAs) else { throw AuthError.notSignedInAs(actingAs) }
        return session
    }

    /// The device login of the session this process signs in with, for the store to connect as
    /// before anything else is read; `nil` when there is none or the file cannot be read (the
    /// session check then says why).
    public func activeDevice() -> DeviceLogin? {
        // An unreadable file or an unknown `--as` is reported when the session is checked.
        (try? load())?.device
    }

    /// Every account's session; `nil` when the file does not exist.
    func loadAccounts() throws -> Accounts? {
        do {
            guard let bytes = try FileIO.readFile(path) else { return nil }
            guard case .object(let fields) = try JSONValue.parse(bytes) else { throw AuthError.notSignedIn }
            return try Accounts(reading: FieldReader(fields: fields, documentID: nil))
        } catch FileError.cannotOpen(_, let reason) where reason == FileIO.notRegular {
            // A FIFO or a device there is refused, never waited on: say which it is.
            throw AuthError.sessionUnavailable(path: path, reason: reason)
        } catch {
            throw AuthError.sessionUnavailable(
                path: path, reason: "it is unreadable")
        }
    }

    /// Records `accounts`, or removes the file when none is left.
    func save(_ accounts: Accounts) throws {
        guard !accounts.sessions.isEmpty else { return try clear() }
        try write(accounts.fields.serializedObject())
    }

    /// Records `bytes` atomically (temp file + rename), creating the directory (0700).
    private func write(_ bytes: [UInt8]) throws {
        let directory = PathName.parent(path)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let temporary = path + ".new"
            let data = Data(bytes)
            guard
                FileManager.default.createFile(
                    atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteUnknown) }
            guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            throw AuthError.sessionUnavailable(path: path, reason: "it cannot be written")
        }
    }

    /// Signs out: removes the file if it exists.
    func clear() throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw AuthError.sessionUnavailable(path: path, reason: "it cannot be removed")
        }
    }
}
