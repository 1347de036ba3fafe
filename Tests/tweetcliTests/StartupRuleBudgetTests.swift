import Foundation
import Testing
import TweetTestSupport

/// The start-up rules' sum: `whoami` and `feed` on a small seeded store, counted in instructions
/// with callgrind on the release build, stay within their budgets in `Budgets/startup.json`. An
/// instruction count, unlike a time, is the same on a loaded machine, so a rise of more than the
/// file's tolerance is a regression, not noise.
@Suite struct StartupRuleBudgetTests {
    /// Every account `seed` makes has this password.
    static let demoPassword = "tweetcli-demo"

    /// The instructions `tweetcli --store STORE ARGUMENTS` runs under callgrind, with the
    /// standard library's hashing made deterministic so that a run's count does not vary.
    static func instructions(
        _ arguments: [String], in cli: CLIRunner, executable: String, valgrind: String
    ) throws -> Int {
        let result = try cli.run(
            ["--tool=callgrind", "--callgrind-out-file=/dev/null", executable, "--store", cli.location] + arguments,
            environment: ["SWIFT_DETERMINISTIC_HASHING": "1"], executable: valgrind, store: false)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(!result.stdout.isEmpty, "\(arguments) printed nothing")
        // "==PID== Collected : N"
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("Collected :") })
        return try #require(line.split(separator: " ").last.flatMap { Int($0) }, "\(line)")
    }

    @Test func theBudgetsWereCheckedOrSayWhyNot() throws {
        try StartupPrerequisites.sayWhyNotRun(
            "the instruction budgets",
            needing: [StartupPrerequisites.releaseExecutable, StartupPrerequisites.valgrind])
    }

    @Test(
        .enabled(if: StartupPrerequisites.canCountInstructions, "needs the release build and valgrind"),
        arguments: try InstructionBudgets.load().budgets)
    func eachCommandRunsWithinItsInstructionBudget(_ budget: InstructionBudgets.Budget) throws {
        let file = try InstructionBudgets.load()
        let executable = try StartupPrerequisites.releaseExecutable.get()
        let valgrind = try StartupPrerequisites.valgrind.get()
        let cli = try CLIRunner()
        let seed = try cli.run(["seed"] + file.seed, executable: executable)
        try #require(seed.status == 0, "seed: \(seed.stderr)")
        let login = try cli.run(
            ["login", "--username", file.username, "--password-stdin"], stdin: Self.demoPassword + "\n",
            executable: executable)
        try #require(login.status == 0, "login \(file.username): \(login.stderr)")

        let count = try Self.instructions(budget.command, in: cli, executable: executable, valgrind: valgrind)
        let limit = Int(Double(budget.instructions) * (1 + file.tolerance))
        // Rounded to a tenth of a percent, so that a count a hair under its budget reads +0.0%, not -0.0%.
        let change = (Double(count - budget.instructions) / Double(budget.instructions) * 1000).rounded() / 10 + 0
        let summary =
            "\(budget.testDescription): \(count) instructions, "
            + "\(String(format: "%+.1f", change))% against its budget of \(budget.instructions)"
        print(summary)
        #expect(
            count <= limit,
            """
            \(summary), more than the \(Int(file.tolerance * 100))% allowed. If the rise is meant, raise \
            the budget in \(InstructionBudgets.path) and give the reason in the commit.
            """)
        if Double(count) < Double(budget.instructions) * (1 - file.tolerance) {
            print("\(budget.testDescription) is well under its budget: lower it in \(InstructionBudgets.path)")
        }
    }
}
