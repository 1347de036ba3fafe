import FoundationEssentials
import TweetSystem

/// Starts a store's fold and merges in a detached process, `tweetcli --store DIR compact
/// --files-only` (which leaves unused photos to an explicit `compact`, as finding them reads every
/// tweet), so that the
/// command whose write called for them returns at once: this very binary (`/proc/self/exe`), in a
/// session of its own (a terminal's hang-up or Ctrl-C does not reach it), with no terminal
/// attached (standard streams on /dev/null). Nothing waits for it; if it cannot start, the
/// segments stay as they are until the next write starts one (reads stay correct either way).
enum BackgroundCompaction {
    @Sendable static func start(_ directory: String) {
        // At the usual priority: its folds and commits hold the store's lock while others wait.
        // Its merges write from a thread behind every other process (StorageEngine.compact).
        // Signal dispositions are inherited, as before: only the mask is cleared.
        // A compaction that cannot start loses nothing: the next write asks for one again.
        _ = try? ChildProcess.spawn(
            "/proc/self/exe", arguments: ["tweetcli", "--store", directory, "compact", "--files-only"],
            options: .init(defaultSignals: [], newSession: true))
    }
}
