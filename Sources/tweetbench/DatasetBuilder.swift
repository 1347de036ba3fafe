import Foundation

/// Seeds a data set with `tweetcli seed`, measures the store, and copies the data into SQLite.
struct DatasetBuilder {
    let executables: Executables
    let launcher: ProcessLauncher
    let workspace: Workspace
    let options: BenchmarkOptions

    /// Builds the data set with `tweets` tweets (and as many likes).
    /// - Throws: ``BenchmarkError`` when a step fails.
    func build(tweets: Int) throws -> Dataset {
        let store = workspace.path("store-\(tweets)")
        let database = workspace.path("sqlite-\(tweets).db")
        ProgressLog.note("seeding \(tweets) tweets, \(tweets) likes, \(options.users) users …")
        let seed = try launcher.run([
            executables.tweetcli, "--store", store, "seed", "--users", "\(options.users)", "--tweets", "\(tweets)",
            "--likes", "\(tweets)", "--follows", "\(options.follows)", "--seed", "\(options.seed)",
        ])
        ProgressLog.note(String(format: "seeded in %.2f s; exporting into SQLite …", seed.seconds))
        let started = MonotonicClock.nanoseconds()
        let converter = try exportIntoSQLite(store: store, database: database)
        let loadSeconds = Double(MonotonicClock.nanoseconds() - started) / 1e9
        return Dataset(
            tweets: tweets, storeDirectory: store, databasePath: database, seed: seed,
            storeBytes: try Self.size(ofDirectory: store), jsonArrayBytes: converter.jsonArrayBytes,
            documents: converter.documents, sqliteLoadSeconds: loadSeconds,
            databaseBytes: Self.size(ofFile: database) ?? 0,
            rareWord: converter.wordCounts.filter { $0.value >= 3 }.min {
                ($0.value, $0.key) < ($1.value, $1.key)
            }?.key ?? "the")
    }

    /// Pipes `tweetcli export` through an ``ExportConverter`` into `sqlite3`, all three at once, so
    /// neither the export nor the SQL is ever held whole in memory or on disk.
    private func exportIntoSQLite(store: String, database: String) throws -> ExportConverter {
        let export = try launcher.start(
            [executables.tweetcli, "--store", store, "export"], output: .pipe, label: "export")
        let sqlite: ChildProcess
        do {
            sqlite = try launcher.start(
                [executables.sqlite3, "-batch", "-bail", database], input: .pipe, label: "sqlite3-load")
        } catch {
            if let descriptor = export.standardOutput { close(descriptor) }
            // Reap the export before rethrowing the first error, which is the one to report.
            _ = try? export.waitForExit()
            throw error
        }
        var converter = ExportConverter(
            sql: DescriptorWriter(descriptor: sqlite.standardInput ?? -1, name: "sqlite3's input"))
        // The first failure is kept and the export is still read to its end, so that the export
        // ends on its own and its own error, if any, can be told apart from the converter's.
        var failure: (any Error)?
        do {
            try converter.begin()
            try DescriptorReader(descriptor: export.standardOutput ?? -1, name: "the output of tweetcli export")
                .forEachLine { line, number in
                    guard failure == nil else { return }
                    do { try converter.consume(line, number: number) } catch { failure = error }
                }
            if failure == nil { try converter.finish() }
        } catch {
            failure = failure ?? error
        }
        if let descriptor = export.standardOutput { close(descriptor) }
        if let descriptor = sqlite.standardInput { close(descriptor) }
        let exported = try export.waitForExit()
        let loaded = try sqlite.waitForExit()
        // The export's failure explains the rest; sqlite3's explains a broken pipe.
        try exported.requireSuccess()
        try loaded.requireSuccess()
        if let failure { throw failure }
        return converter
    }

    /// The sum of the sizes of the regular files under `directory`.
    /// - Throws: ``BenchmarkError/io(path:reason:)``.
    static func size(ofDirectory directory: String) throws -> Int {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else {
            throw BenchmarkError.io(path: directory, reason: "cannot be listed")
        }
        var total = 0
        while let relative = enumerator.nextObject() as? String {
            total += size(ofFile: (directory as NSString).appendingPathComponent(relative)) ?? 0
        }
        return total
    }

    /// The size of the regular file at `path`, or `nil` for anything else.
    static func size(ofFile path: String) -> Int? {
        // Files that vanish or cannot be read are not counted: the doc says "nil for anything else".
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }
}
