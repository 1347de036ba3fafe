import TweetCore
import TweetStore
import TweetStoreLocal
import TweetStorePostgres

struct DoctorCommand: Command {
    static let name = "doctor"
    static let movesBulkData = true
    static let usage = "doctor [--repair]"
    static let summary = "Check the store's files; --repair keeps every intact record and moves the rest aside"
    static let options = [Option("--repair", "repair what can be: intact records stay, damaged lines go to side files")]

    var repair: Bool

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        repair = try list.flag("--repair")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let directory = context.storeDirectory
        guard !PostgresLocation.isLocation(directory) else {
            throw CommandFailure(
                "doctor checks a local store's files; a PostgreSQL store's data is kept safe by its server",
                hint: "check the server's own data with pg_amcheck")
        }
        let viewModel = DoctorViewModel(
            maintenance: StoreDoctor(directory: directory, indexes: AppServices.indexes))
        if repair {
            let progress = ProgressLine("Repairing", unit: "files")
            defer { progress.clear() }
            try await viewModel.repair { progress.update($0) }
            progress.clear()
            guard let report = viewModel.report else { return }
            var text = report.repaired.isEmpty ? "Nothing needed repair.\n" : ""
            text += report.repaired.map { "repaired: \($0)\n" }.joined()
            text += report.sideFiles.map { "moved aside to \($0)\n" }.joined()
            text += report.unrepaired.map { "not repaired: \($0)\n" }.joined()
            try context.screen.write(TerminalText(text, multiline: true))
            if !report.unrepaired.isEmpty {
                throw CommandFailure("\(report.unrepaired.count) problem(s) need a backup or a newer tweetcli")
            }
        } else {
            let progress = ProgressLine("Checking", unit: "files")
            defer { progress.clear() }
            try await viewModel.check { progress.update($0) }
            progress.clear()
            if viewModel.problems.isEmpty {
                try context.screen.write("The store at \(directory) is healthy.\n")
                return
            }
            try context.screen.write(TerminalText(viewModel.problems.map { "\($0)\n" }.joined(), multiline: true))
            throw CommandFailure(
                "the store has \(viewModel.problems.count) problem(s)",
                hint: "keep every intact record with: \(context.suggest("doctor --repair"))")
        }
    }
}

/// `compact`: the fold of a local store's journal and the merges of its segments, now. Writes
/// start them by themselves, in a detached `tweetcli compact` (see ``BackgroundCompaction``), so
/// this is rarely needed by hand.
struct CompactCommand: Command {
    static let name = "compact"
    static let usage = "compact"
    static let summary =
        "Fold the journal and merge the store's segments now (writes start this by themselves, in the background)"

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let directory = context.storeDirectory
        guard !PostgresLocation.isLocation(directory) else {
            throw CommandFailure(
                "compact folds and merges a local store's files; a PostgreSQL server compacts its own (VACUUM)")
        }
        let viewModel = DoctorViewModel(
            maintenance: StoreDoctor(
                directory: directory, indexes: AppServices.indexes, foldThreshold: context.foldThreshold))
        let progress = ProgressLine("Compacting", unit: "documents merged")
        defer { progress.clear() }
        try await viewModel.compact { progress.update($0) }
        progress.clear()
        try context.screen.write(
            viewModel.compacted == true
                ? "The store at \(directory) is compacted.\n"
                : "Another process is compacting the store at \(directory); it does the work.\n")
    }
}
