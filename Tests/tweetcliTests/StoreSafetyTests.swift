import Foundation
import Testing
import TweetTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The store under concurrent processes, `kill -9` and damaged files, driven through the built
/// `tweetcli` (every command a fresh process, as users run it).
@Suite(.serialized)
struct StoreSafetyTests {
    /// Runs a shell script with `tweetcli` on its PATH as `$TWEETCLI` and the store as `$STORE`.
    static func shell(_ script: String, cli: CLIRunner, environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        var env = [
            "HOME": cli.home.path, "PATH": "/usr/bin:/bin", "TWEETCLI": CLIRunner.executable.path,
            "STORE": cli.location, "XDG_STATE_HOME": cli.home.appendingPathComponent("state").path,
        ]
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Every document of the store, by path, read with `tweetcli export`.
    static func documents(_ cli: CLIRunner) throws -> [String: [String: Any]] {
        let result = try cli.run(["export"])
        #expect(result.status == 0, "export: \(result.stderr)")
        var documents: [String: [String: Any]] = [:]
        // After the documents, the photos' bytes (a seeded store has some): not documents.
        for line in result.stdout.split(separator: "\n") where !line.hasPrefix("{\"blob\":") {
            let object = try json(String(line))
            let path = try #require(object["path"] as? String)
            #expect(documents[path] == nil, "\(path) exported twice")
            documents[path] = object["data"] as? [String: Any]
        }
        return documents
    }

    /// Every tweet's `likes` equals the number of `user-likes` documents naming it.
    static func expectLikeCountsMatch(_ documents: [String: [String: Any]]) {
        var likeDocuments: [String: Int] = [:]
        for (path, data) in documents where path.contains("/user-likes/") {
            likeDocuments[data["tweetId"] as? String ?? "", default: 0] += 1
        }
        for (path, data) in documents where path.hasPrefix("tweets/") {
            let id = String(path.dropFirst("tweets/".count))
            #expect(data["likes"] as? Int == likeDocuments[id, default: 0], "likes of \(id)")
        }
    }

    @Test func fourPostersAndTwoLikersAtOnceLoseNothing() throws {
        let cli = try CLIRunner()
        try Self.postersAndLikersLoseNothing(cli, posters: 4)
        #expect(try cli.run(["doctor"]).status == 0)
    }

    /// `posters` processes posting 250 tweets each and two liking and unliking one tweet, all at
    /// once, each signed in as its own user who follows the target; readers meanwhile never fail.
    /// Every acknowledged post is there exactly once, likes equal `user-likes`, follows equal both
    /// sides' counters.
    static func postersAndLikersLoseNothing(_ cli: CLIRunner, posters: Int) throws {
        try cli.register("target", fullname: "Target")
        let tweet = try cli.post("like me")
        let acknowledged = cli.home.appendingPathComponent("acknowledged")
        try FileManager.default.createDirectory(at: acknowledged, withIntermediateDirectories: true)
        var processes: [Process] = []
        // Each writer signs in as its own user, in its own state directory (its own session).
        for name in (1...posters).map({ "poster\($0)" }) + ["liker1", "liker2"] {
            let state = cli.home.appendingPathComponent("state-\(name)").path
            let register = try cli.run(
                [
                    "register", "--email", "\(name)@example.com", "--username", name, "--fullname", name,
                    "--password-stdin",
                ],
                stdin: "correct horse\n", environment: ["XDG_STATE_HOME": state])
            #expect(register.status == 0, "\(register.stderr)")
            let script =
                name.hasPrefix("poster")
                ? """
                "$TWEETCLI" --store "$STORE" follow @target
                for i in $(seq 1 250); do
                  if "$TWEETCLI" --store "$STORE" post "\(name) tweet $i"; then echo "\(name) tweet $i" >> "$ACK/\(name)"; fi
                done
                """
                : """
                for i in $(seq 1 60); do "$TWEETCLI" --store "$STORE" like \(tweet); "$TWEETCLI" --store "$STORE" unlike \(tweet); done
                "$TWEETCLI" --store "$STORE" like \(tweet)
                """
            processes.append(
                try Self.shell(
                    script, cli: cli,
                    environment: ["XDG_STATE_HOME": state, "ACK": acknowledged.path, "TWEETCLI_FOLD_THRESHOLD": "16"]))
        }
        // Readers at the same time never fail and never see a half-written store.
        var readerFailures = 0
        while processes.contains(where: \.isRunning) {
            let feed = try cli.run(["feed", "--json", "--limit", "30"], environment: ["TWEETCLI_FOLD_THRESHOLD": "16"])
            if feed.status != 0 { readerFailures += 1 }
        }
        for process in processes { process.waitUntilExit() }
        #expect(readerFailures == 0)

        let documents = try Self.documents(cli)
        var captions: [String: Int] = [:]
        for (path, data) in documents where path.hasPrefix("tweets/") {
            captions[data["caption"] as? String ?? "", default: 0] += 1
        }
        for poster in 1...posters {
            let file = acknowledged.appendingPathComponent("poster\(poster)")
            let acked = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            #expect(acked.count == 250, "every post of poster\(poster) succeeded")
            for caption in acked { #expect(captions[String(caption)] == 1, "\(caption) is there exactly once") }
        }
        #expect(documents["tweets/\(tweet)"]?["likes"] as? Int == 2)
        Self.expectLikeCountsMatch(documents)
        Self.expectFollowCountsMatch(documents)
    }

    /// Every user's counted `following` and `followers` equal the follow documents on each side.
    static func expectFollowCountsMatch(_ documents: [String: [String: Any]]) {
        var following: [String: Int] = [:]
        var followers: [String: Int] = [:]
        for path in documents.keys {
            let parts = path.split(separator: "/").map(String.init)
            guard parts.count == 4 else { continue }
            if parts[0] == "following" && parts[2] == "user-following" { following[parts[1], default: 0] += 1 }
            if parts[0] == "followers" && parts[2] == "user-followers" { followers[parts[1], default: 0] += 1 }
        }
        var checked = 0
        for (path, data) in documents where path.hasPrefix("user-stats/") {
            let uid = String(path.dropFirst("user-stats/".count))
            #expect(data["following"] as? Int == following[uid, default: 0], "following of \(uid)")
            #expect(data["followers"] as? Int == followers[uid, default: 0], "followers of \(uid)")
            checked += 1
        }
        #expect(checked > 0)
    }

    @Test func killingWritersAtRandomMomentsLosesNoAcknowledgedWrite() throws {
        let cli = try CLIRunner()
        try cli.register("writer", fullname: "Writer")
        let target = try cli.post("target")
        var acknowledged: [String] = []
        var killed = 0
        var random = SystemRandomNumberGenerator()
        // Folding every 3 records puts folds and merges under the kills too.
        let environment = [
            "HOME": cli.home.path, "XDG_STATE_HOME": cli.home.appendingPathComponent("state").path,
            "TWEETCLI_FOLD_THRESHOLD": "3",
        ]
        var trial = 0
        while killed < 60 && trial < 600 {
            trial += 1
            let caption = "trial \(trial)"
            let arguments = [["post", caption], ["like", target], ["unlike", target]][trial % 3]
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["--store", cli.store.path] + arguments
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 0...35_000, using: &random))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal {
                killed += 1
            } else if process.terminationStatus == 0, arguments[0] == "post" {
                acknowledged.append(caption)
            }
        }
        #expect(killed >= 50, "at least 50 trials killed a writer mid-command (\(trial) trials)")
        // The store opens, holds every acknowledged post once, and nothing half-written shows.
        let documents = try Self.documents(cli)
        var captions: [String: Int] = [:]
        for (path, data) in documents where path.hasPrefix("tweets/") {
            let caption = try #require(data["caption"] as? String)
            #expect(caption == "target" || caption.hasPrefix("trial "), "\(caption)")
            captions[caption, default: 0] += 1
        }
        for caption in acknowledged { #expect(captions[caption] == 1, "\(caption)") }
        for (caption, count) in captions { #expect(count == 1, "\(caption) once") }
        Self.expectLikeCountsMatch(documents)
        let doctor = try cli.run(["doctor"])
        #expect(!doctor.stdout.contains("checksum") && !doctor.stdout.contains("seg-"), "\(doctor.stdout)")
    }

    struct Damage: CustomTestStringConvertible, Sendable {
        var name: String
        /// Changes the store's files; gets the store directory.
        var apply: @Sendable (URL) throws -> Void
        /// What reads say: a part of the message naming the file and the record.
        var message: String
        var testDescription: String { name }
    }

    static func lines(_ url: URL) throws -> [String] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
    }

    static let damages: [Damage] = [
        Damage(
            name: "a byte changed inside a journal record, still valid JSON",
            apply: { store in
                let journal = store.appendingPathComponent("journal.jsonl")
                var lines = try StoreSafetyTests.lines(journal)
                lines[2] = lines[2].replacingOccurrences(of: "\"likes\":0", with: "\"likes\":7")
                try lines.joined(separator: "\n").write(to: journal, atomically: false, encoding: .utf8)
            }, message: "journal.jsonl is damaged at line 3 (checksum mismatch)"),
        Damage(
            name: "a byte changed inside a segment record, still valid JSON",
            apply: { store in
                let segment = store.appendingPathComponent("seg-000001.jsonl")
                var lines = try StoreSafetyTests.lines(segment)
                let index = try #require(lines.firstIndex { $0.contains("\"likes\":0") })
                lines[index] = lines[index].replacingOccurrences(of: "\"likes\":0", with: "\"likes\":1")
                try lines.joined(separator: "\n").write(to: segment, atomically: false, encoding: .utf8)
            }, message: "seg-000001.jsonl is damaged at line"),
        Damage(
            name: "a truncated segment",
            apply: { store in
                let segment = store.appendingPathComponent("seg-000001.jsonl")
                let data = try Data(contentsOf: segment)
                try data.prefix(data.count - 40).write(to: segment)
            }, message: "seg-000001.jsonl is damaged"),
        Damage(
            name: "an empty journal",
            apply: { store in try Data().write(to: store.appendingPathComponent("journal.jsonl")) },
            message: "journal.jsonl is damaged at line 1 (the file is empty)"),
        Damage(
            name: "a journal from a newer format version",
            apply: { store in
                let journal = store.appendingPathComponent("journal.jsonl")
                var lines = try StoreSafetyTests.lines(journal)
                lines[0] = "{\"format\":\"tweetcli-store\",\"version\":9}"
                try lines.joined(separator: "\n").write(to: journal, atomically: false, encoding: .utf8)
            }, message: "journal.jsonl has format 9, which this version cannot read; upgrade tweetcli"),
    ]

    @Test(arguments: damages)
    func damageIsReportedByNameAndRepairKeepsEveryIntactRecord(_ damage: Damage) throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "4", "--tweets", "20", "--likes", "0", "--follows", "1"]).status == 0)
        try cli.register("author", fullname: "Author")
        for index in 1...3 { _ = try cli.post("journal tweet \(index)") }
        let before = try Self.documents(cli)
        // The most documents one journal record writes (a post: the tweet, its author's counter,
        // its search terms' postings and counts): at most one record is lost to one damaged line.
        let perRecord =
            try Self.lines(cli.journal).dropFirst().map { $0.components(separatedBy: "\"op\":").count - 1 }
            .max() ?? 0
        try damage.apply(cli.store)

        let feed = try cli.run(["feed", "--limit", "100"])
        #expect(feed.status == 1)
        #expect(feed.stderr.contains(damage.message), "\(feed.stderr)")
        #expect(feed.stderr.split(separator: "\n").count == 1)
        let check = try cli.run(["doctor"])
        #expect(check.status == 1)
        #expect(!check.stdout.isEmpty)

        let repair = try cli.run(["doctor", "--repair"])
        let repairable = !damage.name.contains("newer format")
        #expect(repair.status == (repairable ? 0 : 1), "\(repair.stdout)\(repair.stderr)")
        guard repairable else { return }
        #expect(try cli.run(["doctor"]).status == 0)
        #expect(try cli.run(["feed"]).status == 0)
        // An empty journal holds nothing to keep: the repair writes a new header.
        guard !damage.name.contains("empty") else { return }
        let after = try Self.documents(cli)
        // Every intact record stayed; what went is in a side file, byte for byte.
        let lost = Set(before.keys).subtracting(after.keys)
        #expect(lost.count <= max(2, perRecord), "\(lost)")
        let sideFiles = try FileManager.default.contentsOfDirectory(atPath: cli.store.path).filter {
            $0.contains("damaged")
        }
        if !lost.isEmpty || damage.name.contains("journal record") {
            #expect(!sideFiles.isEmpty)
            let aside = try sideFiles.map {
                try String(contentsOf: cli.store.appendingPathComponent($0), encoding: .utf8)
            }.joined()
            for path in lost { #expect(aside.contains(path.split(separator: "/").last!), "\(path) is in a side file") }
        }
    }

    @Test func aTornWriteIsIgnoredByReadersAndSetAsideByTheNextWriter() throws {
        let cli = try CLIRunner()
        try cli.register("author", fullname: "Author")
        let kept = try cli.post("kept")
        let handle = try FileHandle(forWritingTo: cli.journal)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"crc\":\"12345678\",\"tx\":{\"ops\":[{\"da".utf8))
        try handle.close()
        #expect(try jsonArray(try cli.run(["feed", "--json"]).stdout).map { $0["id"] as? String } == [kept])
        #expect(try cli.run(["doctor"]).stdout.contains("unfinished write"))
        _ = try cli.post("after")
        let sideFiles = try FileManager.default.contentsOfDirectory(atPath: cli.store.path).filter {
            $0.contains(".torn-")
        }
        #expect(sideFiles.count == 1)
        #expect(try cli.run(["doctor"]).status == 0)
        #expect(try jsonArray(try cli.run(["feed", "--json"]).stdout).count == 2)
    }
}
