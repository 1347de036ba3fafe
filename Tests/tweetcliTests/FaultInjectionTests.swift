import Foundation
import Testing
import TweetTestSupport

enum Strace {
    /// Whether strace is there and may trace here (a sandbox can forbid ptrace).
    static let works: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        probe.arguments = ["-qq", "-o", "/dev/null", "/bin/true"]
        probe.standardError = FileHandle.nullDevice
        do { try probe.run() } catch { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()
}

/// One command run again and again from the same starting store, each time with one more of its
/// system calls on the store's files failing (`strace -e inject`): the first `openat`, then the
/// second, and so on through every call the command makes on the store, for each call and error.
struct FaultWalk {
    let cli: CLIRunner
    let arguments: [String]
    let pristine: URL
    let trace: URL
    let environment: [String: String]

    init(_ cli: CLIRunner, _ arguments: [String]) throws {
        self.cli = cli
        self.arguments = arguments
        pristine = cli.home.appendingPathComponent("pristine")
        trace = cli.home.appendingPathComponent("trace.txt")
        environment = [
            "HOME": cli.home.path, "XDG_STATE_HOME": cli.home.appendingPathComponent("state").path,
            "TWEETCLI_FOLD_THRESHOLD": "2", "PATH": "/usr/bin:/bin",
        ]
        try FileManager.default.copyItem(at: cli.store, to: pristine)
    }

    /// Puts the starting store back.
    func reset() throws {
        try FileManager.default.removeItem(at: cli.store)
        try FileManager.default.copyItem(at: pristine, to: cli.store)
    }

    func strace(_ options: [String]) throws -> Int32 {
        let strace = Process()
        strace.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        strace.arguments =
            ["-f", "-qq", "-y", "-o", trace.path] + options + [CLIRunner.executable.path, "--store", cli.store.path]
            + arguments
        strace.environment = environment
        strace.standardOutput = FileHandle.nullDevice
        strace.standardError = FileHandle.nullDevice
        try strace.run()
        strace.waitUntilExit()
        return strace.terminationStatus
    }

    /// The main thread's calls of `syscall` in the last trace, in order.
    func calls(_ syscall: String) throws -> [Substring] {
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
        guard let pid = lines.first?.prefix(while: \.isNumber) else { return [] }
        return lines.compactMap { line in
            guard line.hasPrefix(pid) else { return nil }
            let call = line.dropFirst(pid.count).drop(while: \.isWhitespace)
            return call.hasPrefix(syscall + "(") ? call : nil
        }
    }

    /// Which of the command's calls of `syscall` (counting from 1) touch the store or the session.
    func storeCalls(_ syscall: String) throws -> [Int] {
        try reset()
        _ = try strace(["-e", "trace=\(syscall)"])
        return try calls(syscall).enumerated().compactMap { $1.contains(cli.home.path) ? $0 + 1 : nil }
    }

    /// Runs the command from the starting store with the `nth` call of `syscall` failing with `error`,
    /// and returns its exit status and the call that failed.
    func run(failing syscall: String, nth: Int, with error: String) throws -> (status: Int32, failed: Substring?) {
        try reset()
        let status = try strace(["-e", "trace=\(syscall)", "-e", "inject=\(syscall):error=\(error):when=\(nth)"])
        return (status, try calls(syscall).first { $0.hasSuffix("(INJECTED)") })
    }

    /// For each system call and each of its calls on the store, runs the command with that call
    /// failing, then `check(status, call)`; returns how many runs failed and how many there were.
    func walk(
        _ syscalls: [String], error: String, check: (Int32, String) throws -> Void
    ) throws -> (failed: Int, runs: Int) {
        var (failed, runs) = (0, 0)
        for syscall in syscalls {
            for nth in try storeCalls(syscall) {
                let (status, call) = try run(failing: syscall, nth: nth, with: error)
                let name = "\(syscall) #\(nth) \(error): \(call ?? "not reached")"
                #expect(status == 0 || status == 1, "\(name): status \(status), a crash")
                runs += 1
                if status != 0 {
                    failed += 1
                    if error == "EINTR" { Issue.record("\(name) failed: a call interrupted by a signal is retried") }
                }
                try check(status, name)
            }
        }
        return (failed, runs)
    }
}

/// Each system call the store makes failing in turn, under `strace -e inject`, during a post (its
/// journal append), a compaction that folds and merges (the journal written as a segment, two
/// segments merged into a third with its index, manifest, journal replacement, old files removed)
/// and `doctor --repair` of a damaged store.
/// Whatever fails, no acknowledged write is lost, nothing crashes, and repair never makes things worse.
@Suite(.enabled(if: Strace.works), .serialized)
struct FaultInjectionTests {
    /// The calls each error is injected into: a disk that is full, a disk that fails, a signal.
    static let calls = [
        "ENOSPC": ["openat", "write", "fsync", "rename"],
        "EIO": ["openat", "pread64", "write", "fsync", "rename", "unlink", "getdents64"],
        "EINTR": ["openat", "pread64", "write", "fsync", "flock"],
    ]

    func captions(_ cli: CLIRunner, after name: String) throws -> Set<String> {
        if try cli.run(["doctor"]).status != 0 {
            let repair = try cli.run(["doctor", "--repair"])
            #expect(repair.status == 0, "after \(name): \(repair.stdout) \(repair.stderr)")
        }
        let feed = try cli.run(["feed", "--json", "--limit", "200"])
        #expect(feed.status == 0, "after \(name): \(feed.stderr)")
        return Set(try jsonArray(feed.stdout).compactMap { $0["caption"] as? String })
    }

    /// A store whose next compaction (at a fold threshold of 2, the walks') folds the journal and
    /// merges two segments: one segment from a compaction after four posts, four posts in the
    /// journal. Built without background compactions (their threshold is far off), so it is the
    /// same every time.
    func storeAboutToMerge() throws -> (CLIRunner, Set<String>) {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let never = ["TWEETCLI_FOLD_THRESHOLD": "1000"]
        var captions: Set<String> = []
        for number in 1...8 {
            #expect(try cli.run(["post", "post \(number)"], environment: never).status == 0)
            captions.insert("post \(number)")
            if number == 4 {
                #expect(try cli.run(["compact"], environment: ["TWEETCLI_FOLD_THRESHOLD": "2"]).status == 0)
            }
        }
        return (cli, captions)
    }

    /// Runs `arguments` through the walk of `error`, checking after each run that every caption in
    /// `before` (and `added`, when the run succeeded) is still there.
    func walkLosesNothing(_ walk: FaultWalk, error: String, before: Set<String>, added: String?) throws -> Int {
        let (failed, runs) = try walk.walk(Self.calls[error]!, error: error) { status, name in
            var expected = before
            if status == 0, let added { expected.insert(added) }
            let present = try captions(walk.cli, after: name)
            #expect(expected.isSubset(of: present), "lost after \(name): \(expected.subtracting(present))")
        }
        if error == "EINTR" {
            #expect(failed == 0)  // Every call is retried when a signal interrupts it.
        } else {
            #expect(failed > 0)  // Some calls did fail: the walk reached the store's system calls.
        }
        print("fault injection, \(walk.arguments[0]), \(error): \(runs) runs, \(failed) failed, nothing lost")
        return runs
    }

    @Test(arguments: ["ENOSPC", "EIO", "EINTR"])
    func aCompactionThatFoldsAndMergesLosesNothingWhicheverCallFails(_ error: String) throws {
        let (cli, before) = try storeAboutToMerge()
        let walk = try FaultWalk(cli, ["compact"])
        // The compaction does fold and merge: the journal is emptied into a segment, and the two
        // segments merged into one.
        let segments = { Set(try FileManager.default.contentsOfDirectory(atPath: cli.store.path)) }
        try walk.reset()
        let start = try segments()
        #expect(try walk.strace([]) == 0)
        #expect(try segments().subtracting(start).contains { $0.hasPrefix("seg-") })
        #expect(try start.subtracting(segments()).contains { $0.hasPrefix("seg-") })
        let after = try segments()
        #expect(after.filter { $0.hasPrefix("seg-") }.count == 2, "one segment: \(after)")
        #expect(try String(contentsOf: cli.journal, encoding: .utf8).split(separator: "\n").count == 1)

        #expect(try walkLosesNothing(walk, error: error, before: before, added: nil) > 20)
    }

    @Test(arguments: ["ENOSPC", "EIO", "EINTR"])
    func aPostLosesNothingWhicheverCallFails(_ error: String) throws {
        let (cli, before) = try storeAboutToMerge()
        // The post asks for a compaction, which strace follows too (it waits for it): the
        // injected failures reach the post's own calls and the compaction's.
        let walk = try FaultWalk(cli, ["post", "the new one"])
        #expect(try walkLosesNothing(walk, error: error, before: before, added: "the new one") >= 10)
    }

    @Test(arguments: ["ENOSPC", "EIO", "EINTR"])
    func aRepairThatFailsNeverMakesThingsWorse(_ error: String) throws {
        let (cli, _) = try storeAboutToMerge()
        let exported = try cli.run(["export"]).stdout
        // Damage that repair mends: a torn record after the journal's last, a damaged index and a
        // segment with two lines swapped.
        let journal = try FileHandle(forWritingTo: cli.journal)
        try journal.seekToEnd()
        try journal.write(contentsOf: Data(#"{"seq":99,"ops":[{"set":"#.utf8))
        try journal.close()
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.store.path).sorted()
        let index = cli.store.appendingPathComponent(try #require(files.first { $0.hasSuffix(".idx") }))
        var bytes = try Data(contentsOf: index)
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: index)
        let segment = cli.store.appendingPathComponent(
            try #require(files.first { $0.hasSuffix(".jsonl") && $0.hasPrefix("seg-") }))
        var lines = try String(contentsOf: segment, encoding: .utf8).split(separator: "\n").map(String.init)
        lines.swapAt(1, lines.count - 1)
        try (lines.joined(separator: "\n") + "\n").write(to: segment, atomically: false, encoding: .utf8)
        #expect(try cli.run(["doctor"]).status == 1)

        let walk = try FaultWalk(cli, ["doctor", "--repair"])
        let (failed, runs) = try walk.walk(Self.calls[error]!, error: error) { status, name in
            // Whatever the failed repair did, a repair that can work restores every record.
            let repair = try cli.run(["doctor", "--repair"])
            #expect(repair.status == 0, "after \(name): \(repair.stdout) \(repair.stderr)")
            #expect(try cli.run(["doctor"]).status == 0, "after \(name)")
            #expect(try cli.run(["export"]).stdout == exported, "after \(name)")
        }
        if error == "EINTR" {
            #expect(failed == 0)
        } else {
            #expect(failed > 0)
        }
        #expect(runs > 20)
        print("fault injection, repair, \(error): \(runs) runs, \(failed) failed, nothing lost")
    }
}
