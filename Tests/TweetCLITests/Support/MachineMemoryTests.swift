import Testing

@testable import TweetCLI

struct MachineMemoryTests {
    @Test func availableMemoryIsMemAvailableInBytes() {
        let text = "MemTotal:       24576000 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n"
        #expect(MachineMemory.availableBytes(parsing: text) == 20_000_000.0 * 1024)
        #expect(MachineMemory.availableBytes(parsing: "MemTotal: 1 kB\n") == nil)
        #expect(MachineMemory.availableBytes(parsing: "MemAvailable: lots\n") == nil)
        #expect(MachineMemory.availableBytes(meminfo: "/nonexistent/meminfo") == nil)
    }

    @Test func thisMachineReportsSomeMemory() throws {
        let bytes = try #require(MachineMemory.availableBytes())
        #expect(bytes > 16 * 1_048_576)
    }
}
