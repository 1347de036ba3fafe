import Foundation
import Testing

/// Runs the built `tweetcli` in a fresh temporary home: its own store and session directory.
package final class CLIRunner {
    package struct Result {
        package var stdout: String
        package var stderr: String
        package var status: Int32
    }

    package let home: URL
    package var store: URL { home.appendingPathComponent("store") }
    /// What `--store` names: the local store in the home, or a PostgreSQL URI.
    package let location: String
    package var journal: URL { store.appendingPathComponent("journal.jsonl") }

    /// A fresh home, with its local store, or the PostgreSQL store at `location`.
    package init(location: String? = nil) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("tweetcli-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        self.location = location ?? home.appendingPathComponent("store").path
    }

    deinit {
        try? FileManager.default.removeItem(at: home)  // Best-effort cleanup of a temporary directory.
    }

    /// SIGPIPE ignored in the test process, once: a write to a command that has exited is then an
    /// error (EPIPE) rather than the end of every test.
    private static let ignoringBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// The `tweetcli` built beside the test bundle.
    package static let executable: URL = {
        var directory = Bundle.main.bundleURL
        if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        for candidate in [directory, Bundle.main.bundleURL.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("tweetcli")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return directory.appendingPathComponent("tweetcli")
    }()

    /// Runs `tweetcli --store <home>/store ARGS` with `stdin`, waiting for it to exit.
    @discardableResult
    package func run(
        _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:],
        executable: String? = nil, store: Bool = true
    ) throws -> Result {
        try run(
            arguments, stdinBytes: stdin.map { Data($0.utf8) }, environment: extra, executable: executable, store: store
        )
    }

    /// Runs with `stdinBytes`, which need not be UTF-8.
    @discardableResult
    /// `executable`, another program to run in the same home (`script`, to give tweetcli a terminal).
    package func run(
        _ arguments: [String], stdinBytes: Data?, environment extra: [String: String] = [:],
        executable: String? = nil, store: Bool = true
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? Self.executable
        process.arguments = (store ? ["--store", location] : []) + arguments
        var environment = [
            "HOME": home.path, "XDG_STATE_HOME": home.appendingPathComponent("state").path, "PATH": "/usr/bin:/bin",
        ]
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let (output, errors, input) = (Pipe(), Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        _ = Self.ignoringBrokenPipes
        // Not while a test changes the process's environment (setenv can move `environ` under a
        // spawn that reads it).
        try ProcessEnvironment.gate.withLock { _ in try process.run() }
        // A command that fails before reading all its input (a store that is not empty) closes the
        // pipe: the rest of the input is not needed, and writing it gives EPIPE, not a dead runner.
        if let stdinBytes { try? input.fileHandleForWriting.write(contentsOf: stdinBytes) }
        try? input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self),
            status: process.terminationStatus)
    }

    /// Starts tweetcli with `arguments` and returns at once; its output goes nowhere. For a
    /// command that runs while others do.
    package func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--store", location] + arguments
        process.environment = [
            "HOME": home.path, "XDG_STATE_HOME": home.appendingPathComponent("state").path, "PATH": "/usr/bin:/bin",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try ProcessEnvironment.gate.withLock { _ in try process.run() }
        return process
    }

    /// Registers a user with `--password-stdin` and returns its uid.
    @discardableResult
    package func register(_ username: String, fullname: String, password: String = "correct horse") throws -> String {
        let result = try run(
            [
                "register", "--email", "\(username)@example.com", "--username", username, "--fullname", fullname,
                "--password-stdin", "--json",
            ], stdin: password + "\n")
        #expect(result.status == 0, "register \(username): \(result.stderr)")
        return try json(result.stdout)["id"] as? String ?? ""
    }

    package func login(_ username: String, password: String = "correct horse") throws {
        let result = try run(["login", "--username", username, "--password-stdin"], stdin: password + "\n")
        #expect(result.status == 0, "login \(username): \(result.stderr)")
    }

    /// Posts and returns the new tweet's ID.
    package func post(_ caption: String, replyTo: String? = nil) throws -> String {
        let result = try run(["post", caption, "--json"] + (replyTo.map { ["--reply-to", $0] } ?? []))
        #expect(result.status == 0, "post: \(result.stderr)")
        return try json(result.stdout)["id"] as? String ?? ""
    }

    package func journalBytes() -> Data {
        (try? Data(contentsOf: journal)) ?? Data()  // No journal yet reads as empty: nothing written.
    }
}

package func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

package func jsonArray(_ text: String) throws -> [[String: Any]] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
}
