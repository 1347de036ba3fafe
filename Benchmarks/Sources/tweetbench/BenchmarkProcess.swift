import Foundation
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A command the benchmark runs, started through TweetSystem's ``ChildProcess`` and reaped with
/// `wait4`, which, unlike Foundation's `Process`, reports the child's peak memory (`ru_maxrss`).
struct BenchmarkProcess {
    /// Where the child's standard input comes from.
    enum Input: Equatable {
        /// `/dev/null`: the child reads end of file.
        case null
        /// These bytes, then end of file; at most `PIPE_BUF` bytes (a password, not a data set).
        case bytes([UInt8])
        /// A pipe whose write end is ``BenchmarkProcess/standardInput``.
        case pipe
        /// The file at this path.
        case file(String)
    }

    /// Where the child's standard output goes.
    enum Output: Equatable {
        /// `/dev/null`.
        case null
        /// A pipe whose read end is ``BenchmarkProcess/standardOutput``.
        case pipe
        /// A new file at this path (truncated if it is there).
        case file(String)
    }

    /// The executable's path and its arguments.
    let commandLine: [String]
    /// The child.
    let child: ChildProcess
    /// The write end of the child's standard input, for ``Input/pipe``; the caller closes it.
    let standardInput: Int32?
    /// The read end of the child's standard output, for ``Output/pipe``; the caller closes it.
    let standardOutput: Int32?
    /// The file that receives the child's standard error, shown when the child fails.
    let errorPath: String
    /// When the child was started, on the monotonic clock.
    private let startNanoseconds: UInt64

    /// Starts `commandLine` (an absolute executable path, then the arguments).
    /// - Parameters:
    ///   - commandLine: the executable's path and the arguments.
    ///   - environment: the child's whole environment, as `NAME=value` strings.
    ///   - input: the child's standard input.
    ///   - output: the child's standard output; standard error always goes to `errorPath`.
    ///   - errorPath: a file that is truncated and receives the child's standard error.
    /// - Throws: ``BenchmarkError/spawnFailed(command:reason:)``.
    init(commandLine: [String], environment: [String], input: Input, output: Output, errorPath: String) throws {
        let command = ChildResult.display(commandLine)
        guard let executable = commandLine.first else {
            throw BenchmarkError.spawnFailed(command: "an empty command", reason: "there is nothing to run")
        }
        func pipe() throws -> (reader: Int32, writer: Int32) {
            do { return try ChildProcess.pipe() } catch {
                throw BenchmarkError.spawnFailed(command: command, reason: error.reason)
            }
        }
        // Descriptors the child gets as its own: the parent closes its copies once it has spawned.
        var childEnds: [Int32] = []
        defer { childEnds.forEach { _ = close($0) } }
        var inputWriter: Int32?
        var outputReader: Int32?
        var options = ChildProcess.Options(
            standardError: .file(errorPath), defaultSignals: [SIGPIPE], environment: environment)

        switch input {
        case .null:
            options.standardInput = .null
        case .bytes(let bytes):
            guard bytes.count <= Int(PIPE_BUF) else {
                throw BenchmarkError.spawnFailed(command: command, reason: "its input is too long for a pipe's buffer")
            }
            let (reader, writer) = try pipe()
            childEnds.append(reader)
            // The pipe's buffer holds it all, so this never blocks, even before the child runs.
            let written = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            close(writer)
            guard written == bytes.count else {
                throw BenchmarkError.spawnFailed(command: command, reason: "its input cannot be written to a pipe")
            }
            options.standardInput = .descriptor(reader)
        case .pipe:
            let (reader, writer) = try pipe()
            childEnds.append(reader)
            inputWriter = writer
            options.standardInput = .descriptor(reader)
        case .file(let path):
            options.standardInput = .file(path)
        }
        switch output {
        case .null:
            options.standardOutput = .null
        case .pipe:
            do {
                let (reader, writer) = try pipe()
                childEnds.append(writer)
                outputReader = reader
                options.standardOutput = .descriptor(writer)
            } catch {
                if let inputWriter { close(inputWriter) }
                throw error
            }
        case .file(let path):
            options.standardOutput = .file(path)
        }

        startNanoseconds = MonotonicClock.nanoseconds()
        do {
            child = try ChildProcess.spawn(executable, arguments: commandLine, options: options)
        } catch {
            if let inputWriter { close(inputWriter) }
            if let outputReader { close(outputReader) }
            throw BenchmarkError.spawnFailed(command: command, reason: error.reason)
        }
        self.commandLine = commandLine
        self.standardInput = inputWriter
        self.standardOutput = outputReader
        self.errorPath = errorPath
    }

    /// Waits for the child to end and returns its wall time, peak memory and exit status.
    func waitForExit() -> ChildResult {
        var usage = rusage()
        let ending = child.wait(usage: &usage)
        let elapsed = MonotonicClock.nanoseconds() - startNanoseconds
        let termination: ChildResult.Termination =
            switch ending {
            case .exited(let status): .exited(status)
            case .signaled(let signal): .signaled(signal)
            }
        return ChildResult(
            commandLine: commandLine, termination: termination, wallNanoseconds: elapsed,
            peakRSSKiB: Int(usage.ru_maxrss), blocksWritten: Int(usage.ru_oublock), blocksRead: Int(usage.ru_inblock),
            majorFaults: Int(usage.ru_majflt), errorPath: errorPath)
    }
}
