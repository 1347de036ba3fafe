import Foundation
import Testing
import TweetTestSupport

/// `feed --watch`: the tweets other processes post, printed as they come, in a pipe, on each
/// engine; woken by the store (inotify on the local one, notifications on PostgreSQL's), so that
/// it costs nothing while nothing happens.
@Suite(.serialized)
struct WatchTests {
    /// A `tweetcli` that keeps running, its output collected as it comes.
    final class Watcher: @unchecked Sendable {
        let process = Process()
        private let lock = NSLock()
        private var output = Data()
        private var errors = Data()

        init(_ cli: CLIRunner, _ arguments: [String]) throws {
            process.executableURL = CLIRunner.executable
            process.arguments = ["--store", cli.location] + arguments
            process.environment = [
                "HOME": cli.home.path, "XDG_STATE_HOME": cli.home.appendingPathComponent("state").path,
                "PATH": "/usr/bin:/bin",
            ]
            let (out, err) = (Pipe(), Pipe())
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            out.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                self?.lock.withLock { self?.output.append(data) }
            }
            err.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                self?.lock.withLock { self?.errors.append(data) }
            }
            try ProcessEnvironment.gate.withLock { _ in try process.run() }
        }

        var stdout: String { lock.withLock { String(decoding: output, as: UTF8.self) } }
        var stderr: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }

        /// Waits up to `seconds` for `text` in the output; returns how long it took, or `nil`.
        func wait(for text: String, seconds: Double) -> Double? {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                if stdout.contains(text) { return Date().timeIntervalSince(start) }
                usleep(5_000)
            }
            return stdout.contains(text) ? seconds : nil
        }

        /// Waits up to `seconds` for `text` in the errors; returns whether it came.
        func waitForErrors(_ text: String, seconds: Double) -> Bool {
            let start = Date()
            while !stderr.contains(text), Date().timeIntervalSince(start) < seconds { usleep(5_000) }
            return stderr.contains(text)
        }

        /// The CPU time the process has used, in clock ticks (user and system, from /proc).
        var cpuTicks: Int {
            guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return -1 }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the name: state is field 3, utime 14 and stime 15.
            return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    @Test(arguments: [false, true])
    func aWatchedFeedPrintsWhatAnotherProcessPostsWithinASecond(onPostgres: Bool) throws {
        guard let cli = try SmallFindingsTests.makeCLI(onPostgres: onPostgres) else { return }
        try cli.register("ada", fullname: "Ada")
        _ = try cli.post("posted before the watch")
        let watcher = try Watcher(cli, ["feed", "--watch"])
        defer { watcher.stop() }
        #expect(watcher.wait(for: "posted before the watch", seconds: 10) != nil, "\(watcher.stderr)")
        #expect(watcher.waitForErrors("Watching for new tweets; Ctrl-C stops.", seconds: 10), "\(watcher.stderr)")

        // Idle: woken by nothing, it uses no CPU (a poll of the store every few milliseconds would).
        let idle = watcher.cpuTicks
        usleep(1_500_000)
        #expect(watcher.cpuTicks - idle <= 1, "CPU ticks while idle: \(watcher.cpuTicks - idle)")

        for number in 1...3 {
            _ = try cli.post("live tweet \(number)")
            let took = watcher.wait(for: "live tweet \(number)", seconds: 5) ?? .infinity
            #expect(took < 1, "tweet \(number) showed after \(took) s")
        }
        // A change that adds no tweet (a like) prints nothing; the next tweet is printed once.
        let id = try cli.post("the last one")
        try cli.run(["like", id])
        #expect(watcher.wait(for: "the last one", seconds: 5) != nil)
        usleep(300_000)
        let shown = watcher.stdout
        #expect(shown.components(separatedBy: "the last one").count == 2, "\(shown)")
        // Oldest first after the first page, so the newest is last; each once.
        let order = ["posted before the watch", "live tweet 1", "live tweet 2", "live tweet 3", "the last one"]
        let positions = order.compactMap { shown.range(of: $0)?.lowerBound }
        #expect(positions.count == order.count && positions == positions.sorted(), "\(shown)")
        #expect(order.allSatisfy { shown.components(separatedBy: $0).count == 2 }, "\(shown)")
        #expect(!shown.contains("More:"))
    }

    @Test func aWatchedFeedInJSONIsOneObjectALine() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        _ = try cli.post("first")
        let watcher = try Watcher(cli, ["feed", "--watch", "--json"])
        defer { watcher.stop() }
        #expect(watcher.wait(for: "\"first\"", seconds: 10) != nil)
        _ = try cli.post("second")
        #expect(watcher.wait(for: "\"second\"", seconds: 5) != nil)
        let lines = watcher.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(watcher.stdout)")
        let captions = try lines.map { try json(String($0))["caption"] as? String }
        #expect(captions == ["first", "second"])
        #expect(watcher.stderr.isEmpty, "\(watcher.stderr)")
    }

    @Test(arguments: [false, true])
    func watchedNotificationsShowALikeAndAFollowAsTheyCome(onPostgres: Bool) throws {
        guard let cli = try SmallFindingsTests.makeCLI(onPostgres: onPostgres) else { return }
        try cli.register("ada", fullname: "Ada")
        let id = try cli.post("a tweet to like")
        let watcher = try Watcher(cli, ["notifications", "--watch"])
        defer { watcher.stop() }
        // The first page (none yet), then the watch: seen when its hint is.
        #expect(watcher.waitForErrors("Watching for new notifications; Ctrl-C stops.", seconds: 10))
        try cli.register("bob", fullname: "Bob")
        try cli.run(["like", id])
        let liked = watcher.wait(for: "Bob liked your tweet", seconds: 5) ?? .infinity
        #expect(liked < 1, "the like showed after \(liked) s: \(watcher.stdout)")
        try cli.run(["follow", "@ada"])
        #expect(watcher.wait(for: "Bob followed you", seconds: 5) != nil, "\(watcher.stdout)")
        usleep(300_000)
        // Each once, the follow after the like; and seen as they were shown.
        let shown = watcher.stdout
        #expect(shown.components(separatedBy: "liked your tweet").count == 2, "\(shown)")
        #expect(shown.range(of: "liked")!.lowerBound < shown.range(of: "followed")!.lowerBound)
        try cli.login("ada")
        let unread = try cli.run(["notifications", "--unread"])
        #expect(unread.stdout.contains("No new notifications."), "\(unread.stdout)")
    }

    @Test func watchingFromAnOlderTweetIsOneSentence() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let id = try cli.post("first")
        let result = try cli.run(["feed", "--watch", "--before", id])
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: --watch shows what comes after now"), "\(result.stderr)")
    }
}
