import Foundation
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 11's write-stall test: `--stall-posts` consecutive posts, each a fresh `tweetcli post`
/// process, on a store seeded with `--stall-tweets` tweets, timing every one. A post that folds
/// the journal or merges segments pays for it in its own latency, so the tail (p99, p99.9, max)
/// shows what compaction on the write path costs, and the largest peak RSS what it holds.
///
/// The posts' background compactions (detached `tweetcli compact` processes) are counted too: the
/// benchmark makes itself their subreaper (`PR_SET_CHILD_SUBREAPER`), so that they are reparented
/// to it rather than to init, and reaps them with `wait4`, which gives their peak RSS and the bytes
/// they wrote.
struct WriteStall {
    let options: BenchmarkOptions
    let executables: Executables

    /// What the test measured.
    struct Result {
        let options: BenchmarkOptions
        let machine: Machine
        let swiftRuntime: Executables.SwiftRuntime
        /// The seed of the store the posts go to.
        let seed: ChildResult
        /// Each post's wall time in milliseconds, in order.
        let milliseconds: [Double]
        /// The largest peak RSS of any post, in KiB, and which post (0-based) had it.
        let peakRSSKiB: Int
        let peakRSSPost: Int
        /// Bytes the posts wrote (the sum of their `ru_oublock`, 512-byte blocks).
        let bytesWritten: Int
        /// The store's size before the first post and after the last, in bytes.
        let storeBytesBefore: Int
        let storeBytesAfter: Int
        /// The bytes of the posts' captions: the user data they added.
        let captionBytes: Int
        /// The background compactions the posts started, reaped.
        let compactions: Compactions
        /// The store's size in bytes after every 5,000 posts (the first before any).
        let sizes: [(posts: Int, bytes: Int)]
    }

    /// The background compactions' processes, as `wait4` reports them.
    struct Compactions {
        var count = 0
        /// The largest peak RSS of any, in KiB.
        var peakRSSKiB = 0
        /// Their CPU time (user and system), in seconds.
        var cpuSeconds = 0.0
        /// Bytes they wrote (`ru_oublock`, 512-byte blocks).
        var bytesWritten = 0

        /// Reaps the descendants that have exited (waiting for all of them when `waiting`), calling
        /// `reaped` with each one's CPU seconds and bytes written.
        mutating func reap(waiting: Bool, reaped: (_ cpuSeconds: Double, _ bytesWritten: Int) -> Void = { _, _ in }) {
            var status: Int32 = 0
            var usage = rusage()
            while true {
                let pid = wait4(-1, &status, waiting ? 0 : WNOHANG, &usage)
                if pid == -1 && errno == EINTR { continue }
                guard pid > 0 else { return }
                count += 1
                peakRSSKiB = max(peakRSSKiB, Int(usage.ru_maxrss))
                let cpu =
                    Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                    + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
                cpuSeconds += cpu
                bytesWritten += Int(usage.ru_oublock) * 512
                reaped(cpu, Int(usage.ru_oublock) * 512)
            }
        }
    }

    /// Seeds the store, signs in as the first user `explore` lists, and posts.
    /// - Throws: ``BenchmarkError`` at the first step that fails.
    func run() throws -> Result {
        let workspace = try Workspace(kept: options.keep)
        defer { workspace.removeUnlessKept() }
        ProgressLog.note("write stall: working in \(workspace.path)\(workspace.isKept ? "" : " (removed at the end)")")
        let launcher = ProcessLauncher.inWorkspace(workspace)
        let server = try PostgresServer.startIfNeeded(
            for: options, executables: executables, workspace: workspace, launcher: launcher)
        defer { server?.stop() }
        let store: String
        if let server {
            try server.createDatabase("stall")
            store = server.uri("stall")
        } else {
            store = workspace.path("store")
        }
        let tweetcli = [executables.tweetcli, "--store", store]
        ProgressLog.note("write stall: seeding \(options.stallTweets) tweets …")
        let seed = try launcher.run(
            tweetcli + [
                "seed", "--users", "\(options.users)", "--tweets", "\(options.stallTweets)", "--likes",
                "\(options.stallTweets)", "--follows", "\(options.follows)", "--seed", "\(options.seed)",
            ])
        let listed = try launcher.capture(tweetcli + ["explore", "--json"])
        // Output that is not the expected JSON is reported as unexpectedOutput just below.
        guard let users = try? JSONSerialization.jsonObject(with: listed) as? [[String: Any]],
            let username = users.first?["username"] as? String
        else {
            throw BenchmarkError.unexpectedOutput(command: "tweetcli explore --json", reason: "no user listed first")
        }
        try launcher.run(
            tweetcli + ["login", "--username", username, "--password-stdin"],
            input: .bytes(Array("tweetcli-demo\n".utf8)))
        // Compactions the seed started belong to the seed, not to the posts.
        var compactions = Compactions()
        guard ProcessControl.becomeSubreaper() else {
            throw BenchmarkError.io(path: "prctl", reason: "cannot reap the posts' background compactions")
        }
        compactions.reap(waiting: true)
        compactions = Compactions()
        let before = try size(of: store, server: server)
        var sizes = [(posts: 0, bytes: before)]
        var milliseconds: [Double] = []
        milliseconds.reserveCapacity(options.stallPosts)
        var (peak, peakPost, blocks, captionBytes) = (0, 0, 0, 0)
        var log = ""
        let start = DispatchTime.now().uptimeNanoseconds
        func since() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }
        func logReaped(_ cpu: Double, _ bytes: Int) {
            log += "compaction ended\t\(since())\t\(cpu)\t\(bytes)\n"
        }
        for post in 0..<options.stallPosts {
            let caption = "write stall \(post)"
            let began = since()
            let result = try launcher.run(tweetcli + ["post", caption])
            milliseconds.append(Double(result.wallNanoseconds) / 1e6)
            if options.stallLog != nil { log += "post\t\(post)\t\(began)\t\(milliseconds[post])\n" }
            if result.peakRSSKiB > peak { (peak, peakPost) = (result.peakRSSKiB, post) }
            blocks += result.blocksWritten
            captionBytes += caption.utf8.count
            compactions.reap(waiting: false, reaped: logReaped)
            if (post + 1) % 5000 == 0 {
                ProgressLog.note("write stall: \(post + 1) posts …")
                sizes.append((post + 1, try size(of: store, server: server)))
            }
        }
        compactions.reap(waiting: true, reaped: logReaped)
        if let path = options.stallLog {
            guard FileManager.default.createFile(atPath: path, contents: Data(log.utf8)) else {
                throw BenchmarkError.io(path: path, reason: "cannot write the log")
            }
        }
        return Result(
            options: options, machine: Machine.current(), swiftRuntime: executables.swiftRuntime, seed: seed,
            milliseconds: milliseconds,
            peakRSSKiB: peak, peakRSSPost: peakPost, bytesWritten: blocks * 512, storeBytesBefore: before,
            storeBytesAfter: try size(of: store, server: server), captionBytes: captionBytes, compactions: compactions,
            sizes: sizes)
    }

    private func size(of store: String, server: PostgresServer?) throws -> Int {
        guard let server else { return try DatasetBuilder.size(ofDirectory: store) }
        return try server.size(of: "stall")
    }
}

extension WriteStall.Result {
    /// The nearest-rank percentile `p` (0…1) of the posts' times.
    func percentile(_ p: Double) -> Double {
        let sorted = milliseconds.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The report: the latency percentiles with their ratios to the median, the slowest post,
    /// memory and bytes written, as plain text or Markdown.
    func render(markdown: Bool) -> String {
        let median = percentile(0.5)
        let slowest = milliseconds.indices.max { milliseconds[$0] < milliseconds[$1] } ?? 0
        func ms(_ value: Double) -> String { String(format: "%.1f", value) }
        func ratio(_ value: Double) -> String { String(format: "%.2f×", median > 0 ? value / median : 0) }
        var table = TextTable([
            ("posts", .right), ("median ms", .right), ("p99 ms", .right), ("p99.9 ms", .right),
            ("max ms", .right), ("p99 ÷ median", .right), ("p99.9 ÷ median", .right), ("max ÷ median", .right),
            ("peak RSS MiB", .right),
        ])
        table.append([
            "\(milliseconds.count)", ms(median), ms(percentile(0.99)), ms(percentile(0.999)),
            ms(milliseconds.max() ?? 0), ratio(percentile(0.99)), ratio(percentile(0.999)),
            ratio(milliseconds.max() ?? 0), String(format: "%.1f", Double(peakRSSKiB) / 1024),
        ])
        let mib = { (bytes: Int) in
            bytes < 1 << 20
                ? String(format: "%.1f KiB", Double(bytes) / 1024)
                : String(format: "%.1f MiB", Double(bytes) / 1_048_576)
        }
        let lines = [
            "machine: \(machine.summary)",
            "binary: tweetcli with \(swiftRuntime.rawValue)",
            "store: \(options.engine.rawValue), seeded with \(options.stallTweets) tweets (as many likes), "
                + "\(options.users) users following \(options.follows) each, in "
                + String(format: "%.1f s", seed.seconds),
            "slowest: post \(slowest + 1) of \(milliseconds.count), \(ms(milliseconds.max() ?? 0)) ms; the most memory: "
                + "post \(peakRSSPost + 1), " + String(format: "%.1f MiB", Double(peakRSSKiB) / 1024),
            "background compactions: \(compactions.count), "
                + String(
                    format: "%.1f s of CPU, peak RSS %.1f MiB", compactions.cpuSeconds,
                    Double(compactions.peakRSSKiB) / 1024),
            "written: \(mib(bytesWritten)) by the posts and \(mib(compactions.bytesWritten)) by the compactions "
                + "(ru_oublock) for \(mib(captionBytes)) of captions ("
                + String(format: "%.0f", Double(bytesWritten + compactions.bytesWritten) / Double(max(1, captionBytes)))
                + " bytes written per byte); the store went from \(mib(storeBytesBefore)) to \(mib(storeBytesAfter))",
            "the store's size every 5,000 posts (MiB): "
                + sizes.map { String(format: "%.1f", Double($0.bytes) / 1_048_576) }.joined(separator: ", "),
            "targets (issue 11): p99 ≤ 2× the median, p99.9 ≤ 3×, max ≤ 10×",
        ]
        let title = markdown ? "" : "tweetbench --write-stall: consecutive posts, each a fresh process\n\n"
        return title + table.render(markdown: markdown) + "\n"
            + lines.map { markdown ? "- \($0)\n" : "\($0)\n" }.joined()
    }
}
