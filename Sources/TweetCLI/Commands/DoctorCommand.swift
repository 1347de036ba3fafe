import TweetCore
import TweetStore
import TweetStoreLocal
import TweetStorePostgres

struct DoctorCommand: Command {
    static let name = "doctor"
    static let movesBulkData = true
    static let usage = "doctor [--repair]"
    static let summary =
        "Check the store's files and documents; --repair keeps every intact record, moves the rest aside and counts counters again"
    static let options = [
        Option(
            "--repair",
            "repair what can be: intact records stay, damaged lines go to side files, sessions of no account end, counters are counted again"
        )
    ]

    var repair: Bool

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        repair = try list.flag("--repair")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let directory = context.storeDirectory
        // PostgreSQL keeps its own files (pg_amcheck checks them); the documents are checked on both.
        let isPostgres = PostgresLocation.isLocation(directory)
        let viewModel = DoctorViewModel(
            maintenance: isPostgres ? nil : StoreDoctor(directory: directory, indexes: AppServices.indexes))
        if repair {
            let progress = ProgressLine("Repairing", unit: "files")
            defer { progress.clear() }
            try await viewModel.repair { progress.update($0) }
            progress.clear()
            guard let report = viewModel.report else { return }
            var repaired = report.repaired.map { "repaired: \($0)\n" }
            var unrepaired = report.unrepaired.map { "not repaired: \($0)\n" }
            // The documents only once the files are whole: a store that does not open has none to read.
            if report.unrepaired.isEmpty {
                let documents = ProgressLine("Checking documents", unit: "documents")
                defer { documents.clear() }
                try await viewModel.repairAudit(try context.services()) { documents.update($0) }
                documents.clear()
                repaired += (viewModel.auditRepair?.repaired ?? []).map { "repaired: \($0)\n" }
                unrepaired += (viewModel.auditRepair?.unrepaired ?? []).map { "not repaired: \($0)\n" }
            }
            var text = repaired.isEmpty ? "Nothing needed repair.\n" : repaired.joined()
            text += report.sideFiles.map { "moved aside to \($0)\n" }.joined()
            text += unrepaired.joined()
            try context.screen.write(TerminalText(text, multiline: true))
            if !unrepaired.isEmpty {
                throw CommandFailure(
                    "\(unrepaired.count) problem(s) need a backup, a person's decision or a newer tweetcli")
            }
        } else {
            let progress = ProgressLine("Checking", unit: "files")
            defer { progress.clear() }
            try await viewModel.check { progress.update($0) }
            progress.clear()
            var problems = viewModel.problems.map(\.description)
            if problems.isEmpty {
                let documents = ProgressLine("Checking documents", unit: "documents")
                defer { documents.clear() }
                try await viewModel.audit(try context.services()) { documents.update($0) }
                documents.clear()
                problems = viewModel.auditProblems.map(\.description)
            }
            if problems.isEmpty {
                try context.screen.write("The store at \(directory) is healthy.\n")
                return
            }
            try context.screen.write(TerminalText(problems.map { "\($0)\n" }.joined(), multiline: true))
            throw CommandFailure(
                "the store has \(problems.count) problem(s)",
                hint: "repair what can be with: \(context.suggest("doctor --repair"))")
        }
    }
}

/// `compact`: the fold of a local store's journal and the merges of its segments, now. Writes
/// start them by themselves, in a detached `tweetcli compact` (see ``BackgroundCompaction``), so
/// this is rarely needed by hand.
struct CompactCommand: Command {
    static let name = "compact"
    static let usage = "compact [--files-only]"
    static let summary =
        "Fold the journal and merge a local store's segments now, and remove the photos nothing names any more"
    static let options = [
        Option(
            "--files-only",
            "fold and merge only, without reading every tweet for unused photos (what writes start in the background)")
    ]

    var filesOnly: Bool

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        filesOnly = try list.flag("--files-only")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let directory = context.storeDirectory
        let isPostgres = PostgresLocation.isLocation(directory)
        if isPostgres, filesOnly {
            throw CommandFailure(
                "compact --files-only folds and merges a local store's files; a PostgreSQL server compacts its own (VACUUM)"
            )
        }
        let viewModel = DoctorViewModel(
            maintenance: isPostgres
                ? nil
                : StoreDoctor(directory: directory, indexes: AppServices.indexes, foldThreshold: context.foldThreshold))
        var text = TerminalText()
        if !isPostgres {
            let progress = ProgressLine("Compacting", unit: "documents merged")
            defer { progress.clear() }
            try await viewModel.compact { progress.update($0) }
            progress.clear()
            text +=
                viewModel.compacted == true
                ? "The store at \(directory) is compacted.\n"
                : "Another process is compacting the store at \(directory); it does the work.\n"
        }
        if !filesOnly {
            let progress = ProgressLine("Looking for unused photos", unit: "documents")
            defer { progress.clear() }
            // Tests wait less than the hour a post in flight is given.
            let grace = context.environment["TWEETCLI_PHOTO_GRACE"].flatMap { Int($0) }.map { max(0, $0) }
            try await viewModel.collectPhotos(try context.services(), grace: grace) { progress.update($0) }
            progress.clear()
            if let collection = viewModel.photoCollection {
                if let problem = collection.stoppedBy {
                    text += "No photo was removed: \(problem.description) (doctor says more).\n"
                } else if collection.removed > 0 {
                    text += "Removed \(counted(collection.removed, "photo")) nothing names any more "
                    text += "(\(Self.megabytes(collection.bytes))).\n"
                } else if isPostgres {
                    text += "No photo is unused; the PostgreSQL server compacts its own files (VACUUM).\n"
                }
            }
        }
        try context.screen.write(text)
    }

    /// Bytes as a person reads a size: kilobytes under a megabyte, else megabytes with one decimal.
    static func megabytes(_ bytes: Int) -> String {
        guard bytes >= 1_048_576 else { return "\((bytes + 1023) / 1024) KB" }
        let tenths = (bytes * 10 + 524_288) / 1_048_576
        return "\(tenths / 10).\(tenths % 10) MB"
    }
}
