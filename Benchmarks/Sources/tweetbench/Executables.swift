import Foundation

/// The programs the benchmark drives: the release `tweetcli` and `floor` built beside
/// `tweetbench`, and the peer database's programs: the `sqlite3` shell, or PostgreSQL's `initdb`,
/// `pg_ctl` and `psql`.
struct Executables: Equatable {
    /// The release `tweetcli`.
    let tweetcli: String
    /// The release `floor`: a Swift executable that imports Foundation and prints one line.
    let floor: String
    /// The peer's shell: `sqlite3` for the local engine, `psql` for PostgreSQL.
    let peerShell: String
    /// The directory of PostgreSQL's server programs, for the PostgreSQL engine.
    let postgresBin: String?
    /// How tweetcli and the floor carry the Swift runtime: the same way, or their ratio would
    /// compare two different start-ups.
    var swiftRuntime = SwiftRuntime.shared

    /// How a binary gets the Swift runtime and Foundation.
    enum SwiftRuntime: String, Equatable {
        /// Linked in (`--static-swift-stdlib`).
        case linkedIn = "the Swift runtime and the parts of Foundation they use linked in (--static-swift-stdlib)"
        /// The toolchain's shared libraries, loaded at start-up.
        case shared = "the Swift runtime and Foundation as the toolchain's shared libraries"

        /// The dynamic loader's list of what `binary` needs (`LD_TRACE_LOADED_OBJECTS`, what `ldd`
        /// asks for: the binary is loaded, not run): with `libswiftCore.so` in it, the runtime is shared.
        static func of(_ binary: String) throws -> SwiftRuntime {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.environment = ["LD_TRACE_LOADED_OBJECTS": "1"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                throw BenchmarkError.spawnFailed(command: binary, reason: "\(error)")
            }
            let listed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: listed, as: UTF8.self).contains("libswiftCore.so") ? .shared : .linkedIn
        }
    }

    /// Finds `tweetcli` and `floor` in the directory of this process's executable, and `sqlite3` on
    /// `PATH` (the local engine) or PostgreSQL's programs in `/usr/lib/postgresql/VERSION/bin`, the
    /// newest version first (the PostgreSQL engine).
    /// - Throws: ``BenchmarkError/missingExecutable(name:directory:)``, ``BenchmarkError/missingPeer(_:)``.
    static func locate(
        engine: Engine, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Executables {
        let directory = ownDirectory()
        func sibling(_ name: String) throws -> String {
            let path = (directory as NSString).appendingPathComponent(name)
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw BenchmarkError.missingExecutable(name: name, directory: directory)
            }
            return path
        }
        let (tweetcli, floor) = (try sibling("tweetcli"), try sibling("floor"))
        let runtime = try SwiftRuntime.of(tweetcli)
        guard try SwiftRuntime.of(floor) == runtime else { throw BenchmarkError.mixedLinking(directory: directory) }
        var found = try peers(engine, environment: environment, tweetcli: tweetcli, floor: floor)
        found.swiftRuntime = runtime
        return found
    }

    private static func peers(_ engine: Engine, environment: [String: String], tweetcli: String, floor: String) throws
        -> Executables
    {
        switch engine {
        case .local:
            let searchPath = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            let sqlite3 = searchPath.split(separator: ":").lazy
                .map { (String($0) as NSString).appendingPathComponent("sqlite3") }
                .first { FileManager.default.isExecutableFile(atPath: $0) }
            guard let sqlite3 else { throw BenchmarkError.missingPeer(.local) }
            return Executables(tweetcli: tweetcli, floor: floor, peerShell: sqlite3, postgresBin: nil)
        case .postgresql:
            // A directory that cannot be listed holds no PostgreSQL: the error below says so.
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
            let bin = versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }
                .map { "/usr/lib/postgresql/\($0)/bin" }
                .first { path in
                    ["initdb", "pg_ctl", "psql"].allSatisfy {
                        FileManager.default.isExecutableFile(atPath: (path as NSString).appendingPathComponent($0))
                    }
                }
            guard let bin else { throw BenchmarkError.missingPeer(.postgresql) }
            return Executables(
                tweetcli: tweetcli, floor: floor, peerShell: (bin as NSString).appendingPathComponent("psql"),
                postgresBin: bin)
        }
    }

    /// The directory of the running executable: `/proc/self/exe` resolved, else `argv[0]`'s.
    private static func ownDirectory() -> String {
        let executable =
            // Without /proc, argv[0] locates the executable instead.
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments.first ?? ".").standardizedFileURL.path
        return (executable as NSString).deletingLastPathComponent
    }
}
