import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// How much memory this machine can give a command now.
enum MachineMemory {
    /// `MemAvailable` from `/proc/meminfo` (what the kernel can hand out without swapping, page
    /// cache it may drop included), in bytes; `nil` where there is no such file or line.
    static func availableBytes(meminfo path: String = "/proc/meminfo") -> Double? {
        // A machine without /proc/meminfo has no figure to check against: the seed is not refused.
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return availableBytes(parsing: text)
    }

    /// The `MemAvailable:` line of a `/proc/meminfo` text, in bytes.
    static func availableBytes(parsing text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kibibytes = Double(fields[1]) else { return nil }
            return kibibytes * 1024
        }
        return nil
    }
}

/// How much room the file system that holds a path has now.
enum MachineDisk {
    /// The bytes an unprivileged writer may still use on the file system of `path`, or of its
    /// nearest ancestor that exists (a store not made yet); `nil` when none can be asked.
    static func availableBytes(near path: String) -> Double? {
        var candidate = URL(fileURLWithPath: path).standardizedFileURL
        while true {
            var info = statvfs()
            if statvfs(candidate.path, &info) == 0 { return Double(info.f_bavail) * Double(info.f_frsize) }
            let parent = candidate.deletingLastPathComponent()
            guard parent.path != candidate.path else { return nil }
            candidate = parent
        }
    }
}
