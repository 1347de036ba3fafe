import Foundation
import TweetSystem

/// Issue 12's archive benchmark: a synthetic Twitter archive of `--archive-tweets` tweets (as
/// Twitter writes one: `data/tweets.js` in parts, with entities, edit information, t.co links,
/// HTML entities, replies and likes), zipped, then `tweetcli import --twitter-archive` into a
/// fresh store, a fresh process each run, timing each and taking its peak RSS and that of the
/// background compactions it starts (the benchmark is their subreaper, as in the write-stall test).
struct ArchiveImport {
    let options: BenchmarkOptions
    let executables: Executables

    struct Result {
        let options: BenchmarkOptions
        let machine: Machine
        let swiftRuntime: Executables.SwiftRuntime
        let archiveBytes: Int
        let zipBytes: Int
        let seconds: [Double]
        let peakRSSKiB: Int
        let compactions: WriteStall.Compactions
    }

    func run() throws -> Result {
        let workspace = try Workspace(kept: options.keep)
        defer { workspace.removeUnlessKept() }
        ProgressLog.note(
            "archive import: working in \(workspace.path)\(workspace.isKept ? "" : " (removed at the end)")")
        let launcher = ProcessLauncher.inWorkspace(workspace)
        let folder = workspace.path("archive")
        // Written by a child: a child's ru_maxrss starts from its parent's at posix_spawn (the
        // kernel keeps the high-water mark across exec), so a benchmark that held the archive's
        // text itself would report that as every import's peak.
        try launcher.run([
            "/proc/self/exe", "--archive-import", "--archive-tweets", "\(options.archiveTweets)", "--seed",
            "\(options.seed)", "--write-archive-to", folder,
        ])
        let archiveBytes = try DatasetBuilder.size(ofDirectory: folder)
        let zip = workspace.path("archive.zip")
        try launcher.run(["/usr/bin/env", "sh", "-c", "cd \"$0\" && zip -q -r \"$1\" .", folder, zip])
        let zipBytes = DatasetBuilder.size(ofFile: zip) ?? 0
        guard ProcessControl.becomeSubreaper() else {
            throw BenchmarkError.io(path: "prctl", reason: "cannot reap the import's background compactions")
        }
        var compactions = WriteStall.Compactions()
        var seconds: [Double] = []
        var peak = 0
        // One warm-up, then the timed runs, each into a store of its own.
        for run in 0...options.runs {
            let store = workspace.path("store-\(run)")
            let result = try launcher.run(
                [executables.tweetcli, "--store", store, "import", "--twitter-archive", zip, "--password-stdin"],
                input: .bytes(Array("tweetcli-bench\n".utf8)))
            compactions.reap(waiting: true)
            if run > 0 {
                seconds.append(result.seconds)
                peak = max(peak, result.peakRSSKiB)
                ProgressLog.note(
                    String(
                        format: "archive import: run %d, %.1f s, peak RSS %.1f MiB", run, result.seconds,
                        Double(result.peakRSSKiB) / 1024))
            }
            try? FileManager.default.removeItem(atPath: store)  // Space only: the workspace goes at the end.
        }
        return Result(
            options: options, machine: Machine.current(), swiftRuntime: executables.swiftRuntime,
            archiveBytes: archiveBytes, zipBytes: zipBytes, seconds: seconds, peakRSSKiB: peak,
            compactions: compactions)
    }

    /// Writes the archive's `data/` files and returns their bytes.
    static func writeArchive(tweets count: Int, seed: UInt64, to folder: String) throws -> Int {
        let data = (folder as NSString).appendingPathComponent("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        var random = SplitMix(seed: seed)
        let words = DemoWords.list
        var total = 0
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: (data as NSString).appendingPathComponent(name)))
            total += text.utf8.count
        }
        func quoted(_ text: String) throws -> String {
            String(
                decoding: try JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
        }
        // Newest first, as Twitter lists them; five minutes apart, ending at 2023-08-12.
        let end = 1_691_856_637
        let perPart = 50_000
        var manifestParts: [String] = []
        var ids: [UInt64] = []
        ids.reserveCapacity(count)
        for index in 0..<count {
            let seconds = UInt64(end - (count - index) * 300)
            ids.append((seconds * 1000 - 1_288_834_974_657) << 22 | UInt64(index % 4096))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE MMM dd HH:mm:ss '+0000' yyyy"
        for part in 0..<max(1, (count + perPart - 1) / perPart) {
            var items: [String] = []
            let range = (part * perPart)..<min(count, (part + 1) * perPart)
            for index in range.reversed() {
                let id = String(ids[index])
                var text = (0..<(5 + Int(random.next() % 25))).map { _ in
                    words[Int(random.next() % UInt64(words.count))]
                }
                .joined(separator: " ")
                if index % 5 == 0 { text += " #tag\(index % 50)" }
                if index % 9 == 0 { text += " fish &amp; chips" }
                var urls = ""
                if index % 4 == 0 {
                    let short = "https://t.co/x\(index)"
                    text += " " + short
                    urls =
                        "{ \"url\" : \"\(short)\", \"expanded_url\" : \"https://example.org/p/\(index)\", \"display_url\" : \"example.org/p/\(index)\", \"indices\" : [ \"0\", \"23\" ] }"
                }
                let reply =
                    index % 10 == 0 && index > 0
                    ? "\"in_reply_to_status_id_str\" : \"\(ids[index - 1])\", \"in_reply_to_status_id\" : \"\(ids[index - 1])\", "
                    : ""
                let created = formatter.string(
                    from: Date(timeIntervalSince1970: TimeInterval(end - (count - index) * 300)))
                items.append(
                    """
                      {
                        "tweet" : {
                          "edit_info" : { "initial" : { "editTweetIds" : [ "\(id)" ], "editableUntil" : "2023-08-12T17:10:37.000Z", "editsRemaining" : "5", "isEditEligible" : true } },
                          "retweeted" : false,
                          "source" : "<a href=\\"https://mobile.twitter.com\\" rel=\\"nofollow\\">Twitter Web App</a>",
                          "entities" : { "hashtags" : [ ], "symbols" : [ ], "user_mentions" : [ ], "urls" : [ \(urls) ] },
                          "display_text_range" : [ "0", "\(text.count)" ],
                          "favorite_count" : "\(random.next() % 20)",
                          \(reply)"id_str" : "\(id)",
                          "truncated" : false,
                          "retweet_count" : "\(random.next() % 4)",
                          "id" : "\(id)",
                          "created_at" : "\(created)",
                          "favorited" : false,
                          "full_text" : \(try quoted(text)),
                          "lang" : "en"
                        }
                      }
                    """)
            }
            let name = part == 0 ? "tweets.js" : "tweets-part\(part).js"
            try write(name, "window.YTD.tweets.part\(part) = [\n" + items.joined(separator: ",\n") + "\n]")
            manifestParts.append(
                "{ \"fileName\" : \"data/\(name)\", \"globalName\" : \"YTD.tweets.part\(part)\", \"count\" : \"\(range.count)\" }"
            )
        }
        // Likes of every tenth tweet: the import keeps them, since the tweets are in the store.
        let likes = stride(from: 0, to: count, by: 10).map {
            "  { \"like\" : { \"tweetId\" : \"\(ids[$0])\", \"fullText\" : \"liked\", \"expandedUrl\" : \"https://twitter.com/i/web/status/\(ids[$0])\" } }"
        }
        try write("like.js", "window.YTD.like.part0 = [\n" + likes.joined(separator: ",\n") + "\n]")
        try write(
            "account.js",
            "window.YTD.account.part0 = [ { \"account\" : { \"email\" : \"bench@example.com\", \"createdVia\" : \"web\", \"username\" : \"bench\", \"accountId\" : \"1\", \"createdAt\" : \"2010-01-01T00:00:00.000Z\", \"accountDisplayName\" : \"Bench\" } } ]"
        )
        try write(
            "manifest.js",
            "window.__THAR_CONFIG = { \"userInfo\" : { \"accountId\" : \"1\", \"userName\" : \"bench\" }, \"dataTypes\" : { "
                + "\"account\" : { \"files\" : [ { \"fileName\" : \"data/account.js\", \"globalName\" : \"YTD.account.part0\", \"count\" : \"1\" } ] }, "
                + "\"like\" : { \"files\" : [ { \"fileName\" : \"data/like.js\", \"globalName\" : \"YTD.like.part0\", \"count\" : \"\(likes.count)\" } ] }, "
                + "\"tweets\" : { \"files\" : [ \(manifestParts.joined(separator: ", ")) ] } } }")
        return total
    }
}

/// The words of the synthetic archive's tweets.
enum DemoWords {
    static let list =
        ("the a of to and in is it you that he was for on are with as his they be at one have this from or had by "
        + "hot word but what some we can out other were all there when up use your how said an each she which do "
        + "their time if will way about many then them write would like so these her long make thing see him two "
        + "has look more day could go come did number sound no most people my over know water than call first who "
        + "may down side been now find café naïve 東京 emoji 🎉 swift linux terminal").split(separator: " ").map(
            String.init)
}

/// SplitMix64, for reproducible synthetic text.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension ArchiveImport.Result {
    func render(markdown: Bool) -> String {
        let sorted = seconds.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        var table = TextTable([
            ("tweets", .right), ("archive MiB", .right), ("zip MiB", .right), ("median s", .right),
            ("min s", .right), ("max s", .right), ("tweets/s", .right), ("peak RSS MiB", .right),
        ])
        table.append([
            "\(options.archiveTweets)", String(format: "%.1f", Double(archiveBytes) / 1_048_576),
            String(format: "%.1f", Double(zipBytes) / 1_048_576), String(format: "%.1f", median),
            String(format: "%.1f", sorted.first ?? 0), String(format: "%.1f", sorted.last ?? 0),
            String(format: "%.0f", median > 0 ? Double(options.archiveTweets) / median : 0),
            String(format: "%.1f", Double(peakRSSKiB) / 1024),
        ])
        let lines = [
            "machine: \(machine.summary)",
            "binary: tweetcli with \(swiftRuntime.rawValue)",
            "runs: \(seconds.count) after one warm-up, each a fresh process into an empty store (the account made from account.js)",
            "background compactions: \(compactions.count), "
                + String(
                    format: "%.1f s of CPU, peak RSS %.1f MiB", compactions.cpuSeconds,
                    Double(compactions.peakRSSKiB) / 1024),
            "targets (issue 12): 100k archived tweets in ≤ 20 s at ≤ 256 MiB peak RSS",
        ]
        let title =
            markdown ? "" : "tweetbench --archive-import: a Twitter archive imported, each run a fresh process\n\n"
        return title + table.render(markdown: markdown) + "\n"
            + lines.map { markdown ? "- \($0)\n" : "\($0)\n" }.joined()
    }
}
