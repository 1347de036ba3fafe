import Foundation
import ScratchPostgres
import Synchronization
import TweetStore
import TweetStorePostgres

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

    /// The guest's connection URI for a fresh database set up for many people (`admin setup`), so
    /// that every client connects as its own account's role, under the rules, as students do.
    package static func setUpLocation() throws -> String {
        let socket = try state.get()
        let name = "s\(getpid())_\(schemas.add(1, ordering: .relaxed).newValue)"
        try createDatabase(name, socket: socket)
        let owner = uri(socket, schema: nil).replacingOccurrences(of: "/tweetcli?", with: "/\(name)?")
        let setup = try CLIRunner(location: owner).run(["admin", "setup"])
        guard setup.status == 0, let guest = guestLocation(printedBy: setup) else {
            throw ClusterError(description: "admin setup failed: \(setup.stderr)")
        }
        return guest
    }

    /// The guest's connection string that `admin setup` printed, if it did.
    package static func guestLocation(printedBy setup: CLIRunner.Result) -> String? {
        setup.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("postgresql://") }
    }

    /// Makes a database of the cluster (`name` is the test's own, never from outside).
    package static func createDatabase(_ name: String, socket: String) throws {
        let admin = try PostgresConnection(
            try PostgresLocation(uri(socket, schema: nil).replacingOccurrences(of: "/tweetcli?", with: "/postgres?")))
        try admin.execute("CREATE DATABASE \(name)")
    }

    package static func uri(_ socket: String, schema: String?) -> String {
        var text = "postgresql:///tweetcli?host=\(socket)&user=postgres"
        if let schema { text += "&options=-csearch_path%3D\(schema)" }
        return text
    }

    /// The shared cluster, once started.
    nonisolated(unsafe) private static var cluster: ScratchCluster?

    private static func start() -> Result<String, ClusterError> {
        let root = (NSTemporaryDirectory() as NSString).appendingPathComponent("tweetcli-pg-\(getpid())")
        try? FileManager.default.removeItem(atPath: root)  // a stale one of an earlier process with this pid
        do {
            let made = try ScratchCluster.create(in: root)
            // The owner comes in by trust; every other role (the accounts and devices of a database
            // set up for many people) must prove its password, as on a real server.
            try """
            local all postgres trust
            local all all scram-sha-256

            """.write(toFile: root + "/data/pg_hba.conf", atomically: false, encoding: .utf8)
            try made.start(fsync: false, options: "-c max_connections=200")
            cluster = made
        } catch {
            return .failure(ClusterError(description: String(describing: error)))
        }
        atexit {
            try? PostgresCluster.cluster?.stop(immediately: true)  // best effort at exit
            // Best effort at exit too: the throwaway cluster's files, which would pile up run after run.
            if let directory = PostgresCluster.cluster?.directory {
                try? FileManager.default.removeItem(atPath: directory)
            }
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
}
