import Foundation

/// What can stop the benchmark. Every message is one sentence that says what to do next.
enum BenchmarkError: Error, Equatable, LocalizedError {
    /// The command line cannot be run as written (exit 64 with the usage line).
    case usage(String)
    /// A release binary the benchmark drives is not beside `tweetbench`.
    case missingExecutable(name: String, directory: String)
    /// tweetcli and the floor carry the Swift runtime differently.
    case mixedLinking(directory: String)
    /// The engine's peer database programs are not installed: `sqlite3`, or PostgreSQL's.
    case missingPeer(Engine)
    /// A child process could not be started.
    case spawnFailed(command: String, reason: String)
    /// A child process exited with a failure; `stderr` is what it printed there.
    case commandFailed(command: String, status: String, stderr: String)
    /// A child process succeeded but printed something the benchmark cannot use.
    case unexpectedOutput(command: String, reason: String)
    /// A line of `tweetcli export` is not `{"data":{…},"path":"collection/id"}`.
    case badExportLine(number: Int, reason: String)
    /// Reading or writing a file or pipe failed.
    case io(path: String, reason: String)

    var errorDescription: String? {
        switch self {
        case .usage(let message):
            return message
        case .missingExecutable(let name, let directory):
            return "the release binary '\(name)' is not in \(directory); build it with "
                + "'swift build -c release --static-swift-stdlib --package-path Benchmarks' and run 'Benchmarks/.build/release/tweetbench' again"
        case .mixedLinking(let directory):
            return "tweetcli and the floor in \(directory) carry the Swift runtime differently; build both with one "
                + "'swift build -c release --static-swift-stdlib --package-path Benchmarks' and run 'Benchmarks/.build/release/tweetbench' again"
        case .missingPeer(.local):
            return "the sqlite3 command-line shell is not on PATH; install it (apt-get install sqlite3) and retry"
        case .missingPeer(.postgresql):
            return "PostgreSQL's initdb, pg_ctl and psql are not in /usr/lib/postgresql/VERSION/bin; install them "
                + "(apt-get install postgresql) and retry"
        case .spawnFailed(let command, let reason):
            return "cannot start \(command): \(reason)"
        case .commandFailed(let command, let status, let stderr):
            let output = stderr.isEmpty ? "it printed nothing on stderr" : "it printed:\n\(stderr)"
            return "\(command) failed (\(status)); \(output)"
        case .unexpectedOutput(let command, let reason):
            return "\(command) printed something unexpected: \(reason)"
        case .badExportLine(let number, let reason):
            return "line \(number) of 'tweetcli export' cannot be converted: \(reason)"
        case .io(let path, let reason):
            return "\(path) \(reason)"
        }
    }
}
