import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a store's fold and merges in a detached process, `tweetcli --store DIR compact`, so that the
/// command whose write called for them returns at once: this very binary (`/proc/self/exe`), in a
/// session of its own (a terminal's hang-up or Ctrl-C does not reach it), with no terminal
/// attached (standard streams on /dev/null). Nothing waits for it; if it cannot start, the
/// segments stay as they are until the next write starts one (reads stay correct either way).
enum BackgroundCompaction {
    @Sendable static func start(_ directory: String) {
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        guard posix_spawnattr_init(&attributes) == 0 else { return }
        defer { posix_spawnattr_destroy(&attributes) }
        guard posix_spawn_file_actions_init(&actions) == 0 else { return }
        defer { posix_spawn_file_actions_destroy(&actions) }
        // glibc's POSIX_SPAWN_SETSID (since 2.26), which its header shows only to _GNU_SOURCE.
        let newSession: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(newSession | POSIX_SPAWN_SETSIGMASK))
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        for (descriptor, flags) in [(Int32(0), O_RDONLY), (1, O_WRONLY), (2, O_WRONLY)] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", flags, 0)
        }
        let arguments = ["tweetcli", "--store", directory, "compact"]
        var pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        // At the usual priority: its folds and commits hold the store's lock while others wait.
        // Its merges write from a thread behind every other process (StorageEngine.compact).
        _ = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, &pointers, environ)
    }
}
