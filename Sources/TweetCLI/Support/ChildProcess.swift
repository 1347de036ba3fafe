import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A helper program run with `posix_spawn` and waited for without holding a thread, so that
/// several run at once (the twtxt fetches): Foundation's `Process` would link its module, and ICU
/// with it, into every command.
enum ChildProcess {
    /// Why a child could not start: the system's words.
    struct SpawnFailure: Error {
        let reason: String
    }

    /// How a child ended.
    enum Ending: Equatable {
        /// It exited with this status (128 + the signal's number if a signal ended it).
        case exited(Int32)
        /// It was still running at the deadline, or its task was cancelled: it was killed.
        case killed
    }

    /// Starts `program` with `arguments` (the first is its name), standard input and output on
    /// /dev/null, standard error on `standardError`, and the default signal dispositions and an
    /// empty signal mask (tweetcli ignores SIGPIPE and SIGXFSZ; the child must not inherit that).
    static func spawn(_ program: String, arguments: [String], standardError: Int32) -> Result<pid_t, SpawnFailure> {
        _ = childrenWaitable
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        let initialised = posix_spawnattr_init(&attributes)
        guard initialised == 0 else { return .failure(SpawnFailure(reason: String(cString: strerror(initialised)))) }
        defer { posix_spawnattr_destroy(&attributes) }
        let prepared = posix_spawn_file_actions_init(&actions)
        guard prepared == 0 else { return .failure(SpawnFailure(reason: String(cString: strerror(prepared)))) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Only what tweetcli itself ignores goes back to the default: a hang-up or an interrupt
        // that tweetcli was started to ignore (nohup) stays ignored.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGPIPE, SIGXFSZ] { sigaddset(&defaults, number) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        for result in [
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0),
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0),
            posix_spawn_file_actions_adddup2(&actions, standardError, 2),
        ] where result != 0 {
            return .failure(SpawnFailure(reason: String(cString: strerror(result))))
        }
        var pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, &pointers, environ)
        guard result == 0 else { return .failure(SpawnFailure(reason: String(cString: strerror(result)))) }
        return .success(pid)
    }

    /// A child's exit must stay waitable even if tweetcli was started with SIGCHLD ignored: set
    /// once, before the first child.
    private static let childrenWaitable: Void = { signal(SIGCHLD, SIG_DFL) }()

    /// Waits for the child to end, polling with `WNOHANG` between sleeps of a few milliseconds so
    /// the task's thread stays free. Past `deadline` (on the monotonic clock, which a change of the
    /// system's time does not move), or when the task is cancelled, the child is killed and
    /// reaped: no zombie and no wait is left behind.
    static func wait(for pid: pid_t, until deadline: ContinuousClock.Instant) async -> Ending {
        var pause: UInt64 = 1_000_000
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7F
                return .exited(signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
            }
            if result < 0 && errno != EINTR { return .exited(127) }  // not our child: nothing to wait for
            if Task.isCancelled || ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return .killed
            }
            // A sleep cut short by cancellation is what the check above is for: nothing to report.
            try? await Task.sleep(nanoseconds: pause)
            pause = min(pause * 2, 20_000_000)
        }
    }
}
