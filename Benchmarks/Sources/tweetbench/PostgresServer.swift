import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The PostgreSQL engine's server: a throwaway cluster in the workspace, made with `initdb` (the
/// C locale and UTF-8, so that text sorts by bytes on the SQL side as it does in tweetcli), listening
/// only on a Unix socket in its directory, with the server's defaults otherwise (`fsync` on).
/// As root, the server runs as the `postgres` user, since `initdb` refuses root.
struct PostgresServer {
    /// PostgreSQL's programs.
    let bin: String
    /// The cluster's directory: `data/`, the socket and the server's log.
    let directory: String
    let launcher: ProcessLauncher
    /// Whether the server's programs run through `runuser -u postgres`.
    private let asPostgres: Bool

    /// Makes the cluster in `workspace/pg` and starts it.
    /// - Throws: ``BenchmarkError`` when a step fails.
    static func start(bin: String, workspace: Workspace, launcher: ProcessLauncher) throws -> PostgresServer {
        let directory = workspace.path("pg")
        let asPostgres = geteuid() == 0
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw BenchmarkError.io(path: directory, reason: "cannot be created for the PostgreSQL cluster")
        }
        if asPostgres {
            // The postgres user needs to reach its directory through the workspace, not to list it.
            guard let user = getpwnam("postgres")?.pointee.pw_uid, chmod(workspace.path, 0o711) == 0,
                chown(directory, user, gid_t.max) == 0
            else {
                throw BenchmarkError.io(
                    path: directory,
                    reason: "cannot be handed to the postgres user (is there one? apt-get install postgresql)")
            }
        }
        let server = PostgresServer(bin: bin, directory: directory, launcher: launcher, asPostgres: asPostgres)
        ProgressLog.note("starting a PostgreSQL cluster in \(directory) …")
        try server.runServerProgram([
            "initdb", "--no-sync", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "-D", server.data,
        ])
        try server.runServerProgram([
            "pg_ctl", "-D", server.data, "-l", (directory as NSString).appendingPathComponent("log"),
            "-o", "-k \(directory) -c listen_addresses=''", "-w", "start",
        ])
        return server
    }

    /// The PostgreSQL engine's server, started in `workspace`; `nil` for the local engine.
    static func startIfNeeded(
        for engine: Engine, executables: Executables, workspace: Workspace, launcher: ProcessLauncher
    ) throws -> PostgresServer? {
        guard engine == .postgresql, let bin = executables.postgresBin else { return nil }
        return try start(bin: bin, workspace: workspace, launcher: launcher)
    }

    private var data: String { (directory as NSString).appendingPathComponent("data") }

    /// The connection URI of `database`, over the cluster's socket.
    func uri(_ database: String) -> String {
        "postgresql:///\(database)?host=\(directory)&user=postgres"
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
            try runServerProgram(["pg_ctl", "-D", data, "-m", "fast", "-w", "stop"])
        } catch {
            ProgressLog.note("the PostgreSQL cluster in \(directory) did not stop: \(error)")
        }
    }

    /// The options every `psql` the benchmark starts takes: no `~/.psqlrc`, quiet, tuples only and
    /// unaligned, and a failure on the first error.
    static let psqlOptions = ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]

    private func runServerProgram(_ arguments: [String]) throws {
        let program = [(bin as NSString).appendingPathComponent(arguments[0])] + arguments.dropFirst()
        try launcher.run(asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + program : program)
    }

}
