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

    /// Builds the data set with `tweets` tweets (and as many likes) by `users` users.
    /// - Throws: ``BenchmarkError`` when a step fails.
    func build(tweets: Int, users: Int) throws -> Dataset {
        let (store, peer): (String, String)
        if let server {
            try server.createDatabase("tweetcli_\(tweets)")
            try server.createDatabase("peer_\(tweets)")
            (store, peer) = (server.uri("tweetcli_\(tweets)"), server.uri("peer_\(tweets)"))
        } else {
            (store, peer) = (workspace.path("store-\(tweets)"), workspace.path("sqlite-\(tweets).db"))
        }
        ProgressLog.note("seeding \(tweets) tweets, \(tweets) likes, \(users) users …")
        let seed = try launcher.run([
            executables.tweetcli, "--store", store, "seed", "--users", "\(users)", "--tweets", "\(tweets)",
            "--likes", "\(tweets)", "--follows", "\(options.follows)", "--seed", "\(options.seed)",
        ])
        ProgressLog.note(String(format: "seeded in %.2f s; exporting …", seed.seconds))
        // The export goes to a file, read by the import and by the peer's load, and removed after.
        let exported = workspace.path("export-\(tweets).jsonl")
        defer { unlink(exported) }
        let export = try launcher.start(
            [executables.tweetcli, "--store", store, "export"], output: .file(exported), label: "export"
        ).waitForExit().requireSuccess()
        var importResult: ChildResult?
        if server == nil {
            ProgressLog.note(String(format: "exported in %.2f s; importing it into a new store …", export.seconds))
            let imported = workspace.path("import-\(tweets)")
            // Scratch space only: what cannot be removed now goes with the workspace.
            defer { try? FileManager.default.removeItem(atPath: imported) }
            importResult = try launcher.run([executables.tweetcli, "--store", imported, "import", exported])
        }
        ProgressLog.note("loading it into \(options.engine.peerName) …")
        let started = MonotonicClock.nanoseconds()
        let converter = try load(exported, intoPeer: peer)
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
            tweets: tweets, users: users, store: store, peer: peer, seed: seed, storeBytes: storeBytes,
            jsonArrayBytes: converter.jsonArrayBytes, documents: converter.documents, export: export,
            importResult: importResult, peerLoadSeconds: loadSeconds, peerBytes: peerBytes,
            rareWord: converter.wordCounts.filter { $0.value >= 3 }.min {
                ($0.value, $0.key) < ($1.value, $1.key)
            }?.key ?? "the",
            mutedWords: Array(
                converter.wordCounts.filter { $0.key.count >= 4 && $0.value >= 3 }
                    .sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(Self.mutedWordCount).map(\.key)))
    }

    /// How many words the filtered viewer mutes (issue 43): the least common words of four letters
    /// or more found at least 3 times, so that they hide a share of the tweets as a person's muted
    /// topics would, rather than most of the timeline (the demo captions' vocabulary is small).
    static let mutedWordCount = 100

    /// The peer's shell reading SQL from its standard input, stopping at the first error.
    private func peerLoader(_ peer: String) -> [String] {
        switch options.engine {
        case .local: return [executables.peerShell, "-batch", "-bail", peer]
        case .postgresql: return [executables.peerShell] + PostgresServer.psqlOptions + ["-d", peer]
        }
    }

    /// Reads the exported file `exported` through an ``ExportConverter`` into the peer's shell, a
    /// line at a time, so that the SQL is never held whole in memory or on disk.
    private func load(_ exported: String, intoPeer peer: String) throws -> ExportConverter {
        let descriptor = open(exported, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw BenchmarkError.io(path: exported, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        let loader = try launcher.start(peerLoader(peer), input: .pipe, label: "\(options.engine.peerName)-load")
        var converter = ExportConverter(
            sql: DescriptorWriter(descriptor: loader.standardInput ?? -1, name: "\(options.engine.peerName)'s input"),
            engine: options.engine)
        // The first failure is kept; the loader is still reaped, and its own failure (which
        // explains a broken pipe) reported first.
        var failure: (any Error)?
        do {
            try converter.begin()
            try DescriptorReader(descriptor: descriptor, name: exported).forEachLine { line, number in
                guard failure == nil else { return }
                do { try converter.consume(line, number: number) } catch { failure = error }
            }
            if failure == nil { try converter.finish() }
        } catch {
            failure = failure ?? error
        }
        if let input = loader.standardInput { close(input) }
        try loader.waitForExit().requireSuccess()
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
