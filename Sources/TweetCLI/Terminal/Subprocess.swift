import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A command the user chose (`$PAGER`, `$EDITOR`), run through `/bin/sh -c` as git runs them.
struct Subprocess {
    let pid: pid_t
    /// The write end of a pipe to its stdin, when asked for.
    let input: Int32?

    /// Starts `/bin/sh -c 'COMMAND "$@"' sh ARGUMENTS…`, so the command may carry its own flags.
    /// - Returns: `nil` when it cannot start.
    static func start(_ command: String, arguments: [String] = [], pipeInput: Bool = false) -> Subprocess? {
        var pipeEnds: [Int32] = [-1, -1]
        if pipeInput {
            guard pipe(&pipeEnds) == 0 else { return nil }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if pipeInput {
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], STDIN_FILENO)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        }
        let words = ["/bin/sh", "-c", arguments.isEmpty ? command : command + " \"$@\"", "sh"] + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = withDefaultSignals { posix_spawn(&pid, "/bin/sh", &actions, $0, &argv, environ) }
        if pipeInput { close(pipeEnds[0]) }
        guard status == 0 else {
            if pipeInput { close(pipeEnds[1]) }
            return nil
        }
        return Subprocess(pid: pid, input: pipeInput ? pipeEnds[1] : nil)
    }

    /// Calls `body` with spawn attributes under which a program starts as from a shell: no signal
    /// blocked and every disposition at its default, whatever the spawning process blocks or ignores.
    static func withDefaultSignals<T>(_ body: (UnsafePointer<posix_spawnattr_t>) -> T) -> T {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return withUnsafePointer(to: &attributes) { body($0) }
    }

    /// Closes its stdin pipe and waits for it to exit.
    /// - Returns: Its exit status (128 + the signal when a signal ended it).
    func wait() -> Int32 {
        if let input { close(input) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
