import Foundation
import Testing
import TweetTestSupport

/// A command runs on its main thread only. Work that hops to Swift's global executor (an async
/// closure that is not `nonisolated(nonsending)`, which a capture list makes one) starts
/// libdispatch's thread pool: a millisecond of threads for nothing. Counted with callgrind, which
/// writes one file for each thread a program runs.
@Suite struct StartupRuleThreadTests {
    /// The threads `tweetcli ARGUMENTS` ran, counted by callgrind's per-thread output files.
    static func threads(
        _ arguments: [String], in cli: CLIRunner, executable: String, valgrind: String
    ) throws -> Int {
        let folder = cli.home.appendingPathComponent("threads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            // Only the count is wanted; a file left behind goes with the runner's directory.
            try? FileManager.default.removeItem(at: folder)
        }
        let result = try cli.run(
            [
                "--tool=callgrind", "--separate-threads=yes", "--dump-instr=no",
                "--callgrind-out-file=\(folder.path)/run", executable, "--store", cli.location,
            ] + arguments,
            executable: valgrind, store: false)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        // "run-01" for the main thread, "run-02" for the next, and so on.
        return files.filter { $0.hasPrefix("run-") }.count
    }

    @Test func theThreadsWereCountedOrSayWhyNot() throws {
        try StartupPrerequisites.sayWhyNotRun(
            "the one-thread rule", needing: [StartupPrerequisites.releaseExecutable, StartupPrerequisites.valgrind])
    }

    @Test(.enabled(if: StartupPrerequisites.canCountInstructions, "needs the release build and valgrind"))
    func everyCommandRunsOnOneThread() throws {
        let executable = try StartupPrerequisites.releaseExecutable.get()
        let valgrind = try StartupPrerequisites.valgrind.get()
        let cli = try CLIRunner()
        let file = try InstructionBudgets.load()
        try #require(try cli.run(["seed"] + file.seed, executable: executable).status == 0)
        let login = try cli.run(
            ["login", "--username", file.username, "--password-stdin"],
            stdin: StartupRuleBudgetTests.demoPassword + "\n", executable: executable)
        try #require(login.status == 0, "login: \(login.stderr)")
        let me = try JSONSerialization.jsonObject(
            with: Data(cli.run(["--json", "whoami"], executable: executable).stdout.utf8))
        let uid = try #require((me as? [String: Any])?["id"] as? String)
        let feed = try JSONSerialization.jsonObject(
            with: Data(cli.run(["--json", "feed", "--limit", "1"], executable: executable).stdout.utf8))
        let tweet = try #require(((feed as? [[String: Any]])?.first)?["id"] as? String)
        let commands: [[String]] = [
            ["whoami"], ["feed"], ["feed", "--following"], ["profile"], ["profile", uid, "--tab", "likes"],
            ["profile", "@\(file.username)", "--tab", "replies"], ["search", "the"], ["search", "#swiftui"],
            ["explore", "a"], ["trends"], ["bookmarks"], ["thread", tweet], ["notifications"],
            ["like", tweet], ["unlike", tweet], ["post", "one thread is enough"],
        ]
        for command in commands {
            let threads = try Self.threads(command, in: cli, executable: executable, valgrind: valgrind)
            #expect(threads == 1, "\(command.joined(separator: " ")) ran \(threads) threads")
        }
    }

    /// The same on PostgreSQL, where the reads a command asks ahead go with its session check
    /// through closures the view models and services hand over.
    @Test(
        .enabled(
            if: StartupPrerequisites.canCountInstructions && PostgresCluster.isAvailable,
            "needs the release build, valgrind and PostgreSQL"))
    func everyCommandRunsOnOneThreadOnPostgreSQL() throws {
        let executable = try StartupPrerequisites.releaseExecutable.get()
        let valgrind = try StartupPrerequisites.valgrind.get()
        let store = try PostgresCluster.freshLocation()
        let ada = try CLIRunner(location: store)
        let cy = try CLIRunner(location: store)
        let cyUid = try cy.register("cy", fullname: "Cy")
        let tweet = try cy.post("a #garden in the city")
        try ada.register("ada", fullname: "Ada")
        for arguments in [["follow", "@cy"], ["bookmark", tweet]] {
            #expect(try ada.run(arguments).status == 0, "\(arguments)")
        }
        #expect(try cy.run(["like", try ada.post("hello @cy")]).status == 0)
        let commands: [[String]] = [
            ["whoami"], ["feed"], ["feed", "--following"], ["profile"], ["profile", cyUid], ["profile", "@cy"],
            ["search", "garden"], ["bookmarks"], ["thread", tweet], ["notifications"], ["like", tweet],
        ]
        for command in commands {
            let threads = try Self.threads(command, in: ada, executable: executable, valgrind: valgrind)
            #expect(threads == 1, "\(command.joined(separator: " ")) ran \(threads) threads")
        }
    }
}
