import TweetSystem

/// How the C allocator serves the commands that stream a whole store through memory.
enum MemoryTuning {
    /// Blocks of 1 MiB and more are mapped for themselves and unmapped when freed. glibc starts
    /// there at 128 KiB but raises the limit to the size of each mapped block it frees (up to
    /// 32 MiB), after which a sort's 16 MiB buffers come from heaps that keep freed memory
    /// resident, and the peak depends on which thread freed what when. A fixed limit keeps the
    /// peak lower and steadier, and costs no time beyond the spread between runs.
    static func holdHeapToUse() {
        // mallopt answers 0 when it refuses, which leaves glibc's default (a larger peak, the
        // same result), so the answer changes nothing here and is not kept.
        ProcessControl.fixMmapThreshold(1 << 20)
    }
}
