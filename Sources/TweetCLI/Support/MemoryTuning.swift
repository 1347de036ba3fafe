import TweetSystem

/// How the C allocator serves the commands that stream a whole store through memory.
enum MemoryTuning {
    /// Blocks of 1 MiB and more are mapped for themselves and unmapped when freed. glibc starts
    /// there at 128 KiB but raises the limit to the size of each mapped block it frees (up to
    /// 32 MiB), after which a sort's 16 MiB buffers come from heaps that keep freed memory
    /// resident, and the peak depends on which thread freed what when: a 1M-tweet `seed` peaked at
    /// 176 and 185 MiB in two runs, 152 and 156 MiB with the limit fixed (`/usr/bin/time`).
    ///
    /// Timed against glibc's default on one machine, back to back (1M tweets, two runs each):
    /// 43.8 and 35.2 s fixed, 37.1 and 34.5 s by default, within the runs' spread; 160–164 MiB
    /// against 171–184 MiB. At 10M tweets the fixed limit peaked at 232 MiB.
    static func holdHeapToUse() {
        // mallopt answers 0 when it refuses, which leaves glibc's default (a larger peak, the
        // same result), so the answer changes nothing here and is not kept.
        ProcessControl.fixMmapThreshold(1 << 20)
    }
}
