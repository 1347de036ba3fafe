import Foundation
import Testing

@testable import TweetSystem

/// The one way tweetcli starts programs: with the signals asked for back at their default,
/// streams where asked, waited for without a thread, killed and reaped at a deadline or on
/// cancellation.
@Suite(.serialized) struct ChildProcessTests {
    /// As tweetcli starts tweetcli-fetch: SIGPIPE and SIGXFSZ back at their default, the rest as they are.
    private func run(_ script: String, until deadline: ContinuousClock.Instant = .now + .seconds(30)) async throws
        -> (ChildProcess.Termination?, pid_t)
    {
        let child = try ChildProcess.spawn(
            "/bin/sh", arguments: ["sh", "-c", script],
            options: .init(standardError: .inherit, defaultSignals: [SIGPIPE, SIGXFSZ]))
        return (await child.wait(until: deadline), child.pid)
    }

    @Test func anExitStatusAndASignalAreReported() async throws {
        #expect(try await run("exit 3").0 == .exited(3))
        #expect(try await run("kill -TERM $$").0 == .signaled(SIGTERM))
        #expect(try await run("kill -TERM $$").0?.status == 128 + SIGTERM)
    }

    /// tweetcli ignores SIGPIPE; the child gets the default back, so a broken pipe ends it.
    @Test func theChildDoesNotInheritIgnoredSignals() async throws {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        #expect(try await run("kill -PIPE $$; exit 0").0 == .signaled(SIGPIPE))
    }

    /// An interrupt tweetcli was started to ignore stays ignored in the child (nohup, a
    /// background job of a script), unless every signal is asked back at its default.
    @Test func theChildKeepsAnIgnoredHangUpUnlessAllAreReset() async throws {
        let previous = signal(SIGHUP, SIG_IGN)
        defer { signal(SIGHUP, previous) }
        #expect(try await run("kill -HUP $$; exit 4").0 == .exited(4))
        let shell = try ChildProcess.run("/bin/sh", arguments: ["sh", "-c", "kill -HUP $$; exit 4"])
        #expect(shell == .signaled(SIGHUP))
    }

    @Test func aChildPastItsDeadlineIsKilledAndReaped() async throws {
        let start = Date()
        let (ending, pid) = try await run("exec sleep 600", until: .now + .milliseconds(300))
        #expect(ending == nil)
        #expect(Date().timeIntervalSince(start) < 300, "it waited for the child to end by itself")
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "the child was left unreaped")
    }

    @Test func aCancelledWaitKillsTheChild() async throws {
        let child = try ChildProcess.spawn("/bin/sh", arguments: ["sh", "-c", "exec sleep 600"])
        let waiting = Task { await child.wait(until: .now + .seconds(600)) }
        try await Task.sleep(nanoseconds: 100_000_000)
        waiting.cancel()
        let start = Date()
        #expect(await waiting.value == nil)
        #expect(Date().timeIntervalSince(start) < 300, "it waited for the deadline, not the cancellation")
        #expect(kill(child.pid, 0) == -1 && errno == ESRCH, "the child is still there")
    }

    @Test func aProgramThatCannotStartSaysWhy() {
        #expect {
            try ChildProcess.spawn("/nonexistent/program", arguments: ["x"])
        } throws: { error in
            (error as? ChildProcess.SpawnError)?.reason.contains("No such file") == true
        }
    }

    /// Standard streams go where they are asked: a file, a pipe, and the environment given.
    @Test func streamsAndEnvironmentGoWhereAsked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out").path
        let (reader, writer) = try ChildProcess.pipe()
        _ = "hello\n".withCString { write(writer, $0, 6) }
        close(writer)
        let ended = try ChildProcess.run(
            "/bin/sh", arguments: ["sh", "-c", "read line; echo \"$line $GREETING\"; echo oops >&2"],
            options: .init(
                standardInput: .descriptor(reader), standardOutput: .file(output),
                standardError: .file(output + ".err"),
                environment: ["GREETING=world"]))
        close(reader)
        #expect(ended == .exited(0))
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "hello world\n")
        #expect(try String(contentsOfFile: output + ".err", encoding: .utf8) == "oops\n")
    }

    /// A child in a session of its own leads it: its session ID is its process ID.
    @Test func aNewSessionIsLedByTheChild() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let output = directory.appendingPathComponent("sid").path
        let child = try ChildProcess.spawn(
            "/bin/sh", arguments: ["sh", "-c", "ps -o sid= -p $$"],
            options: .init(standardOutput: .file(output), newSession: true))
        #expect(child.wait() == .exited(0))
        let sid = try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(sid == String(child.pid))
    }
}
