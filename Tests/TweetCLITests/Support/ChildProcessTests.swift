import Foundation
import Testing

@testable import TweetCLI

/// The helper processes tweetcli runs (tweetcli-fetch): started with clean signals, waited for
/// without a thread, killed and reaped at their deadline or when their task is cancelled.
@Suite(.serialized) struct ChildProcessTests {
    private func run(_ script: String, until deadline: ContinuousClock.Instant = .now + .seconds(30)) async throws
        -> (ChildProcess.Ending, pid_t)
    {
        let pid = try ChildProcess.spawn("/bin/sh", arguments: ["sh", "-c", script], standardError: 2).get()
        return (await ChildProcess.wait(for: pid, until: deadline), pid)
    }

    @Test func anExitStatusAndASignalAreReported() async throws {
        #expect(try await run("exit 3").0 == .exited(3))
        #expect(try await run("kill -TERM $$").0 == .exited(128 + SIGTERM))
    }

    /// tweetcli ignores SIGPIPE; the child gets the default back, so a broken pipe ends it.
    @Test func theChildDoesNotInheritIgnoredSignals() async throws {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        #expect(try await run("kill -PIPE $$; exit 0").0 == .exited(128 + SIGPIPE))
    }

    /// An interrupt tweetcli was started to ignore stays ignored in the child (nohup, a
    /// background job of a script).
    @Test func theChildKeepsAnIgnoredHangUp() async throws {
        let previous = signal(SIGHUP, SIG_IGN)
        defer { signal(SIGHUP, previous) }
        #expect(try await run("kill -HUP $$; exit 4").0 == .exited(4))
    }

    @Test func aChildPastItsDeadlineIsKilledAndReaped() async throws {
        let start = Date()
        let (ending, pid) = try await run("exec sleep 600", until: .now + .milliseconds(300))
        #expect(ending == .killed)
        #expect(Date().timeIntervalSince(start) < 300, "it waited for the child to end by itself")
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "the child was left unreaped")
    }

    @Test func aCancelledWaitKillsTheChild() async throws {
        let pid = try ChildProcess.spawn("/bin/sh", arguments: ["sh", "-c", "exec sleep 600"], standardError: 2).get()
        let waiting = Task { await ChildProcess.wait(for: pid, until: .now + .seconds(600)) }
        try await Task.sleep(nanoseconds: 100_000_000)
        waiting.cancel()
        let start = Date()
        #expect(await waiting.value == .killed)
        #expect(Date().timeIntervalSince(start) < 300, "it waited for the deadline, not the cancellation")
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the child is still there")
    }

    @Test func aProgramThatCannotStartSaysWhy() {
        let result = ChildProcess.spawn("/nonexistent/program", arguments: ["x"], standardError: 2)
        guard case .failure(let failure) = result else {
            Issue.record("a missing program started")
            return
        }
        #expect(failure.reason.contains("No such file"))
    }
}
