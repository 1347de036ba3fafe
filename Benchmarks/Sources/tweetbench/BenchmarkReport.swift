import Foundation

/// The benchmark's result as text: a table of operations, a table of data sets, the machine, and
/// each figure checked against the engine's targets.
struct BenchmarkReport {
    let result: BenchmarkResult

    /// The report as aligned plain text, or as Markdown for the README.
    func render(markdown: Bool) -> String {
        let options = result.options
        let (engine, peer) = (options.engine, options.engine.peerName)
        let (small, large) = (compact(options.small), compact(options.tweets))
        var text =
            markdown
            ? ""
            : "tweetbench: tweetcli (\(engine.rawValue)) against the floor and \(peer), every command a fresh process\n\n"
        let subjects = result.subjects.dropFirst().first
        let huge = result.datasets.count > 2 ? result.datasets[2] : nil
        let engineNote: String =
            engine == .local
            ? "local: a store directory on this machine's disk"
            : "postgresql: \(result.peerVersion), a throwaway cluster reached \(options.connection.summary) (the C locale, "
                + "server defaults, fsync on), vacuumed and checkpointed after each load"
        let fullText: String =
            engine == .local ? "an FTS5 index of captions" : "a GIN index of to_tsvector('simple', caption)"
        let tables: String = engine == .postgresql ? " in relational tables" : ""
        let notes: [(String, String)] = [
            ("machine", result.machine.summary),
            ("binaries", "tweetcli and the floor with \(result.swiftRuntime.rawValue)"),
            ("engine", engineNote),
            (
                "data",
                "\(large) and \(small) tweets (as many likes, about 10% replies), \(options.users) users "
                    + "following \(options.follows) each, seed \(options.seed)"
                    + (huge.map {
                        "; and \(compact($0.tweets)) tweets by \($0.users) users following \(options.follows) each"
                    } ?? "")
            ),
            (
                "runs",
                "\(options.runs) timed runs after 1 warm-up per command and data set, each a fresh process; "
                    + "listings use --limit \(PeerQueries.pageSize)"
            ),
            (
                "subjects",
                "signed in as @\(subjects?.username ?? "?"), who is UID and USERNAME; like and unlike (retweet "
                    + "and unretweet, bookmark and unbookmark) alternate on one tweet; explore searches "
                    + "\"\(subjects?.query ?? "")\"; RARE is \"\(subjects?.rareWord ?? "")\"; thread shows a tweet with replies"
            ),
            (
                "filtered",
                "(filtered) runs as @\(subjects?.filtered.username ?? "?"), who blocks and mutes a tenth of the "
                    + "other users, up to 1,000 (\(subjects.map { $0.filtered.blocked.count + $0.filtered.muted.count } ?? 0) "
                    + "in the data set the subjects come from), and mutes \(subjects?.filtered.words.count ?? 0) words; the peer "
                    + "leaves out the same accounts (a table) and captions holding a muted word (LIKE)"
            ),
            (
                peer,
                "\(result.peerVersion) on the same data\(tables), with indexes on tweets(timestamp), "
                    + "tweets(uid, timestamp), tweets(replyToId), likes(uid, timestamp), follows(followee), "
                    + "retweets(uid, timestamp), bookmarks(uid, timestamp), notifications(recipient, timestamp), "
                    + "hashtag and mention tables, and \(fullText)"
            ),
        ]
        for (name, note) in notes {
            text +=
                markdown
                ? "- **\(name)**: \(note)\n" : "\(name.padding(toLength: 10, withPad: " ", startingAt: 0))\(note)\n"
        }
        text += "\n" + operationTable(small: small, large: large, peer: peer).render(markdown: markdown)
        if let huge {
            text += "\n" + hugeTable(huge: compact(huge.tweets), large: large, peer: peer).render(markdown: markdown)
        }
        text += "\n" + datasetTable().render(markdown: markdown) + "\n"
        text += summary().map { markdown ? "- \($0)\n" : "\($0)\n" }.joined()
        return text
    }

    private func operationTable(small: String, large: String, peer: String) -> TextTable {
        let targets = result.options.engine.targets
        var table = TextTable([
            ("operation", .left), ("median ms (min–max) at \(large)", .right), ("ms at \(small)", .right),
            ("growth", .right), ("peak RSS MiB", .right), ("floor ms beside", .right), ("× floor", .right),
            ("\(peer) ms", .right), ("× \(peer)", .right), ("targets", .left),
        ])
        let floor = result.operations.first.map { $0.tweetcli[1].median } ?? 0
        for operation in result.operations {
            let (large, small, sqlite) = (operation.tweetcli[1], operation.tweetcli[0], operation.peer[1])
            let floorRatio = operation.floorRatio(at: 1, floorMedian: floor)
            let growth = ratio(large.median, small.median)
            let peerRatio = ratio(large.median, sqlite.median)
            let verdict =
                operation.hasTargets
                ? Targets.verdict(
                    (targets.floorRatio.map { [("×floor", floorRatio <= operation.floorTarget ?? $0)] } ?? [])
                        + (targets.peerRatio.map { [("×\(peer)", peerRatio <= $0)] } ?? []) + [
                            ("growth", growth <= Targets.growth),
                            ("RSS", large.peakRSSMiB <= Targets.peakRSSMiB),
                        ]) : "—"
            table.append([
                operation.name,
                "\(milliseconds(large.median)) (\(milliseconds(large.minimum))–\(milliseconds(large.maximum)))",
                milliseconds(small.median), times(growth), String(format: "%.1f", large.peakRSSMiB),
                milliseconds(operation.floorMedian(at: 1) ?? floor), times(floorRatio), milliseconds(sqlite.median),
                times(peerRatio), verdict,
            ])
        }
        return table
    }

    /// The third data set's figures, against issue 11's targets: growth from the large one, the
    /// floor and the peer's same query.
    private func hugeTable(huge: String, large: String, peer: String) -> TextTable {
        var table = TextTable([
            ("operation", .left), ("median ms (min–max) at \(huge)", .right), ("growth from \(large)", .right),
            ("peak RSS MiB", .right), ("floor ms beside", .right), ("× floor", .right), ("\(peer) ms", .right),
            ("× \(peer)", .right), ("disk reads", .right), ("targets", .left),
        ])
        let floor = result.operations.first.map { $0.tweetcli[2].median } ?? 0
        let targets = result.options.engine.targets.huge
        for operation in result.operations {
            let (timings, large, sqlite) = (operation.tweetcli[2], operation.tweetcli[1], operation.peer[2])
            let floorRatio = operation.floorRatio(at: 2, floorMedian: floor)
            let peerRatio = ratio(timings.median, sqlite.median)
            let growth = ratio(timings.median, large.median)
            let verdict =
                operation.hasTargets
                ? Targets.verdict(
                    (targets.floorRatio.map { [("×floor", floorRatio <= operation.floorTarget ?? $0)] } ?? []) + [
                        ("×\(peer)", peerRatio <= targets.peerRatio),
                        ("growth", growth <= targets.growth), ("RSS", timings.peakRSSMiB <= Targets.peakRSSMiB),
                    ]) : "—"
            table.append([
                operation.name,
                "\(milliseconds(timings.median)) (\(milliseconds(timings.minimum))–\(milliseconds(timings.maximum)))",
                times(growth), String(format: "%.1f", timings.peakRSSMiB),
                milliseconds(operation.floorMedian(at: 2) ?? floor),
                times(floorRatio), milliseconds(sqlite.median), times(peerRatio), diskReads(timings), verdict,
            ])
        }
        return table
    }

    /// What tweetcli's timed runs read from the disk, not the page cache (their `ru_inblock`, as
    /// KiB, and `ru_majflt`, page faults that waited on the disk): "0 KiB · 0" when all stayed cached.
    private func diskReads(_ timings: Timings) -> String {
        "\(timings.blocksRead / 2) KiB · \(timings.majorFaults)"
    }

    private func datasetTable() -> TextTable {
        let (engine, peer, targets) = (
            result.options.engine, result.options.engine.peerName, result.options.engine.targets
        )
        var table = TextTable([
            ("data set", .left), ("seed s", .right), ("seed peak RSS MiB", .right), ("store", .right),
            ("JSON array", .right), ("store ÷ JSON", .right), ("export docs/s", .right), ("import docs/s", .right),
            ("load into \(peer) s", .right), ("\(peer) \(engine == .local ? "file" : "database")", .right),
            ("targets", .left),
        ])
        for (index, dataset) in result.datasets.enumerated() {
            let seedMiB = Double(dataset.seed.peakRSSKiB) / 1024
            let exportRate = dataset.documentsPerSecond(dataset.export)
            let importRate = dataset.importResult.map { dataset.documentsPerSecond($0) }
            let verdict: String
            switch index {
            case 1:
                verdict = Targets.verdict(
                    [("seed", dataset.seed.seconds <= targets.seedSeconds)]
                        + (targets.sizeRatio.map { [("size", dataset.sizeRatio <= $0)] } ?? []))
            case 2:
                let huge = targets.huge
                let rates: [(String, Bool)] =
                    huge.documentsPerSecond.map { rate in
                        [("export", exportRate >= rate)] + (importRate.map { [("import", $0 >= rate)] } ?? [])
                    } ?? []
                verdict = Targets.verdict(
                    [
                        ("seed", dataset.seed.seconds <= huge.seedSeconds),
                        ("seed RSS", seedMiB <= huge.seedPeakRSSMiB),
                    ] + rates)
            default: verdict = "—"
            }
            table.append([
                "\(compact(dataset.tweets)) tweets", String(format: "%.2f", dataset.seed.seconds),
                String(format: "%.1f", seedMiB), bytes(dataset.storeBytes), bytes(dataset.jsonArrayBytes),
                times(dataset.sizeRatio), String(format: "%.0f", exportRate),
                importRate.map { String(format: "%.0f", $0) } ?? "—", String(format: "%.2f", dataset.peerLoadSeconds),
                bytes(dataset.peerBytes), verdict,
            ])
        }
        return table
    }

    /// The floor, the targets and how many were met.
    private func summary() -> [String] {
        let floor = result.operations.first
        let (peer, targets) = (result.options.engine.peerName, result.options.engine.targets)
        let floorLine =
            "floor: \(milliseconds(floor?.tweetcli[1].median ?? 0)) ms median, "
            + String(format: "%.1f MiB", floor?.tweetcli[1].peakRSSMiB ?? 0)
            + " peak RSS (\(peer) running SELECT 1: \(milliseconds(floor?.peer[1].median ?? 0)) ms)"
        var lines = [
            floorLine,
            "× floor: the median of each run's time over the time of the floor's run in the same round, on the "
                + "same data set (the floor runs beside every command, before it in even rounds, after it in odd ones); "
                + "floor ms beside: the median of those runs of the floor",
            "targets (issue \(targets.issue)): each command's "
                + (targets.floorRatio.map { "× floor ≤ \(times($0)), " } ?? "")
                + (targets.peerRatio.map { "median ≤ \(times($0)) \(peer)'s on the same query, " } ?? "") + "growth "
                + "(median at \(compact(result.options.tweets)) ÷ median at \(compact(result.options.small))) "
                + "≤ \(times(Targets.growth)), peak RSS ≤ \(Int(Targets.peakRSSMiB)) MiB; seed ≤ "
                + "\(Int(targets.seedSeconds)) s"
                + (targets.sizeRatio.map { ", store ≤ \(times($0)) the plain JSON array" } ?? ""),
        ]
        if result.options.tweets != Targets.referenceTweets || result.options.small != 10_000 {
            lines.append(
                "note: the targets are set for 1M and 10k tweets; at \(compact(result.options.tweets)) and "
                    + "\(compact(result.options.small)) PASS and MISS are only indicative")
        }
        if let huge = result.datasets.count > 2 ? result.datasets[2] : nil {
            let (size, large) = (compact(huge.tweets), compact(result.options.tweets))
            let huge = targets.huge
            lines.append(
                "targets at \(size) (issue \(huge.issue)): each command's "
                    + (huge.floorRatio.map { "× floor ≤ \(times($0)) and " } ?? "")
                    + "median ≤ \(times(huge.peerRatio)) \(peer)'s on the same query, growth (median at \(size) ÷ "
                    + "median at \(large)) ≤ \(times(huge.growth)), peak RSS ≤ \(Int(Targets.peakRSSMiB)) MiB; "
                    + "seed ≤ \(Int(huge.seedSeconds)) s within \(Int(huge.seedPeakRSSMiB)) MiB"
                    + (huge.documentsPerSecond.map { "; export and import ≥ \(Int($0)) documents/s" } ?? ""))
            lines.append(
                "disk reads at \(size): what tweetcli's timed runs of the command read from the disk rather than the "
                    + "page cache (the sum of their ru_inblock) and the page faults they waited on the disk for "
                    + "(ru_majflt)")
        }
        lines.append(
            "export: `tweetcli export` into a file; import: that file into a new store"
                + (result.options.engine == .local ? "" : " (not timed for this engine)")
                + "; load into \(peer): the file converted and loaded by \(peer)")
        return lines
    }

    private func ratio(_ value: Double, _ base: Double) -> Double {
        base > 0 ? value / base : .infinity
    }

    private func milliseconds(_ value: Double) -> String {
        String(format: value < 100 ? "%.1f" : "%.0f", value)
    }

    private func times(_ value: Double) -> String {
        value.isFinite ? String(format: "%.2f×", value) : "—"
    }

    private func bytes(_ count: Int) -> String {
        let value = Double(count)
        if count < 1 << 20 { return String(format: "%.1f KiB", value / 1024) }
        if count < 1 << 30 { return String(format: "%.1f MiB", value / Double(1 << 20)) }
        return String(format: "%.2f GiB", value / Double(1 << 30))
    }

    /// 1000000 as "1M", 10000 as "10k", 2500 as "2.5k", 200 as "200".
    private func compact(_ count: Int) -> String {
        for (scale, suffix) in [(1_000_000, "M"), (1_000, "k")] where count >= scale {
            let value = Double(count) / Double(scale)
            return (value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.1f", value)) + suffix
        }
        return "\(count)"
    }
}
