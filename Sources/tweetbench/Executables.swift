import Foundation

/// The programs the benchmark drives: the release `tweetcli` and `floor` built beside
/// `tweetbench`, and the `sqlite3` shell.
struct Executables: Equatable {
    /// The release `tweetcli`.
    let tweetcli: String
    /// The release `floor`: a Swift executable that imports Foundation and prints one line.
    let floor: String
    /// The `sqlite3` command-line shell.
    let sqlite3: String

    /// Finds `tweetcli` and `floor` in the directory of this process's executable, and `sqlite3` on
    /// `PATH`.
    /// - Throws: ``BenchmarkError/missingExecutable(name:directory:)``, ``BenchmarkError/missingSQLite``.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Executables {
        let directory = ownDirectory()
        func sibling(_ name: String) throws -> String {
            let path = (directory as NSString).appendingPathComponent(name)
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw BenchmarkError.missingExecutable(name: name, directory: directory)
            }
            return path
        }
        let searchPath = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let sqlite3 = searchPath.split(separator: ":").lazy
            .map { (String($0) as NSString).appendingPathComponent("sqlite3") }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let sqlite3 else { throw BenchmarkError.missingSQLite }
        return Executables(tweetcli: try sibling("tweetcli"), floor: try sibling("floor"), sqlite3: sqlite3)
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
