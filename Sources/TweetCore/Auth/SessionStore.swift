import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps who is signed in, apart from the database, as Firebase Auth keeps its session on the
/// device: one small JSON file per store, mode 0600.
public struct SessionStore: Sendable {
    /// The session file.
    public let path: String

    struct Session: Codable, DocumentDecodable, Equatable {
        var uid: String
        var store: String
        /// The random token whose name (its hash) the store keeps at `sessions/{name}`; a session
        /// file without one, or with one the store does not know, signs nobody in.
        var token: String?

        init(uid: String, store: String, token: String?) {
            self.uid = uid
            self.store = store
            self.token = token
        }

        init(reading fields: FieldReader) throws(FieldReader.Failure) {
            self.init(
                uid: try fields.string("uid"), store: try fields.string("store"),
                token: try fields.optionalString("token"))
        }
    }

    /// A session kept at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The file's inode, size and modification time: a rename makes a new inode, an edit a new time.
    func stamp() -> FileIO.Stamp {
        FileIO.stamp(of: path)
    }

    /// The signed-in uid, or `nil` when nobody is signed in.
    func load() throws -> Session? {
        do {
            guard let bytes = try FileIO.readFile(path) else { return nil }
            guard case .object(let fields) = try JSONValue.parse(bytes) else { throw AuthError.notSignedIn }
            return try Session(reading: FieldReader(fields: fields, documentID: nil))
        } catch {
            throw AuthError.sessionUnavailable(
                path: path, reason: "it is unreadable")
        }
    }

    /// Records `session` atomically (temp file + rename), creating the directory (0700).
    func save(_ session: Session) throws {
        let directory = PathName.parent(path)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let temporary = path + ".new"
            let data = Data(try DocumentCoding.encode(session).serializedObject())
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
