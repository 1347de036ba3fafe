import Foundation

/// Builds the data sets, signs in, and times every operation through tweetcli and the peer's shell
/// (`sqlite3`, or `psql` for the PostgreSQL engine).
struct Benchmark {
    /// The two sides of each figure.
    private enum Side: CaseIterable {
        case tweetcli, peer
    }

    let options: BenchmarkOptions
    let executables: Executables

    /// Runs the whole benchmark in a fresh workspace, removed at the end unless `--keep` named it.
    /// - Throws: ``BenchmarkError`` at the first step that fails.
    func run() throws -> BenchmarkResult {
        let workspace = try Workspace(kept: options.keep)
        defer { workspace.removeUnlessKept() }
        ProgressLog.note("working in \(workspace.path)\(workspace.isKept ? "" : " (removed at the end)")")
        // `swift run tweetbench` rebuilds only tweetbench: show how old the binaries it times are.
        for path in [executables.tweetcli, executables.floor] {
            // Only informative: a missing date prints "at an unknown time".
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            ProgressLog.note("using \(path), built \(modified.map { "\($0)" } ?? "at an unknown time")")
        }
        let launcher = ProcessLauncher.inWorkspace(workspace)
        let version = String(decoding: try launcher.capture([executables.peerShell, "--version"]), as: UTF8.self)
            .split(separator: " ")
        // sqlite3 prints "3.40.1 2022-12-28 …", psql "psql (PostgreSQL) 15.14 (Debian …)".
        let peerVersion =
            options.engine == .local
            ? version.prefix(2).joined(separator: " ") : "PostgreSQL " + version.dropFirst(2).prefix(1).joined()

        let server = try PostgresServer.startIfNeeded(
            for: options, executables: executables, workspace: workspace, launcher: launcher)
        defer { server?.stop() }
        let builder = DatasetBuilder(
            executables: executables, launcher: launcher, workspace: workspace, options: options, server: server)
        let sizes =
            [(options.small, options.users), (options.tweets, options.users)]
            + (options.huge > 0 ? [(options.huge, options.hugeUsers)] : [])
        let datasets = try sizes.map { try builder.build(tweets: $0.0, users: $0.1) }
        var subjects: [Subjects] = []
        for dataset in datasets {
            // One query for every data set, so that their times compare.
            let query = options.query ?? subjects.first?.query
            var signedIn = try signIn(on: dataset, query: query, rareWord: subjects.first?.rareWord, launcher: launcher)
            try setUpFilteredViewer(on: dataset, subjects: &signedIn, launcher: launcher)
            subjects.append(signedIn)
        }

        var operations: [BenchmarkResult.OperationResult] = []
        let peer = PeerQueries(engine: options.engine)
        let catalog = Operation.catalog(query: subjects.first?.query ?? "", peer: peer)
        guard let floor = catalog.joined().first(where: { $0.program == .floor }) else {
            preconditionFailure("the catalog starts with the floor")
        }
        for group in catalog {
            ProgressLog.note("timing \(group.map(\.name).joined(separator: " / ")) …")
            operations += try measure(
                group, settlingWith: floor, datasets: datasets, subjects: subjects, launcher: launcher)
        }
        return BenchmarkResult(
            options: options, machine: Machine.current(), swiftRuntime: executables.swiftRuntime,
            peerVersion: peerVersion, datasets: datasets,
            subjects: subjects, operations: operations)
    }

    /// One warm-up round, then ``BenchmarkOptions/runs`` timed rounds. Each round runs every
    /// operation of the group once, in order, each as a fresh process, on every data set and
    /// through both tweetcli and the peer's shell: interleaved, so that load from elsewhere on a shared
    /// machine touches every series alike instead of skewing one of them. The floor runs once per
    /// round and data set beside a group of commands, for their ratios to it.
    ///
    /// Before each side's runs, that side's floor (`settle`: the Swift floor, or the peer running
    /// its `SELECT 1`) runs once untimed, so that neither side is timed straight after the other's
    /// program: a process started right after a different one (a `sqlite3` scan, even its `SELECT 1`)
    /// took longer than after one of its own kind (docs/BENCHMARK.md), which charged each series
    /// for whatever the interleaving put before it.
    private func measure(
        _ group: [Operation], settlingWith settle: Operation, datasets: [Dataset], subjects: [Subjects],
        launcher: ProcessLauncher
    ) throws -> [BenchmarkResult.OperationResult] {
        let empty = Array(repeating: Timings(), count: datasets.count)
        var results = group.map {
            BenchmarkResult.OperationResult(
                name: $0.name, hasTargets: $0.hasTargets, floorTarget: $0.floorTarget, tweetcli: empty, peer: empty,
                floor: [])
        }
        // The floor runs beside every group of commands, so that each command's ratio to it
        // compares runs made moments apart: before the commands in even rounds and after them in
        // odd ones, so that the two orders come within one round of each other's count.
        let pairsFloor = group.allSatisfy { $0.program != .floor }
        var floor = empty
        for round in 0...options.runs {
            for (index, dataset) in datasets.enumerated() {
                for side in Side.allCases {
                    try launcher.run(
                        commandLine(settle, side: side, dataset: dataset, subjects: subjects[index], run: round))
                    let floorFirst = round.isMultiple(of: 2)
                    let timesFloor = pairsFloor && side == .tweetcli
                    if timesFloor && floorFirst { try runFloor(round: round, into: &floor[index], launcher: launcher) }
                    for (position, operation) in group.enumerated() {
                        let commandLine = self.commandLine(
                            operation, side: side, dataset: dataset, subjects: subjects[index], run: round)
                        let result = try launcher.run(commandLine)
                        guard round > 0 else { continue }
                        switch side {
                        case .tweetcli: results[position].tweetcli[index].append(result)
                        case .peer: results[position].peer[index].append(result)
                        }
                    }
                    if timesFloor && !floorFirst { try runFloor(round: round, into: &floor[index], launcher: launcher) }
                }
            }
        }
        if pairsFloor {
            for position in results.indices { results[position].floor = floor }
        }
        return results
    }

    /// Runs the floor once, keeping its time unless `round` is the warm-up.
    private func runFloor(round: Int, into timings: inout Timings, launcher: ProcessLauncher) throws {
        let result = try launcher.run([executables.floor])
        if round > 0 { timings.append(result) }
    }

    /// The command line that runs `operation` on one side for run number `run`.
    private func commandLine(
        _ operation: Operation, side: Side, dataset: Dataset, subjects: Subjects, run: Int
    ) -> [String] {
        switch (side, operation.program) {
        case (.tweetcli, .floor):
            return [executables.floor]
        case (.tweetcli, .tweetcli):
            return [executables.tweetcli, "--store", dataset.store] + operation.arguments(subjects, run)
        case (.peer, _):
            switch options.engine {
            case .local:
                return [executables.peerShell, "-batch", "-bail", dataset.peer, operation.sql(subjects, run)]
            case .postgresql:
                return [executables.peerShell] + PostgresServer.psqlOptions
                    + ["-d", dataset.peer, "-c", operation.sql(subjects, run)]
            }
        }
    }

    /// Signs in as the first user `explore` lists, with the seeder's demo password, and picks the
    /// newest tweet of their feed that they do not like yet. Without a `query`, explore searches
    /// for the first three letters of that user's name, which matches at least them.
    private func signIn(on dataset: Dataset, query: String?, rareWord: String?, launcher: ProcessLauncher) throws
        -> Subjects
    {
        let tweetcli = [executables.tweetcli, "--store", dataset.store]
        let explore = tweetcli + ["explore", "--json"]
        let listed = try launcher.capture(explore)
        // Output that is not the expected JSON is reported as unexpectedOutput just below.
        guard let users = try? JSONSerialization.jsonObject(with: listed) as? [[String: Any]],
            let uid = users.first?["id"] as? String, let username = users.first?["username"] as? String
        else {
            throw BenchmarkError.unexpectedOutput(
                command: ChildResult.display(explore), reason: "not a JSON array starting with a user's id and username"
            )
        }
        try launcher.run(
            tweetcli + ["login", "--username", username, "--password-stdin"],
            input: .bytes(Array("\(Self.demoPassword)\n".utf8)))
        let feed = tweetcli + ["feed", "--json", "--limit", "\(PeerQueries.pageSize)"]
        let page = try launcher.capture(feed)
        // Output that is not the expected JSON is reported as unexpectedOutput just below.
        guard let tweets = try? JSONSerialization.jsonObject(with: page) as? [[String: Any]] else {
            throw BenchmarkError.unexpectedOutput(
                command: ChildResult.display(feed), reason: "not a JSON array of tweets")
        }
        guard let tweetID = tweets.first(where: { $0["didLike"] as? Bool == false })?["id"] as? String else {
            throw BenchmarkError.unexpectedOutput(
                command: ChildResult.display(feed), reason: "@\(username) already likes every tweet on the first page")
        }
        // A conversation: the first tweet of the page with replies, else the first reply's.
        let threadTweetID =
            tweets.first(where: { ($0["replyCount"] as? Int ?? 0) > 0 })?["id"] as? String
            ?? tweets.first(where: { $0["replyToId"] is String })?["id"] as? String ?? tweetID
        ProgressLog.note(
            "at \(dataset.tweets) tweets: signed in as @\(username) (\(uid)); like/unlike \(tweetID); "
                + "thread \(threadTweetID); rare word \"\(rareWord ?? dataset.rareWord)\"")
        return Subjects(
            uid: uid, username: username, tweetID: tweetID, query: query ?? String(username.prefix(3)),
            threadTweetID: threadTweetID, rareWord: rareWord ?? dataset.rareWord)
    }

    /// Signs in a second account and gives it issue 43's filters: a tenth of the data set's other
    /// users, up to ``filteredAccounts``, half blocked and half muted, and the data set's muted
    /// words. The first account stays the active one; the filtered operations run `--as` this one.
    /// The peer gets the same accounts in a table `hidden`.
    private func setUpFilteredViewer(on dataset: Dataset, subjects: inout Subjects, launcher: ProcessLauncher) throws {
        let tweetcli = [executables.tweetcli, "--store", dataset.store]
        let wanted = 1 + min(Self.filteredAccounts, dataset.users / 10)
        var users: [(uid: String, username: String)] = []
        while users.count < wanted + 1 {
            let explore = tweetcli + ["explore", "--json", "--limit", "200", "--offset", "\(users.count)"]
            // Output that is not the expected JSON is reported as unexpectedOutput just below.
            guard
                let listed = try? JSONSerialization.jsonObject(with: try launcher.capture(explore)) as? [[String: Any]]
            else {
                throw BenchmarkError.unexpectedOutput(
                    command: ChildResult.display(explore), reason: "not a JSON array of users")
            }
            if listed.isEmpty { break }
            users += listed.compactMap { user in
                (user["id"] as? String).flatMap { uid in (user["username"] as? String).map { (uid, $0) } }
            }
        }
        let others = users.filter { $0.uid != subjects.uid }
        guard let viewer = others.first else {
            throw BenchmarkError.unexpectedOutput(command: "explore", reason: "there is no second user to filter for")
        }
        let hidden = Array(others.dropFirst().prefix(wanted - 1))
        try launcher.run(
            tweetcli + ["login", "--username", viewer.username, "--password-stdin"],
            input: .bytes(Array("\(Self.demoPassword)\n".utf8)))
        var filtered = FilteredViewer(uid: viewer.uid, username: viewer.username, words: dataset.mutedWords)
        for (index, account) in hidden.enumerated() {
            let blocks = index.isMultiple(of: 2)
            try launcher.run(tweetcli + ["--as", "@" + viewer.username, blocks ? "block" : "mute", account.uid])
            if blocks { filtered.blocked.append(account.uid) } else { filtered.muted.append(account.uid) }
        }
        for word in dataset.mutedWords {
            try launcher.run(tweetcli + ["--as", "@" + viewer.username, "mute", "--word", word])
        }
        try launcher.run(tweetcli + ["switch", "@" + subjects.username])
        let table = PeerQueries.hiddenTable(hidden.map(\.uid))
        switch options.engine {
        case .local: try launcher.run([executables.peerShell, "-batch", "-bail", dataset.peer, table])
        case .postgresql:
            try launcher.run([executables.peerShell] + PostgresServer.psqlOptions + ["-d", dataset.peer, "-c", table])
        }
        ProgressLog.note(
            "at \(dataset.tweets) tweets: @\(viewer.username) blocks \(filtered.blocked.count) and mutes "
                + "\(filtered.muted.count) accounts and \(filtered.words.count) words")
        subjects.filtered = filtered
    }

    /// The most accounts the filtered viewer blocks and mutes together (issue 43's 1,000).
    static let filteredAccounts = 1_000

    /// The password of every account `tweetcli seed` makes, as its README documents.
    private static let demoPassword = "tweetcli-demo"
}
