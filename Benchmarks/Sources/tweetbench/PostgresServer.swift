import Foundation
import ScratchPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The PostgreSQL engine's server: a throwaway cluster in the workspace (ScratchPostgres's
/// ``ScratchCluster``: UTF-8 and the C locale, a Unix socket only), with the server's defaults
/// otherwise (`fsync` on), as a user's server would run.
struct PostgresServer {
    /// PostgreSQL's programs.
    var bin: String { cluster.bin }
    /// The cluster's directory: `data/`, the socket and the server's log.
    var directory: String { cluster.directory }
    let launcher: ProcessLauncher
    private let cluster: ScratchCluster

    /// Makes the cluster in `workspace/pg` and starts it.
    /// - Throws: ``BenchmarkError`` when a step fails.
    static func start(bin: String, workspace: Workspace, launcher: ProcessLauncher) throws -> PostgresServer {
        let directory = workspace.path("pg")
        // As root the server runs as the postgres user, who must reach its directory through the
        // workspace, not list it.
        if geteuid() == 0, chmod(workspace.path, 0o711) != 0 {
            throw BenchmarkError.io(path: workspace.path, reason: "cannot be opened to the postgres user")
        }
        ProgressLog.note("starting a PostgreSQL cluster in \(directory) …")
        do {
            let cluster = try ScratchCluster.create(in: directory, bin: bin)
            try cluster.start()
            return PostgresServer(launcher: launcher, cluster: cluster)
        } catch {
            throw BenchmarkError.io(path: directory, reason: error.description)
        }
    }

    /// The PostgreSQL engine's server, started in `workspace`; `nil` for the local engine.
    static func startIfNeeded(
        for engine: Engine, executables: Executables, workspace: Workspace, launcher: ProcessLauncher
    ) throws -> PostgresServer? {
        guard engine == .postgresql, let bin = executables.postgresBin else { return nil }
        return try start(bin: bin, workspace: workspace, launcher: launcher)
    }

    /// The connection URI of `database`, over the cluster's socket.
    func uri(_ database: String) -> String { cluster.uri(database) }

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
            [(bin as NSString).appendingPathComponent("psql")] + Self.psqlOptions + ["-d", uri(database), "-c", sql])
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

    /// Stops the server (fast shutdown); a failure is only noted, so that the report still prints.
    func stop() {
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
