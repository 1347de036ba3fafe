import Foundation
import Testing
import TweetTestSupport

/// Files tweetcli reads that someone else may have put there: a FIFO where the config file, the
/// session or a backup should be is refused at once, never waited on; and settings that hold
/// control characters are refused before they reach the file.
@Suite(.serialized)
struct HostileFileTests {
    /// Runs `arguments` under timeout(1): a command that hangs ends with status 124.
    private func bounded(_ cli: CLIRunner, _ arguments: [String], seconds: Int = 10) throws -> CLIRunner.Result {
        try cli.run(
            [String(seconds), CLIRunner.executable.path, "--store", cli.location] + arguments,
            executable: "/usr/bin/timeout", store: false)
    }

    private func configFile(_ cli: CLIRunner) -> URL {
        cli.home.appendingPathComponent(".config/tweetcli/config")
    }

    @Test func aFifoAtTheConfigPathHangsNoCommandAndConfigMendsIt() throws {
        let cli = try CLIRunner()
        let config = configFile(cli)
        try FileManager.default.createDirectory(
            at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(mkfifo(config.path, 0o600) == 0)
        let feed = try bounded(cli, ["feed"])
        #expect(feed.status == 1, "\(feed.status): \(feed.stderr)")
        #expect(feed.stderr.contains("the config file \(config.path) is not a regular file"), "\(feed.stderr)")
        #expect(feed.stderr.split(separator: "\n").count == 1)
        // `config` still runs, says what is wrong, and a setting replaces the FIFO with a file.
        let list = try bounded(cli, ["config", "list"])
        #expect(list.status == 0 && list.stderr.contains("not a regular file"), "\(list.status): \(list.stderr)")
        #expect(try bounded(cli, ["config", "set", "limit", "5"]).status == 0)
        #expect(try String(contentsOf: config, encoding: .utf8) == "limit = 5\n")
        #expect(try bounded(cli, ["feed"]).status == 0)
    }

    @Test func aFifoAtTheSessionPathHangsNoCommand() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let sessions = cli.home.appendingPathComponent("state/tweetcli/sessions")
        let files = try FileManager.default.contentsOfDirectory(atPath: sessions.path)
        let session = sessions.appendingPathComponent(try #require(files.first { $0.hasSuffix(".json") }))
        try FileManager.default.removeItem(at: session)
        #expect(mkfifo(session.path, 0o600) == 0)
        for arguments in [["whoami"], ["post", "hello"], ["feed", "--following"]] {
            let result = try bounded(cli, arguments)
            #expect(result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("it is not a regular file"), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aFifoNamedAsABackupIsRefusedAndStandardInputStillWorks() throws {
        let cli = try CLIRunner()
        let fifo = cli.home.appendingPathComponent("backup.jsonl")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        for arguments in [["import", fifo.path], ["import", "--merge", fifo.path]] {
            let result = try bounded(cli, arguments)
            #expect(result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("is not a regular file"), "\(arguments): \(result.stderr)")
        }
        let source = try CLIRunner()
        try source.register("ada", fullname: "Ada")
        let backup = try source.run(["export"]).stdout
        #expect(try cli.run(["import", "-"], stdin: backup).status == 0)
    }

    @Test(arguments: ["a\nlimit = 5", "a\u{0}b", "\u{1B}[2J", "a\u{7F}", "a\u{85}", "a\tb", "a\u{2028}b"])
    func configSetRefusesControlCharacters(_ value: String) throws {
        // NUL cannot be an argument: the config file carries it instead.
        guard !value.contains("\u{0}") else { return }
        let cli = try CLIRunner()
        for key in ["store", "color", "limit", "postgres-lock-timeout"] {
            let result = try cli.run(["config", "set", key, value])
            #expect(result.status == 64, "\(key) \(value.debugDescription): \(result.stderr)")
            #expect(result.stderr.contains("holds the control character U+"), "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error: ") && result.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: configFile(cli).path), "nothing written")
    }

    @Test func aStorePathHoldingNulLeavesNothingBehind() throws {
        let cli = try CLIRunner()
        let config = configFile(cli)
        try FileManager.default.createDirectory(
            at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        let target = cli.home.appendingPathComponent("made")
        try Data("store = \(target.path)\u{0}/store\n".utf8).write(to: config)
        let register = try cli.run(
            ["register", "--email", "a@example.com", "--username", "ada", "--fullname", "Ada", "--password-stdin"],
            stdin: "correct horse\n", store: false)
        #expect(register.status == 1, "\(register.stderr)")
        #expect(register.stderr.contains("line 1: store holds the control character U+0000"), "\(register.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target.path), "a directory was left behind")
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent(".local").path))
    }
}
