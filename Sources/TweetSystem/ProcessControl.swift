import CProcessControl

#if canImport(Glibc)
    import Glibc
#endif

/// Calls Swift cannot make itself (variadic, without a libc wrapper, or declared only under
/// `_GNU_SOURCE`), made through CProcessControl's inline C. Each is best effort.
public enum ProcessControl {
    /// Makes this process the subreaper of its descendants, so orphans are reparented to it.
    /// - Returns: Whether the kernel agreed.
    public static func becomeSubreaper() -> Bool { tweetbench_become_subreaper() == 0 }

    /// Puts the calling thread behind every other in the CPU and I/O queues (nice 19, idle I/O).
    /// - Returns: Whether both were granted.
    @discardableResult
    package static func deprioritizeThisThread() -> Bool { tweetcli_deprioritize_this_thread() == 0 }

    /// Starts writing back `fd`'s dirty pages in `offset..<offset + length` (`sync_file_range`)
    /// and, with `wait`, waits for them: it makes nothing durable, it bounds unwritten bytes.
    package static func writeBack(_ fd: Int32, offset: Int64, length: Int64, wait: Bool) {
        _ = tweetcli_write_back(fd, offset, length, wait ? 1 : 0)
    }

    /// The calling thread's ID (`gettid`).
    package static func threadID() -> pid_t { tweetcli_thread_id() }

    /// Fixes glibc's mmap threshold at `bytes`, so large blocks are mapped for themselves.
    package static func fixMmapThreshold(_ bytes: Int32) { _ = tweetcli_fix_mmap_threshold(bytes) }

    /// Gives the memory the heap holds free back to the system, between the phases of long work.
    package static func trimHeap() { tweetcli_trim_heap() }
}
