import CProcessControl
import Foundation
import Synchronization
import Testing

/// The priority a compaction's merge thread gives itself (`CProcessControl`'s shim).
@Suite struct MergePriorityTests {
    /// A compaction's merge writes from a thread behind every other process: the lowest CPU
    /// priority and the idle I/O class, set on that thread alone (read back from /proc and
    /// `ionice`), so the thread that commits keeps the usual priority.
    @Test func aDeprioritizedThreadRunsNicedInTheIdleIOClassAndTheOthersDoNot() async throws {
        let ready = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let tid = Mutex<(pid_t, Int32)>((0, -1))
        let thread = Thread {
            let status = tweetcli_deprioritize_this_thread()
            tid.withLock { $0 = (tweetcli_thread_id(), status) }
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
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tweetcli_thread_id())) == 0)
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
            let (merging, committing) = (try ioClass(id), try ioClass(tweetcli_thread_id()))
            #expect(merging.hasPrefix("idle"), "\(merging)")
            #expect(!committing.hasPrefix("idle"), "\(committing)")
        }
    }
}
