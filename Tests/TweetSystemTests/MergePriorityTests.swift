import Foundation
import Synchronization
import Testing

@testable import TweetSystem

/// The priority a compaction's merge thread gives itself (`ProcessControl`).
@Suite struct MergePriorityTests {
    /// A compaction's merge writes from a thread behind every other process: the lowest CPU
    /// priority and the idle I/O class, set on that thread alone (read back from /proc and
    /// `ionice`), so the thread that commits keeps the usual priority.
    @Test func aDeprioritizedThreadRunsNicedInTheIdleIOClassAndTheOthersDoNot() async throws {
        let ready = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let tid = Mutex<(pid_t, Int32)>((0, -1))
        let thread = Thread {
            let status: Int32 = ProcessControl.deprioritizeThisThread() ? 0 : -1
            tid.withLock { $0 = (ProcessControl.threadID(), status) }
            ready.signal()
            done.wait()
        }
        thread.start()
        ready.wait()
        defer { done.signal() }
        let (id, status) = tid.withLock { $0 }
        #expect(status == 0)
        errno = 0
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(id)) == 19 && errno == 0)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(ProcessControl.threadID())) == 0)
        // ioprio_get through /proc is not offered; `ionice` (util-linux) reads it back when present.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/ionice") {
            func ioClass(_ id: pid_t) throws -> String {
                let output = Pipe()
                let ionice = Process()
                ionice.executableURL = URL(fileURLWithPath: "/usr/bin/ionice")
                ionice.arguments = ["-p", String(id)]
                ionice.standardOutput = output
                try ionice.run()
                ionice.waitUntilExit()
                return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            }
            let (merging, committing) = (try ioClass(id), try ioClass(ProcessControl.threadID()))
            #expect(merging.hasPrefix("idle"), "\(merging)")
            #expect(!committing.hasPrefix("idle"), "\(committing)")
        }
    }
}
