import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The machine a benchmark ran on, as the report states it.
struct Machine: Equatable {
    /// As `uname -srm` prints it: kernel name, release, hardware.
    let system: String
    /// Cores available to this process.
    let cores: Int
    /// The CPU model from `/proc/cpuinfo`, or "unknown CPU".
    let cpu: String
    /// Physical memory, in bytes.
    let memoryBytes: UInt64

    /// This machine.
    static func current() -> Machine {
        var names = utsname()
        uname(&names)
        let system = [
            field(&names.sysname), field(&names.release), field(&names.machine),
        ].joined(separator: " ")
        return Machine(
            system: system, cores: ProcessInfo.processInfo.activeProcessorCount, cpu: cpuModel(),
            memoryBytes: ProcessInfo.processInfo.physicalMemory)
    }

    /// One line: "Linux 6.1.0 x86_64, 2 cores, AMD EPYC …, 8 GiB".
    var summary: String {
        let memory = String(format: "%.0f GiB", Double(memoryBytes) / Double(1 << 30))
        return "\(system), \(cores) cores, \(cpu), \(memory)"
    }

    /// A NUL-terminated `utsname` field as a string.
    private static func field<T>(_ value: inout T) -> String {
        withUnsafeBytes(of: &value) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The first "model name" (x86) or "Model"/"Hardware"/"CPU part" (ARM) line of /proc/cpuinfo.
    private static func cpuModel() -> String {
        // The CPU name only labels the report: without /proc/cpuinfo it says "unknown CPU".
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
        for key in ["model name", "Model", "Hardware", "CPU part"] {
            for line in info.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == key else { continue }
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown CPU"
    }
}
