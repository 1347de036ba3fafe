import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawn`: the one wrapper of it in the project, through which
/// tweetcli starts every program, and the tests and benchmarks those that Foundation's `Process`
/// cannot run (it would link ICU into every command, waits on a run loop, and cannot report a
/// child's peak memory).
public struct ChildProcess: Sendable {
    /// Where one of the child's standard streams comes from or goes.
    public enum Stream: Sendable, Equatable {
        /// This process's own.
        case inherit
        /// `/dev/null`.
        case null
        /// A descriptor of this process, duplicated onto the stream.
        case descriptor(Int32)
        /// A file opened read-only (standard input) or created and truncated, mode 0600 (output).
        case file(String)
    }

    /// What the child starts with beside its program and arguments.
    public struct Options: Sendable {
        public var standardInput: Stream
        public var standardOutput: Stream
        public var standardError: Stream
        /// The signals set back to their default disposition: `nil` for every one, as a shell
        /// starts a program. No signal is ever blocked in the child.
        public var defaultSignals: [Int32]?
        /// In a session of its own, out of reach of the terminal's hang-up and Ctrl-C.
        public var newSession: Bool
        /// The whole environment as `NAME=value`; `nil` for this process's.
        public var environment: [String]?

        public init(
            standardInput: Stream = .null, standardOutput: Stream = .null, standardError: Stream = .null,
            defaultSignals: [Int32]? = nil, newSession: Bool = false, environment: [String]? = nil
        ) {
            self.standardInput = standardInput
            self.standardOutput = standardOutput
            self.standardError = standardError
            self.defaultSignals = defaultSignals
            self.newSession = newSession
            self.environment = environment
        }
    }

    /// Why a child could not start: the system's words.
    public struct SpawnError: Error, Equatable, CustomStringConvertible {
        public let program: String
        public let reason: String
        public var description: String { "\(program) cannot be started: \(reason)" }
    }

    /// How a child ended.
    public enum Termination: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// This signal ended it.
        case signaled(Int32)

        /// The status a shell reports: the exit status, or 128 + the signal's number.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        }

        /// From `wait`'s status word (WIFEXITED and friends are macros Swift does not import).
        init(waitStatus status: Int32) {
            let signal = status & 0x7F
            self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
        }
    }

    /// The child's process ID.
    public let pid: pid_t

    /// Starts `program` (a path) with `arguments` (the first is the name it is given).
    /// - Throws: ``SpawnError``.
    public static func spawn(_ program: String, arguments: [String], options: Options = Options())
        throws(SpawnError) -> ChildProcess
    {
        _ = childrenWaitable
        func failure(_ code: Int32) -> SpawnError {
            SpawnError(program: program, reason: String(cString: strerror(code)))
        }
        var attributes = posix_spawnattr_t()
        var code = posix_spawnattr_init(&attributes)
        guard code == 0 else { throw failure(code) }
        defer { posix_spawnattr_destroy(&attributes) }
        var actions = posix_spawn_file_actions_t()
        code = posix_spawn_file_actions_init(&actions)
        guard code == 0 else { throw failure(code) }
        defer { posix_spawn_file_actions_destroy(&actions) }

        var defaults = sigset_t()
        if let signals = options.defaultSignals {
            sigemptyset(&defaults)
            for number in signals { sigaddset(&defaults, number) }
        } else {
            sigfillset(&defaults)
        }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        // glibc's POSIX_SPAWN_SETSID (since 2.26), which its header shows only to _GNU_SOURCE.
        let newSession: Int32 = options.newSession ? 0x80 : 0
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | newSession))

        for (descriptor, stream) in [
            (Int32(0), options.standardInput), (1, options.standardOutput), (2, options.standardError),
        ] {
            let readOnly = descriptor == 0
            switch stream {
            case .inherit: code = 0
            case .null:
                code = posix_spawn_file_actions_addopen(
                    &actions, descriptor, "/dev/null", readOnly ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let source): code = posix_spawn_file_actions_adddup2(&actions, source, descriptor)
            case .file(let path):
                let flags = readOnly ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
                code = posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o600)
            }
            guard code == 0 else { throw failure(code) }
        }

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        if let environment = options.environment {
            let variables = environment.map { strdup($0) } + [nil]
            defer { for pointer in variables { free(pointer) } }
            code = posix_spawn(&pid, program, &actions, &attributes, argv, variables)
        } else {
            code = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        }
        guard code == 0 else { throw failure(code) }
        return ChildProcess(pid: pid)
    }

    /// Starts `program` and waits for it to end.
    /// - Throws: ``SpawnError``.
    public static func run(_ program: String, arguments: [String], options: Options = Options())
        throws(SpawnError) -> Termination
    {
        try spawn(program, arguments: arguments, options: options).wait()
    }

    /// A pipe whose ends are closed on exec, so no child keeps a stray end open; a child gets an
    /// end through ``Stream/descriptor(_:)``, which clears the flag on its copy.
    /// - Throws: ``SpawnError`` when the system has no descriptors left.
    public static func pipe() throws(SpawnError) -> (reader: Int32, writer: Int32) {
        var ends: [Int32] = [0, 0]
        // pipe2, which would set the flag at once, is declared only under _GNU_SOURCE.
        guard Glibc.pipe(&ends) == 0 else {
            throw SpawnError(program: "a pipe", reason: String(cString: strerror(errno)))
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// A child's exit must stay waitable even if this process was started with SIGCHLD ignored:
    /// set once, before the first child.
    private static let childrenWaitable: Void = { signal(SIGCHLD, SIG_DFL) }()

    /// Waits for the child to end.
    public func wait() -> Termination {
        var usage = rusage()
        return wait(usage: &usage)
    }

    /// Waits for the child to end and fills `usage` with what it used (peak memory, blocks).
    public func wait(usage: inout rusage) -> Termination {
        var status: Int32 = 0
        while wait4(pid, &status, 0, &usage) < 0 {
            // Not our child (already reaped): nothing to wait for, as a shell reports it.
            guard errno == EINTR else { return .exited(127) }
        }
        return Termination(waitStatus: status)
    }

    /// Waits for the child to end, polling with `WNOHANG` between sleeps of a few milliseconds so
    /// the task's thread stays free. Past `deadline` (on the monotonic clock), or when the task is
    /// cancelled, the child is killed and reaped: no zombie and no wait is left behind.
    /// - Returns: How it ended, or `nil` when it was killed.
    public func wait(until deadline: ContinuousClock.Instant) async -> Termination? {
        var pause: UInt64 = 1_000_000
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return Termination(waitStatus: status) }
            if result < 0 && errno != EINTR { return .exited(127) }
            if Task.isCancelled || ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return nil
            }
            // A sleep cut short by cancellation is what the check above is for: nothing to report.
            try? await Task.sleep(nanoseconds: pause)
            pause = min(pause * 2, 20_000_000)
        }
    }
}
