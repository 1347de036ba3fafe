import Foundation

/// Starts the benchmark's child processes with one environment and a scratch directory for their
/// standard error.
struct ProcessLauncher {
    /// The children's environment, as `NAME=value` strings.
    let environment: [String]
    /// Where each child's standard error is kept, one file per label.
    let scratchDirectory: String

    /// A launcher whose children inherit this process's environment, changed by `overrides`.
    init(scratchDirectory: String, overrides: [String: String]) {
        var variables = ProcessInfo.processInfo.environment
        variables.merge(overrides) { _, override in override }
        environment = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        self.scratchDirectory = scratchDirectory
    }

    /// The benchmark's launcher: children's stderr and sessions (`XDG_STATE_HOME`) in `workspace`,
    /// never in the user's own ~/.local/state, and no colour.
    static func inWorkspace(_ workspace: Workspace) -> ProcessLauncher {
        ProcessLauncher(
            scratchDirectory: workspace.path, overrides: ["XDG_STATE_HOME": workspace.path("state"), "NO_COLOR": "1"])
    }

    /// Starts `commandLine`; its standard error goes to `<scratch>/<label>.stderr`.
    /// - Throws: ``BenchmarkError/spawnFailed(command:reason:)``.
    func start(
        _ commandLine: [String], input: BenchmarkProcess.Input = .null, output: BenchmarkProcess.Output = .null,
        label: String = "child"
    ) throws -> BenchmarkProcess {
        try BenchmarkProcess(
            commandLine: commandLine, environment: environment, input: input, output: output,
            errorPath: (scratchDirectory as NSString).appendingPathComponent("\(label).stderr"))
    }

    /// Runs `commandLine` to its end, its output discarded.
    /// - Throws: ``BenchmarkError/commandFailed(command:status:stderr:)`` when it fails.
    @discardableResult
    func run(_ commandLine: [String], input: BenchmarkProcess.Input = .null) throws -> ChildResult {
        try start(commandLine, input: input).waitForExit().requireSuccess()
    }

    /// Runs `commandLine` to its end and returns its standard output (a small one: it is held whole).
    /// - Throws: ``BenchmarkError/commandFailed(command:status:stderr:)`` when it fails.
    func capture(_ commandLine: [String]) throws -> Data {
        let child = try start(commandLine, output: .pipe)
        let output: Data
        do {
            output = try DescriptorReader(
                descriptor: child.standardOutput ?? -1, name: "the output of \(ChildResult.display(commandLine))"
            )
            .readAll()
        } catch {
            if let descriptor = child.standardOutput { close(descriptor) }
            // Reap the child before rethrowing the first error, which is the one to report.
            _ = child.waitForExit()
            throw error
        }
        if let descriptor = child.standardOutput { close(descriptor) }
        try child.waitForExit().requireSuccess()
        return output
    }
}
