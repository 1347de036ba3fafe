import Foundation
import Synchronization
import TweetStore
import TweetStorePostgres
import TweetSystem

/// A throwaway PostgreSQL cluster for the tests: made with `initdb --no-sync -A trust` in a
/// temporary directory, listening only on a Unix socket there (`-k DIR -c listen_addresses=''`,
/// `-F`), started on first use and stopped when the test process exits. As root (CI), the server
/// runs as the `postgres` user, since `initdb` refuses root. Each store gets a schema of its own,
/// so tests running at once never see each other's documents.
///
/// `TWEETCLI_POSTGRES_TESTS=require` (set by `.ci/run`) makes a cluster that cannot start a failure
/// rather than a skip.
package enum PostgresCluster {
    /// The running cluster's socket directory, or why there is none.
    package static let state: Result<String, ClusterError> = start()

    package struct ClusterError: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    /// Whether the PostgreSQL tests can run here.
    package static var isAvailable: Bool {
        if case .success = state { return true }
        return false
    }

    /// Whether a missing cluster must fail the run.
    package static var isRequired: Bool { ProcessInfo.processInfo.environment["TWEETCLI_POSTGRES_TESTS"] == "require" }

    private static let schemas = Atomic<Int>(0)

    /// A connection URI for a fresh, empty schema of the test database.
    package static func freshLocation() throws -> String {
        let socket = try state.get()
        let schema = "t\(getpid())_\(schemas.add(1, ordering: .relaxed).newValue)"
        let admin = try PostgresConnection(try PostgresLocation(uri(socket, schema: nil)))
        try admin.execute("CREATE SCHEMA \(schema)")  // a name made here, never from outside
        return uri(socket, schema: schema)
    }

    package static func uri(_ socket: String, schema: String?) -> String {
        var text = "postgresql:///tweetcli?host=\(socket)&user=postgres"
        if let schema { text += "&options=-csearch_path%3D\(schema)" }
        return text
    }

    /// The directory holding PostgreSQL's programs: `pg_config --bindir`, else Debian's place.
    private static func binaries() -> String? {
        let candidates =
            (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?
            .sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin" } ?? []
        return candidates.first { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") }
    }

    nonisolated(unsafe) private static var root = ""
    nonisolated(unsafe) private static var dataDirectory = ""
    nonisolated(unsafe) private static var ctl = ""
    /// The directory of PostgreSQL's programs.
    package nonisolated(unsafe) private(set) static var bin = ""
    nonisolated(unsafe) private static var asPostgres = false

    private static func start() -> Result<String, ClusterError> {
        guard let found = binaries() else {
            return .failure(ClusterError(description: "no initdb in /usr/lib/postgresql"))
        }
        root = (NSTemporaryDirectory() as NSString).appendingPathComponent("tweetcli-pg-\(getpid())")
        try? FileManager.default.removeItem(atPath: root)
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            return .failure(ClusterError(description: "cannot make \(root)"))
        }
        asPostgres = geteuid() == 0
        if asPostgres {
            guard run(["/bin/chown", "postgres", root]) == 0 else {
                return .failure(
                    ClusterError(description: "running as root and cannot hand \(root) to the postgres user"))
            }
        }
        bin = found
        dataDirectory = root + "/data"
        ctl = bin + "/pg_ctl"
        guard run([bin + "/initdb", "--no-sync", "-A", "trust", "-U", "postgres", "-D", dataDirectory]) == 0 else {
            return .failure(ClusterError(description: "initdb failed"))
        }
        let options = "-k \(root) -c listen_addresses='' -F -c max_connections=200"
        guard run([ctl, "-D", dataDirectory, "-l", root + "/log", "-o", options, "-w", "start"]) == 0 else {
            return .failure(ClusterError(description: "the server did not start (its log is \(root)/log)"))
        }
        atexit {
            _ = PostgresCluster.run([
                PostgresCluster.ctl, "-D", PostgresCluster.dataDirectory, "-m", "immediate", "stop",
            ])
            // Best effort at exit: the throwaway cluster's files, which would pile up run after run.
            try? FileManager.default.removeItem(atPath: PostgresCluster.root)
        }
        do {
            let admin = try PostgresConnection(
                try PostgresLocation(uri(root, schema: nil).replacingOccurrences(of: "/tweetcli?", with: "/postgres?")))
            try admin.execute("CREATE DATABASE tweetcli")
        } catch {
            return .failure(ClusterError(description: "cannot create the test database: \(error)"))
        }
        return .success(root)
    }

    /// Runs a program (as the postgres user when root), quietly; returns its exit status, or -1.
    /// Not Foundation's Process: it waits on a run loop, which a static initializer on a test
    /// thread does not turn.
    @discardableResult
    package static func run(_ arguments: [String]) -> Int32 {
        let command =
            asPostgres && arguments[0] != "/bin/chown"
            ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments : arguments
        guard case .exited(let status)? = try? ChildProcess.run(command[0], arguments: command) else { return -1 }
        return status
    }
}
