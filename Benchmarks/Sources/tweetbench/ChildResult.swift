import Foundation

/// How a child process ended, how long it took and the most memory it held.
struct ChildResult {
    /// How the child ended.
    enum Termination: Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal killed it.
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let status): return "exit status \(status)"
            case .signaled(let signal): return "killed by signal \(signal)"
            }
        }
    }

    /// The executable's path and its arguments.
    let commandLine: [String]
    let termination: Termination
    /// From just before `posix_spawn` to just after `wait4`, on the monotonic clock.
    let wallNanoseconds: UInt64
    /// The child's peak resident set size (`ru_maxrss`, KiB on Linux).
    let peakRSSKiB: Int
    /// Blocks the child wrote to file systems (`ru_oublock`, 512-byte units on Linux).
    var blocksWritten = 0
    /// Blocks the child read from file systems, that is from the disk and not the page cache
    /// (`ru_inblock`, 512-byte units on Linux).
    var blocksRead = 0
    /// Page faults the child waited on the disk for (`ru_majflt`).
    var majorFaults = 0
    /// The file holding what the child wrote on standard error.
    let errorPath: String

    /// Whether the child exited with status 0.
    var succeeded: Bool { termination == .exited(0) }

    /// The wall time in seconds.
    var seconds: Double { Double(wallNanoseconds) / 1e9 }

    /// Returns `self` when the child succeeded.
    /// - Throws: ``BenchmarkError/commandFailed(command:status:stderr:)`` with the child's stderr.
    @discardableResult
    func requireSuccess() throws -> ChildResult {
        guard succeeded else {
            // The child failed already; an unreadable stderr file only leaves its text out of the message.
            let stderr = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw BenchmarkError.commandFailed(
                command: Self.display(commandLine), status: termination.description,
                stderr: stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return self
    }

    /// A command line as a shell would show it: the executable's name, arguments quoted when needed.
    static func display(_ commandLine: [String]) -> String {
        let words = commandLine.enumerated().map { index, word in
            let word = index == 0 ? (word as NSString).lastPathComponent : word
            let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=@:%+,".contains($0) }
            return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }
        let line = words.joined(separator: " ")
        return line.count > 300 ? String(line.prefix(300)) + "…" : line
    }
}
