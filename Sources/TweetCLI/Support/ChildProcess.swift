import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A helper program run with `posix_spawn` and waited for without holding a thread, so that
/// several run at once (the twtxt fetches): Foundation's `Process` would link its module, and ICU
/// with it, into every command.
enum ChildProcess {
    /// Starts `program` with `arguments` (the first is its name), standard input and output on
    /// /dev/null and standard error on `standardError`; `nil` if it cannot start.
    static func spawn(_ program: String, arguments: [String], standardError: Int32) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { return nil }
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        var pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, program, &actions, nil, &pointers, environ) == 0 else { return nil }
        return pid
    }

    /// The child's exit status once it ends (128 + the signal's number if a signal ended it),
    /// polled every few milliseconds with `WNOHANG` between sleeps, so the task's thread is free.
    static func exitStatus(of pid: pid_t) async -> Int32 {
        var pause: UInt64 = 1_000_000
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
            if result < 0 && errno != EINTR { return 127 }
            try? await Task.sleep(nanoseconds: pause)
            pause = min(pause * 2, 20_000_000)
        }
    }
}
