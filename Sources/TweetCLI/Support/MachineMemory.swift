import Foundation

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
