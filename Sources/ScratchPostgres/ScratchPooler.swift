import FoundationEssentials
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A PgBouncer (Debian's `pgbouncer`) of one's own in front of a scratch cluster, in transaction
/// pooling mode, listening on a Unix socket in a directory of its own. Any database name reaches
/// the cluster's database of that name; any role of the cluster's is looked up there (`auth_user`,
/// PgBouncer's `auth_query`), and PgBouncer's `pg_hba.conf` says how each must prove itself.
public final class ScratchPooler: Sendable {
    /// Its directory: the socket, the configuration and the log.
    public let directory: String
    /// The port in its socket's name.
    public let port: Int

    private static let program = "/usr/sbin/pgbouncer"

    /// Whether `pgbouncer` is where Debian puts it.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: program) }

    /// Starts one in `directory` (made if need be) in front of the server whose socket is in
    /// `serverSocket`, with `serverConnections` per database and user, used in turn.
    /// - Parameter hba: PgBouncer's `pg_hba.conf`; by default the owner comes in by trust and
    ///   every other role proves its password with SCRAM, which the pooler passes on to the server.
    /// - Throws: ``ScratchCluster/Failure`` when it cannot be configured or does not start.
    public init(
        in directory: String, serverSocket: String, serverConnections: Int = 2,
        hba: String = "local all postgres trust\nlocal all all scram-sha-256\n"
    ) throws(ScratchCluster.Failure) {
        self.directory = directory
        var chosen = 6432
        for _ in 0..<10 {
            let candidate = Int.random(in: 20_000..<60_000)
            if !FileManager.default.fileExists(atPath: "\(directory)/.s.PGSQL.\(candidate)") {
                chosen = candidate
                break
            }
        }
        port = chosen
        let configuration = """
            [databases]
            * = host=\(serverSocket) port=5432

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

            """
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try configuration.write(toFile: directory + "/pgbouncer.ini", atomically: false, encoding: .utf8)
            try "\"postgres\" \"\"\n".write(toFile: directory + "/users.txt", atomically: false, encoding: .utf8)
            try hba.write(toFile: directory + "/pg_hba.conf", atomically: false, encoding: .utf8)
        } catch {
            throw ScratchCluster.Failure(description: "PgBouncer's files cannot be written in \(directory)")
        }
        // PgBouncer will not run as root: as root, it runs as the cluster's user.
        var command = [Self.program, "-d", directory + "/pgbouncer.ini"]
        if geteuid() == 0 {
            guard let user = getpwnam("postgres")?.pointee.pw_uid, chown(directory, user, gid_t.max) == 0 else {
                throw ScratchCluster.Failure(description: "\(directory) cannot be handed to the postgres user")
            }
            command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command
        }
        let started: ChildProcess.Termination
        do {
            started = try ChildProcess.run(
                command[0], arguments: command,
                options: .init(standardOutput: .file(directory + "/start.log"), standardError: .descriptor(1)))
        } catch {
            throw ScratchCluster.Failure(description: "pgbouncer cannot be started: \(error.reason)")
        }
        guard started == .exited(0) else {
            throw ScratchCluster.Failure(description: "pgbouncer did not start; see \(directory)/start.log")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: "\(directory)/.s.PGSQL.\(port)") {
            guard ContinuousClock.now < deadline else {
                throw ScratchCluster.Failure(description: "pgbouncer did not listen; see \(directory)/pgbouncer.log")
            }
            usleep(20_000)
        }
    }

    /// The connection URI of `database` through the pooler, as `user`.
    public func uri(_ database: String, user: String = "postgres") -> String {
        "postgresql:///\(database)?host=\(directory)&port=\(port)&user=\(user)"
    }

    /// Stops it (SIGTERM to the pid in its pid file); one whose pid file is gone has ended already.
    public func stop() {
        // No pid file, or one that cannot be read, is a pooler that has ended.
        guard let text = try? String(contentsOfFile: directory + "/pgbouncer.pid", encoding: .utf8),
            let pid = text.split(whereSeparator: \.isWhitespace).first.flatMap({ Int32($0) })
        else { return }
        kill(pid, SIGTERM)
    }
}
