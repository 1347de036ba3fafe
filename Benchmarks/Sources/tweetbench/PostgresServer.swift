import Foundation
import ScratchPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The PostgreSQL engine's server: a throwaway cluster in the workspace (ScratchPostgres's
/// ``ScratchCluster``: UTF-8 and the C locale), with the server's defaults otherwise (`fsync` on),
/// as a user's server would run, reached by tweetcli and psql alike as ``Connection`` says.
struct PostgresServer {
    /// How the clients reach the server. The benchmark's own statements (creating, vacuuming and
    /// measuring databases) always go over the cluster's socket.
    enum Connection: String, Equatable {
        /// A Unix socket, as the owner (`trust`).
        case socket
        /// TCP on the loopback with TLS (`sslmode=verify-full` against the workspace's certificate
        /// authority) and a SCRAM-SHA-256 password, as a student's client on another machine.
        case tls
        /// A PgBouncer in transaction pooling mode, on a Unix socket, as the owner.
        case pgbouncer

        /// How the report names it.
        var summary: String {
            switch self {
            case .socket: return "over a Unix socket"
            case .tls: return "over TCP on the loopback with TLS (verify-full) and a SCRAM-SHA-256 password"
            case .pgbouncer: return "through PgBouncer (transaction pooling, 2 server connections) on a Unix socket"
            }
        }
    }

    /// PostgreSQL's programs.
    var bin: String { cluster.bin }
    /// The cluster's directory: `data/`, the socket and the server's log.
    var directory: String { cluster.directory }
    let launcher: ProcessLauncher
    let connection: Connection
    private let cluster: ScratchCluster
    /// The TCP port and certificate authority, over TLS.
    private let tls: (port: Int, authority: String)?
    private let pooler: ScratchPooler?

    /// The password the owner proves over TLS; the benchmark's server listens only on the loopback.
    private static let password = "tweetbench"

    /// Makes the cluster in `workspace/pg`, starts it, and whatever `connection` needs in front.
    /// - Throws: ``BenchmarkError`` when a step fails.
    static func start(
        bin: String, connection: Connection, workspace: Workspace, launcher: ProcessLauncher
    ) throws -> PostgresServer {
        let directory = workspace.path("pg")
        // As root the server runs as the postgres user, who must reach its directory through the
        // workspace, not list it.
        if geteuid() == 0, chmod(workspace.path, 0o711) != 0 {
            throw BenchmarkError.io(path: workspace.path, reason: "cannot be opened to the postgres user")
        }
        ProgressLog.note("starting a PostgreSQL cluster in \(directory), reached \(connection.summary) …")
        do {
            return try start(in: directory, bin: bin, connection: connection, workspace: workspace, launcher: launcher)
        } catch let failure as ScratchCluster.Failure {
            throw BenchmarkError.io(path: directory, reason: failure.description)
        }
    }

    private static func start(
        in directory: String, bin: String, connection: Connection, workspace: Workspace, launcher: ProcessLauncher
    ) throws -> PostgresServer {
        let cluster = try ScratchCluster.create(in: directory, bin: bin)
        switch connection {
        case .socket:
            try cluster.start()
            return PostgresServer(launcher: launcher, connection: connection, cluster: cluster, tls: nil, pooler: nil)
        case .tls:
            let certificates = try ScratchCertificates.make(
                in: directory, serverFiles: cluster.data, addresses: ["127.0.0.1"])
            let hba = cluster.data + "/pg_hba.conf"
            do {
                try "local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n".write(
                    toFile: hba, atomically: false, encoding: .utf8)
            } catch {
                throw BenchmarkError.io(path: hba, reason: "cannot be written")
            }
            let port = try freePort()
            try cluster.start(options: "-c listen_addresses=127.0.0.1 -c port=\(port) -c ssl=on")
            let server = PostgresServer(
                launcher: launcher, connection: connection, cluster: cluster, tls: (port, certificates.authority),
                pooler: nil)
            try server.psql(database: "postgres", "ALTER ROLE postgres PASSWORD '\(password)'")
            return server
        case .pgbouncer:
            try cluster.start()
            let pooler = try ScratchPooler(
                in: workspace.path("pgbouncer"), serverSocket: directory, hba: "local all all trust\n")
            return PostgresServer(
                launcher: launcher, connection: connection, cluster: cluster, tls: nil, pooler: pooler)
        }
    }

    /// A TCP port on the loopback that nothing listens on now.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else {
            throw BenchmarkError.io(path: "a TCP socket", reason: String(cString: strerror(errno)))
        }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            throw BenchmarkError.io(path: "a loopback port", reason: String(cString: strerror(errno)))
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The PostgreSQL engine's server, started in `workspace`; `nil` for the local engine.
    static func startIfNeeded(
        for options: BenchmarkOptions, executables: Executables, workspace: Workspace, launcher: ProcessLauncher
    ) throws -> PostgresServer? {
        guard options.engine == .postgresql, let bin = executables.postgresBin else { return nil }
        return try start(bin: bin, connection: options.connection, workspace: workspace, launcher: launcher)
    }

    /// The connection URI of `database` for tweetcli and psql, the way ``connection`` says.
    func uri(_ database: String) -> String {
        if let tls {
            return "postgresql://postgres:\(Self.password)@localhost:\(tls.port)/\(database)?sslmode=verify-full"
                + "&sslrootcert=\(tls.authority)"
        }
        return pooler?.uri(database) ?? cluster.uri(database)
    }

    /// The connection URI of `database` over the cluster's socket, for the benchmark's own statements.
    private func socketURI(_ database: String) -> String {
        cluster.uri(database) + (tls.map { "&port=\($0.port)" } ?? "")
    }

    /// Creates an empty database named `name` (letters, digits and `_`, made by the benchmark).
    /// - Throws: ``BenchmarkError/commandFailed(command:status:stderr:)``.
    func createDatabase(_ name: String) throws {
        try psql(database: "postgres", "CREATE DATABASE \(name)")
    }

    /// `sql` run by `psql` on `database`, and what it printed (unaligned, tuples only).
    /// - Throws: ``BenchmarkError`` when psql fails.
    @discardableResult
    func psql(database: String, _ sql: String) throws -> String {
        let output = try launcher.capture(
            [(bin as NSString).appendingPathComponent("psql")] + Self.psqlOptions + [
                "-d", socketURI(database), "-c", sql,
            ])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The size of `database` on disk, in bytes (`pg_database_size`).
    /// - Throws: ``BenchmarkError`` when psql fails or prints something else than a number.
    func size(of database: String) throws -> Int {
        let text = try psql(database: database, "SELECT pg_database_size(current_database())")
        guard let bytes = Int(text) else {
            throw BenchmarkError.unexpectedOutput(command: "psql on \(database)", reason: "'\(text)' is not a size")
        }
        return bytes
    }

    /// Stops the pooler and the server (fast shutdown); a failure is only noted, so that the report
    /// still prints.
    func stop() {
        pooler?.stop()
        do {
            try cluster.stop()
        } catch {
            ProgressLog.note("the PostgreSQL cluster in \(directory) did not stop: \(error)")
        }
    }

    /// The options every `psql` the benchmark starts takes: no `~/.psqlrc`, quiet, tuples only and
    /// unaligned, and a failure on the first error.
    static let psqlOptions = ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]

}
