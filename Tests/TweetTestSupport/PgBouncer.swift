import Foundation
import ScratchPostgres
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A PgBouncer of the test's own in front of the tests' PostgreSQL cluster, in transaction pooling
/// mode with few server connections used in turn, so that a client's transactions land on one
/// server connection, then another, as they do behind a busy pooler.
/// It listens on a Unix socket in a directory of its own; any database name reaches the cluster's
/// database of that name, and any role of the cluster's is looked up there (`auth_user`, PgBouncer's
/// `auth_query`), as the roles a database set up for many people makes for each device must be.
package final class PgBouncer {
    private let pooler: ScratchPooler
    package var directory: String { pooler.directory }
    package var port: Int { pooler.port }

    package static var isAvailable: Bool { ScratchPooler.isAvailable }

    /// Starts one with `serverConnections` per database and user.
    package init(serverConnections: Int = 2) throws {
        let socket = try PostgresCluster.state.get()
        let directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "tweetcli-pgbouncer-\(UUID().uuidString.prefix(8))"
            ).path
        pooler = try ScratchPooler(in: directory, serverSocket: socket, serverConnections: serverConnections)
    }

    /// A new, empty database on the cluster, and the URI that reaches it through this pooler.
    package func freshDatabase() throws -> String {
        let name = "bouncer_\(getpid())_\(UUID().uuidString.prefix(8).lowercased())"
        let socket = try PostgresCluster.state.get()
        try PostgresCluster.createDatabase(name, socket: socket)
        return pooler.uri(name)
    }

    deinit {
        pooler.stop()
        try? FileManager.default.removeItem(atPath: directory)  // Best effort: a temporary directory.
    }
}
