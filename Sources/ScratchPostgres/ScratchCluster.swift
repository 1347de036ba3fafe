import FoundationEssentials
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL cluster, for the tests and the benchmarks: made with `initdb` (UTF-8 and
/// the C locale, so that text sorts by bytes on the server as it does in tweetcli) in a directory
/// of its own, listening only on a Unix socket there, with `trust` authentication. When this
/// process is root, the server's programs run as the `postgres` user, since `initdb` refuses root.
public struct ScratchCluster: Sendable {
    /// Why the cluster could not be made, started or stopped.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The directory of PostgreSQL's programs.
    public let bin: String
    /// The cluster's directory: its socket, `data/`, and each program's output (`initdb.log`…).
    public let directory: String
    private let asPostgres: Bool

    /// The cluster's data directory, where its `pg_hba.conf` and TLS files go.
    public var data: String { directory + "/data" }

    /// The newest PostgreSQL's programs in Debian's place, `/usr/lib/postgresql/VERSION/bin`.
    public static func binaries() -> String? {
        // No such directory is no PostgreSQL installed, which `nil` says.
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.sorted { (Int($0) ?? 0, $0) > (Int($1) ?? 0, $1) }.map { "/usr/lib/postgresql/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    /// Makes a cluster in `directory`, which is created (and handed to the postgres user when
    /// this process is root); the server is not started.
    /// - Throws: ``Failure`` when there is no PostgreSQL or a step fails.
    public static func create(in directory: String, bin: String? = nil) throws(Failure) -> ScratchCluster {
        guard let bin = bin ?? binaries() else {
            throw Failure(description: "PostgreSQL's initdb is not in /usr/lib/postgresql (apt-get install postgresql)")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "\(directory) cannot be made for a PostgreSQL cluster")
        }
        let asPostgres = geteuid() == 0
        if asPostgres {
            guard let user = getpwnam("postgres")?.pointee.pw_uid, chown(directory, user, gid_t.max) == 0 else {
                throw Failure(description: "\(directory) cannot be handed to the postgres user (is there one?)")
            }
        }
        let cluster = ScratchCluster(bin: bin, directory: directory, asPostgres: asPostgres)
        try cluster.run(
            "initdb", ["--no-sync", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "-D", cluster.data])
        return cluster
    }

    /// Starts the server and waits until it accepts connections.
    /// - Parameters:
    ///   - fsync: `false` for data that is thrown away anyway (the tests'); the benchmarks keep it.
    ///   - options: more of the server's options (`-c max_connections=200`).
    ///   - launcher: a program and its arguments that run `pg_ctl` (`ip netns exec NAME`, for a
    ///     server in a network namespace of its own).
    /// - Throws: ``Failure``, naming the server's log.
    public func start(fsync: Bool = true, options: String = "", launcher: [String] = []) throws(Failure) {
        let server =
            "-k \(directory) -c listen_addresses=''" + (fsync ? "" : " -F") + (options.isEmpty ? "" : " " + options)
        try run(
            "pg_ctl", ["-D", data, "-l", directory + "/server.log", "-o", server, "-w", "start"], launcher: launcher)
    }

    /// Stops the server: at once, as a crash would (`immediate`), or after its clients end (`fast`).
    /// - Throws: ``Failure`` when `pg_ctl` fails.
    public func stop(immediately: Bool = false) throws(Failure) {
        try run("pg_ctl", ["-D", data, "-m", immediately ? "immediate" : "fast", "-w", "stop"])
    }

    /// The connection URI of `database` over the cluster's socket, as the postgres user.
    public func uri(_ database: String) -> String {
        "postgresql:///\(database)?host=\(directory)&user=postgres"
    }

    /// Runs one of PostgreSQL's programs, as the postgres user when this process is root, with its
    /// output in `PROGRAM.log` in the cluster's directory.
    /// - Throws: ``Failure`` when it cannot start or does not exit with 0.
    private func run(_ program: String, _ arguments: [String], launcher: [String] = []) throws(Failure) {
        let path = bin + "/" + program
        let command =
            launcher
            + (asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments)
        let log = directory + "/" + program + ".log"
        let ending: ChildProcess.Termination
        do {
            ending = try ChildProcess.run(
                command[0], arguments: command,
                options: .init(standardOutput: .file(log), standardError: .descriptor(1)))
        } catch {
            throw Failure(description: "\(program) cannot be started: \(error.reason)")
        }
        guard ending == .exited(0) else {
            throw Failure(description: "\(program) failed (\(ending)); its output is in \(log)")
        }
    }
}
