import TweetCore

struct DoctorCommand: Command {
    static let name = "doctor"
    static let usage = "doctor [--repair]"
    static let summary = "Check the store's files; --repair keeps every intact record and moves the rest aside"

    var repair: Bool

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        repair = list.flag("--repair")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let directory = AppPaths.storeDirectory(option: context.options.storePath, environment: context.environment)
        let viewModel = DoctorViewModel(storeDirectory: directory)
        if repair {
            await viewModel.repair()
            try check(viewModel.error)
            guard let report = viewModel.report else { return }
            var text = report.repaired.isEmpty ? "Nothing needed repair.\n" : ""
            text += report.repaired.map { "repaired: \($0)\n" }.joined()
            text += report.sideFiles.map { "moved aside to \($0)\n" }.joined()
            text += report.unrepaired.map { "not repaired: \($0)\n" }.joined()
            Output.write(text)
            if !report.unrepaired.isEmpty {
                throw DoctorFailure("\(report.unrepaired.count) problem(s) need a backup or a newer tweetcli")
            }
        } else {
            await viewModel.check()
            try check(viewModel.error)
            if viewModel.problems.isEmpty {
                Output.write("The store at \(directory) is healthy.\n")
                return
            }
            Output.write(viewModel.problems.map { "\($0)\n" }.joined())
            throw DoctorFailure(
                "the store has \(viewModel.problems.count) problem(s); 'tweetcli doctor --repair' keeps every intact record"
            )
        }
    }
}

/// The doctor's verdict when the store is not healthy: exit 1 with one sentence.
struct DoctorFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
