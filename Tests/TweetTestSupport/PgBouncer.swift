import Foundation
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
    package let directory: String
    package let port: Int

    package static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/pgbouncer") }

    /// Starts one with `serverConnections` per database and user.
    package init(serverConnections: Int = 2) throws {
        let socket = try PostgresCluster.state.get()
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "tweetcli-pgbouncer-\(UUID().uuidString.prefix(8))"
            ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var chosen: Int?
        for _ in 0..<10 {
            let candidate = Int.random(in: 20_000..<60_000)
            if !FileManager.default.fileExists(atPath: "\(directory)/.s.PGSQL.\(candidate)") {
                chosen = candidate
                break
            }
        }
        port = chosen ?? 6432
        try """
        [databases]
        * = host=\(socket) port=5432

        [pgbouncer]
        listen_addr =
        listen_port = \(port)
        unix_socket_dir = \(directory)
        auth_type = hba
        auth_hba_file = \(directory)/pg_hba.conf
        auth_file = \(directory)/users.txt
        auth_user = postgres
        pool_mode = transaction
        default_pool_size = \(serverConnections)
        server_round_robin = 1
        max_client_conn = 100
        logfile = \(directory)/pgbouncer.log
        pidfile = \(directory)/pgbouncer.pid

        """.write(toFile: directory + "/pgbouncer.ini", atomically: false, encoding: .utf8)
        try "\"postgres\" \"\"\n".write(toFile: directory + "/users.txt", atomically: false, encoding: .utf8)
        // The owner comes in by trust, as on the cluster behind; every other role proves its
        // password with SCRAM to the pooler, which then signs in to the server with the same keys.
        try "local all postgres trust\nlocal all all scram-sha-256\n".write(
            toFile: directory + "/pg_hba.conf", atomically: false, encoding: .utf8)
        // PgBouncer will not run as root: as root (CI), it runs as the cluster's user.
        var command = ["/usr/sbin/pgbouncer", "-d", directory + "/pgbouncer.ini"]
        if geteuid() == 0 {
            guard let user = getpwnam("postgres")?.pointee.pw_uid, chown(directory, user, gid_t.max) == 0 else {
                throw PgBouncerError("\(directory) cannot be handed to the postgres user")
            }
            command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command
        }
        let started = try ChildProcess.run(
            command[0], arguments: command,
            options: .init(standardOutput: .file(directory + "/start.log"), standardError: .descriptor(1)))
        guard started == .exited(0) else { throw PgBouncerError("pgbouncer did not start; see \(directory)/start.log") }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "\(directory)/.s.PGSQL.\(port)") {
            guard Date() < deadline else {
                throw PgBouncerError("pgbouncer did not listen; see \(directory)/pgbouncer.log")
            }
            usleep(20_000)
        }
    }

    /// A new, empty database on the cluster, and the URI that reaches it through this pooler.
    package func freshDatabase() throws -> String {
        let name = "bouncer_\(getpid())_\(UUID().uuidString.prefix(8).lowercased())"
        let socket = try PostgresCluster.state.get()
        try PostgresCluster.createDatabase(name, socket: socket)
        return "postgresql:///\(name)?host=\(directory)&port=\(port)&user=postgres"
    }

    deinit {
        // Best effort: a pooler whose pid file is gone has ended already.
        if let text = try? String(contentsOfFile: directory + "/pgbouncer.pid", encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGTERM)
        }
        try? FileManager.default.removeItem(atPath: directory)  // Best effort: a temporary directory.
    }
}

package struct PgBouncerError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
