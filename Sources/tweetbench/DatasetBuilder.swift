import Foundation

/// Seeds a data set with `tweetcli seed`, measures the store, and copies the data into the peer
/// database: SQLite for the local engine, relational tables in the same PostgreSQL server for the
/// PostgreSQL engine.
struct DatasetBuilder {
    let executables: Executables
    let launcher: ProcessLauncher
    let workspace: Workspace
    let options: BenchmarkOptions
    /// The PostgreSQL engine's server; `nil` for the local engine.
    let server: PostgresServer?

    /// Builds the data set with `tweets` tweets (and as many likes).
    /// - Throws: ``BenchmarkError`` when a step fails.
    func build(tweets: Int) throws -> Dataset {
        let (store, peer): (String, String)
        if let server {
            try server.createDatabase("tweetcli_\(tweets)")
            try server.createDatabase("peer_\(tweets)")
            (store, peer) = (server.uri("tweetcli_\(tweets)"), server.uri("peer_\(tweets)"))
        } else {
            (store, peer) = (workspace.path("store-\(tweets)"), workspace.path("sqlite-\(tweets).db"))
        }
        ProgressLog.note("seeding \(tweets) tweets, \(tweets) likes, \(options.users) users …")
        let seed = try launcher.run([
            executables.tweetcli, "--store", store, "seed", "--users", "\(options.users)", "--tweets", "\(tweets)",
            "--likes", "\(tweets)", "--follows", "\(options.follows)", "--seed", "\(options.seed)",
        ])
        ProgressLog.note(
            String(format: "seeded in %.2f s; exporting into \(options.engine.peerName) …", seed.seconds))
        let started = MonotonicClock.nanoseconds()
        let converter = try exportIntoPeer(store: store, peer: peer)
        let loadSeconds = Double(MonotonicClock.nanoseconds() - started) / 1e9
        let (storeBytes, peerBytes): (Int, Int)
        if let server {
            // Autovacuum's first pass over the freshly loaded rows would otherwise run during the
            // timings (the peer's load ends with the same); then a checkpoint, for the same reason.
            try server.psql(database: "tweetcli_\(tweets)", "VACUUM ANALYZE")
            try server.psql(database: "postgres", "CHECKPOINT")
            (storeBytes, peerBytes) = (
                try server.size(of: "tweetcli_\(tweets)"), try server.size(of: "peer_\(tweets)")
            )
        } else {
            (storeBytes, peerBytes) = (try Self.size(ofDirectory: store), Self.size(ofFile: peer) ?? 0)
        }
        return Dataset(
            tweets: tweets, store: store, peer: peer, seed: seed, storeBytes: storeBytes,
            jsonArrayBytes: converter.jsonArrayBytes, documents: converter.documents, peerLoadSeconds: loadSeconds,
            peerBytes: peerBytes,
            rareWord: converter.wordCounts.filter { $0.value >= 3 }.min {
                ($0.value, $0.key) < ($1.value, $1.key)
            }?.key ?? "the")
    }

    /// The peer's shell reading SQL from its standard input, stopping at the first error.
    private func peerLoader(_ peer: String) -> [String] {
        switch options.engine {
        case .local: return [executables.peerShell, "-batch", "-bail", peer]
        case .postgresql: return [executables.peerShell] + PostgresServer.psqlOptions + ["-d", peer]
        }
    }

    /// Pipes `tweetcli export` through an ``ExportConverter`` into the peer's shell, all three at
    /// once, so neither the export nor the SQL is ever held whole in memory or on disk.
    private func exportIntoPeer(store: String, peer: String) throws -> ExportConverter {
        let export = try launcher.start(
            [executables.tweetcli, "--store", store, "export"], output: .pipe, label: "export")
        let loader: ChildProcess
        do {
            loader = try launcher.start(peerLoader(peer), input: .pipe, label: "\(options.engine.peerName)-load")
        } catch {
            if let descriptor = export.standardOutput { close(descriptor) }
            // Reap the export before rethrowing the first error, which is the one to report.
            _ = try? export.waitForExit()
            throw error
        }
        var converter = ExportConverter(
            sql: DescriptorWriter(descriptor: loader.standardInput ?? -1, name: "\(options.engine.peerName)'s input"),
            engine: options.engine)
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
        if let descriptor = loader.standardInput { close(descriptor) }
        let exported = try export.waitForExit()
        let loaded = try loader.waitForExit()
        // The export's failure explains the rest; the loader's explains a broken pipe.
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
