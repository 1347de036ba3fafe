import Foundation
import Testing

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

/// Each system call the store makes failing in turn, under `strace -e inject`: a post that folds
/// (journal append, segment, index, manifest, journal replacement) meets ENOSPC, EIO or EINTR at its
/// first, second, … `openat`, `write`, `fsync`, `rename` or `ftruncate`. Whatever fails,
/// no acknowledged post is lost, nothing crashes, and after a repair the store is healthy.
@Suite(.enabled(if: Strace.works), .serialized)
struct FaultInjectionTests {

    /// The calls, and how many of each a folding post makes on the store's files (measured with
    /// strace: 17 `openat`, 7 `write`, 7 `fsync`, 2 `rename`), with room to spare.
    static let calls = [("openat", 18), ("write", 8), ("fsync", 8), ("rename", 3), ("ftruncate", 2)]

    /// `-P` for every file of the store, so the count of calls starts at the store's own: the
    /// dynamic loader's `openat`s come first and would otherwise take the injections.
    func storeFiles(_ cli: CLIRunner) -> [String] {
        let names =
            ["journal.jsonl", "journal.jsonl.new", "MANIFEST.json", "MANIFEST.json.new"]
            + (1...60).flatMap { [String(format: "seg-%06d.jsonl", $0), String(format: "seg-%06d.idx", $0)] }
        return names.flatMap { ["-P", cli.store.appendingPathComponent($0).path] }
    }

    /// Runs tweetcli under strace with the `nth` call of `syscall` failing with `error`.
    func run(
        _ cli: CLIRunner, _ arguments: [String], failing syscall: String, nth: Int, with error: String
    ) throws -> Int32 {
        let strace = Process()
        strace.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        strace.arguments =
            [
                "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(syscall)",
                "-e", "inject=\(syscall):error=\(error):when=\(nth)",
            ] + storeFiles(cli) + [
                CLIRunner.executable.path,
                "--store", cli.store.path,
            ] + arguments
        strace.environment = [
            "HOME": cli.home.path, "XDG_STATE_HOME": cli.home.appendingPathComponent("state").path,
            "TWEETCLI_FOLD_THRESHOLD": "2",
        ]
        strace.standardOutput = FileHandle.nullDevice
        strace.standardError = FileHandle.nullDevice
        try strace.run()
        strace.waitUntilExit()
        return strace.terminationStatus
    }

    @Test(arguments: ["ENOSPC", "EIO", "EINTR"])
    func noAcknowledgedPostIsLostWhicheverCallFails(_ error: String) throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        var acknowledged: Set<String> = []
        var injected = 0
        var posts = 0
        for (syscall, count) in Self.calls {
            for nth in 1...count {
                posts += 1
                let caption = "\(syscall) \(nth) \(error)"
                let status = try run(cli, ["post", caption], failing: syscall, nth: nth, with: error)
                #expect(status == 0 || status == 1, "\(caption): status \(status), a crash")
                if status == 0 { acknowledged.insert(caption) } else { injected += 1 }
                // A failed command may leave something for a repair; it must never lose a post.
                if try cli.run(["doctor"]).status != 0 {
                    let repair = try cli.run(["doctor", "--repair"])
                    #expect(repair.status == 0, "after \(caption): \(repair.stdout) \(repair.stderr)")
                }
                let feed = try cli.run(["feed", "--json", "--limit", "200"])
                #expect(feed.status == 0, "after \(caption): \(feed.stderr)")
                let present = Set(try jsonArray(feed.stdout).compactMap { $0["caption"] as? String })
                #expect(
                    acknowledged.isSubset(of: present), "lost after \(caption): \(acknowledged.subtracting(present))")
            }
        }
        if error == "EINTR" {
            #expect(injected == 0)  // Every call is retried when a signal interrupts it.
        } else {
            #expect(injected > 0)  // Some calls did fail: the test reached the store's system calls.
        }
        print(
            "fault injection \(error): \(posts) posts, \(injected) failed, \(acknowledged.count) acknowledged, none lost"
        )
    }
}
