import FoundationEssentials
import TweetCore
import TweetStore
import TweetStoreLocal
import TweetStorePostgres
import TweetSystem

/// Which engine serves a store, chosen where the store is named: TweetCore sees only the protocol.
extension AppServices {
    /// Opens the local store in `storeDirectory`, with its session file under `stateDirectory`.
    /// - Throws: ``StoreError`` when the store cannot be opened.
    /// - Parameter foldThreshold: journal records folded into a segment at once (see ``LocalDocumentStore``).
    /// - Parameter createIfMissing: whether a missing store is created (see ``LocalDocumentStore``).
    /// - Parameter compaction: where merges run (see ``LocalDocumentStore/Compaction``).
    public static func local(
        storeDirectory: String, stateDirectory: String, foldThreshold: Int = 64,
        compaction: LocalDocumentStore.Compaction = .inProcess, createIfMissing: Bool = true, actingAs: String? = nil
    ) throws -> AppServices {
        let directory = PathName.absolute(storeDirectory, workingDirectory: FileManager.default.currentDirectoryPath)
        let store = try LocalDocumentStore(
            directory: directory, indexes: Self.indexes, foldThreshold: foldThreshold, compaction: compaction,
            createIfMissing: createIfMissing)
        let session = SessionStore(
            path: Self.sessionPath(forStore: directory, stateDirectory: stateDirectory), actingAs: actingAs)
        return AppServices(store: store, auth: AuthService(store: store, session: session, storeName: directory))
    }

    /// The name a store's files in the state directory are keyed by: a local store's absolute
    /// path, or a PostgreSQL store's host, port and database (never the password).
    /// - Throws: when `location` is a PostgreSQL URI that does not parse.
    static func stateKey(forStore location: String) throws -> String {
        if PostgresLocation.isLocation(location) { return try PostgresLocation(location).sessionKey }
        return PathName.absolute(location, workingDirectory: FileManager.default.currentDirectoryPath)
    }

    /// Opens the PostgreSQL store at `location`. The session stays on this device, in a file
    /// named after the server's host, port and database (never the password).
    public static func postgres(
        location: PostgresLocation, stateDirectory: String, createIfMissing: Bool = true, actingAs: String? = nil
    ) -> AppServices {
        let session = SessionStore(
            path: Self.sessionPath(forStore: location.sessionKey, stateDirectory: stateDirectory), actingAs: actingAs)
        // On a server that keeps the accounts, the signed-in device connects as its own role.
        var location = location
        if let device = session.activeDevice() { location.device = device }
        let store = PostgresDocumentStore(location: location, indexes: Self.indexes, createIfMissing: createIfMissing)
        let name = location.displayName
        return AppServices(store: store, auth: AuthService(store: store, session: session, storeName: name))
    }
}
