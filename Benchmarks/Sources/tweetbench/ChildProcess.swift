import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A command started with `posix_spawn` and reaped with `wait4`, which, unlike Foundation's
/// `Process`, reports the child's peak memory (`ru_maxrss`).
struct ChildProcess {
    /// Where the child's standard input comes from.
    enum Input: Equatable {
        /// `/dev/null`: the child reads end of file.
        case null
        /// These bytes, then end of file; at most `PIPE_BUF` bytes (a password, not a data set).
        case bytes([UInt8])
        /// A pipe whose write end is ``ChildProcess/standardInput``.
        case pipe
        /// The file at this path.
        case file(String)
    }

    /// Where the child's standard output goes.
    enum Output: Equatable {
        /// `/dev/null`.
        case null
        /// A pipe whose read end is ``ChildProcess/standardOutput``.
        case pipe
        /// A new file at this path (truncated if it is there).
        case file(String)
    }

    /// The executable's path and its arguments.
    let commandLine: [String]
    /// The child's process ID.
    let pid: pid_t
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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Descriptors the child gets through dup2: the parent closes its copies once it has spawned.
        var childEnds: [Int32] = []
        defer { childEnds.forEach { _ = close($0) } }
        var inputWriter: Int32?
        var outputReader: Int32?

        switch input {
        case .null:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .bytes(let bytes):
            guard bytes.count <= Int(PIPE_BUF) else {
                throw BenchmarkError.spawnFailed(command: command, reason: "its input is too long for a pipe's buffer")
            }
            let (reader, writer) = try Self.makePipe(for: command)
            childEnds.append(reader)
            // The pipe's buffer holds it all, so this never blocks, even before the child runs.
            let written = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            close(writer)
            guard written == bytes.count else {
                throw BenchmarkError.spawnFailed(command: command, reason: "its input cannot be written to a pipe")
            }
            posix_spawn_file_actions_adddup2(&actions, reader, 0)
        case .pipe:
            let (reader, writer) = try Self.makePipe(for: command)
            childEnds.append(reader)
            inputWriter = writer
            posix_spawn_file_actions_adddup2(&actions, reader, 0)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        }
        switch output {
        case .null:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        case .pipe:
            do {
                let (reader, writer) = try Self.makePipe(for: command)
                childEnds.append(writer)
                outputReader = reader
                posix_spawn_file_actions_adddup2(&actions, writer, 1)
            } catch {
                if let inputWriter { close(inputWriter) }
                throw error
            }
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        // The benchmark ignores SIGPIPE to see EPIPE as an error; its children get the default back.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigmask(&attributes, &noMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let arguments = commandLine.map { strdup($0) } + [nil]
        let variables = environment.map { strdup($0) } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid: pid_t = 0
        startNanoseconds = MonotonicClock.nanoseconds()
        let status = posix_spawn(&pid, executable, &actions, &attributes, arguments, variables)
        guard status == 0 else {
            if let inputWriter { close(inputWriter) }
            if let outputReader { close(outputReader) }
            throw BenchmarkError.spawnFailed(command: command, reason: String(cString: strerror(status)))
        }
        self.commandLine = commandLine
        self.pid = pid
        self.standardInput = inputWriter
        self.standardOutput = outputReader
        self.errorPath = errorPath
    }

    /// Waits for the child to end and returns its wall time, peak memory and exit status.
    /// - Throws: ``BenchmarkError/io(path:reason:)`` when the child cannot be waited for.
    func waitForExit() throws -> ChildResult {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 {
            guard errno == EINTR else {
                let reason = "cannot be waited for (\(String(cString: strerror(errno))))"
                throw BenchmarkError.io(path: ChildResult.display(commandLine), reason: reason)
            }
        }
        let elapsed = MonotonicClock.nanoseconds() - startNanoseconds
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import because they are macros.
        let signal = status & 0x7f
        let termination: ChildResult.Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
        return ChildResult(
            commandLine: commandLine, termination: termination, wallNanoseconds: elapsed,
            peakRSSKiB: Int(usage.ru_maxrss), blocksWritten: Int(usage.ru_oublock), blocksRead: Int(usage.ru_inblock),
            majorFaults: Int(usage.ru_majflt), errorPath: errorPath)
    }

    /// A pipe whose two ends are closed on exec, so no other child inherits a stray end and keeps
    /// a reader from ever seeing end of file.
    private static func makePipe(for command: String) throws -> (reader: Int32, writer: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw BenchmarkError.spawnFailed(command: command, reason: String(cString: strerror(errno)))
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }
}
