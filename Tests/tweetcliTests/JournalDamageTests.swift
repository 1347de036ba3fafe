import Foundation
import Testing
import TweetTestSupport

/// Issue 8's journal reproductions: a header that is torn or damaged, and a journal that cannot be
/// read. No acknowledged write is lost, and repair never rewrites what it could not read.
struct JournalDamageTests {
    /// A store with a user and three posts still in the journal (no fold yet).
    func storeWithPosts() throws -> (CLIRunner, [String]) {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let posts = try (1...3).map { try cli.post("journal post \($0)") }
        return (cli, posts)
    }

    func captions(_ cli: CLIRunner) throws -> [String] {
        let feed = try cli.run(["feed", "--json", "--limit", "100"])
        #expect(feed.status == 0, "\(feed.stderr)")
        return try jsonArray(feed.stdout).compactMap { $0["caption"] as? String }
    }

    @Test func nothingIsAppendedAfterATornHeaderAndRepairKeepsWhatFollows() throws {
        let (cli, _) = try storeWithPosts()
        let handle = try FileHandle(forWritingTo: cli.journal)
        try handle.truncate(atOffset: 10)
        try handle.close()
        let torn = cli.journalBytes()
        let post = try cli.run(["post", "after the damage"])
        #expect(post.status == 1)
        #expect(post.stderr.contains("its header line is unfinished"), "\(post.stderr)")
        #expect(cli.journalBytes() == torn)  // Nothing was appended after a header it cannot read.
        let repair = try cli.run(["doctor", "--repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(try cli.run(["doctor"]).status == 0)
        // The truncation itself cut the earlier records; after the repair the store takes writes again.
        #expect(try cli.run(["feed"]).status == 0)
        #expect(try cli.run(["seed", "--users", "2"]).status == 0)
    }

    @Test func aDamagedHeaderIsSetAsideAndEveryRecordAfterItIsKept() throws {
        let (cli, _) = try storeWithPosts()
        var text = try String(contentsOf: cli.journal, encoding: .utf8)
        let firstLine = try #require(text.firstIndex(of: "\n"))
        text.replaceSubrange(text.startIndex..<firstLine, with: "{\"format\":\"garbage")
        try text.write(to: cli.journal, atomically: false, encoding: .utf8)
        #expect(try cli.run(["feed"]).status == 1)
        let repair = try cli.run(["doctor", "--repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stdout.contains("moved aside to"))
        #expect(try captions(cli) == ["journal post 3", "journal post 2", "journal post 1"])
        #expect(try cli.run(["post", "after the repair"]).status == 0)
    }

    @Test(.enabled(if: Strace.works))
    func aJournalThatCannotBeReadIsNeverRewrittenByRepair() throws {
        let (cli, _) = try storeWithPosts()
        let before = cli.journalBytes()
        // strace fails every openat of the journal with EIO, as a failing disk would.
        let strace = Process()
        strace.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        strace.arguments = [
            "-f", "-qq", "-o", "/dev/null", "-e", "trace=openat", "-e", "inject=openat:error=EIO",
            "-P", cli.journal.path, CLIRunner.executable.path, "--store", cli.store.path, "doctor", "--repair",
        ]
        strace.environment = ["HOME": cli.home.path, "XDG_STATE_HOME": cli.home.appendingPathComponent("state").path]
        let errors = Pipe()
        strace.standardError = errors
        strace.standardOutput = FileHandle.nullDevice
        try strace.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        strace.waitUntilExit()
        #expect(strace.terminationStatus == 1)
        #expect(message.contains("error: ") && message.contains("journal.jsonl"), "\(message)")
        #expect(!message.contains("missing"))
        #expect(cli.journalBytes() == before)
        #expect(try captions(cli) == ["journal post 3", "journal post 2", "journal post 1"])
    }

    /// The journal's lines, with `change` applied to the list of them.
    func rewriteJournal(_ cli: CLIRunner, _ change: (inout [String]) -> Void) throws {
        var lines = try String(contentsOf: cli.journal, encoding: .utf8).split(separator: "\n").map(String.init)
        change(&lines)
        try (lines.joined(separator: "\n") + "\n").write(to: cli.journal, atomically: false, encoding: .utf8)
    }

    @Test func swappedRecordsAreDamageAndRepairPutsThemBackInOrder() throws {
        let (cli, _) = try storeWithPosts()
        #expect(try cli.run(["edit-profile", "--bio", "first"]).status == 0)
        #expect(try cli.run(["edit-profile", "--bio", "second"]).status == 0)
        try rewriteJournal(cli) { $0.swapAt($0.count - 1, $0.count - 2) }
        let feed = try cli.run(["feed"])
        #expect(feed.status == 1)
        #expect(feed.stderr.contains("journal.jsonl is damaged at line"), "\(feed.stderr)")
        let check = try cli.run(["doctor"])
        #expect(check.status == 1)
        #expect(try cli.run(["doctor", "--repair"]).status == 0)
        #expect(try json(try cli.run(["whoami", "--json"]).stdout)["bio"] as? String == "second")
        #expect(try captions(cli) == ["journal post 3", "journal post 2", "journal post 1"])
    }

    @Test func aMissingRecordIsDamageAndRepairKeepsTheOthers() throws {
        let (cli, _) = try storeWithPosts()
        try rewriteJournal(cli) { $0.remove(at: $0.count - 2) }  // journal post 2
        let feed = try cli.run(["feed"])
        #expect(feed.status == 1)
        #expect(feed.stderr.contains("1 record(s) are missing"), "\(feed.stderr)")
        #expect(try cli.run(["doctor", "--repair"]).status == 0)
        #expect(try captions(cli) == ["journal post 3", "journal post 1"])
        #expect(try cli.run(["post", "after the repair"]).status == 0)
        #expect(try captions(cli).first == "after the repair")
    }

    @Test func aRepeatedRecordIsDamageAndRepairSetsTheCopyAside() throws {
        let (cli, _) = try storeWithPosts()
        try rewriteJournal(cli) { $0.append($0[$0.count - 1]) }
        #expect(try cli.run(["feed"]).status == 1)
        let repair = try cli.run(["doctor", "--repair"])
        #expect(repair.status == 0)
        #expect(repair.stdout.contains("moved aside to"))
        #expect(try captions(cli) == ["journal post 3", "journal post 2", "journal post 1"])
    }

    @Test func aStoreWhoseJournalIsGoneIsDamagedNotEmpty() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "4", "--tweets", "12"]).status == 0)
        try FileManager.default.removeItem(at: cli.journal)
        for arguments in [["feed"], ["export"], ["explore"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains("the journal is missing"), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let login = try cli.run(["login", "--username", "nobody", "--password-stdin"], stdin: "whatever1\n")
        #expect(login.stderr.contains("the journal is missing"))
        #expect(!FileManager.default.fileExists(atPath: cli.journal.path))  // Reading created nothing.
        #expect(try cli.run(["doctor", "--repair"]).status == 0)
        #expect(try jsonArray(try cli.run(["feed", "--json", "--limit", "100"]).stdout).count == 12)
    }

    @Test func aSegmentWithItsLinesShuffledKeepsEveryRecordThroughRepair() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "6", "--tweets", "40", "--seed", "3"]).status == 0)
        let before = try cli.run(["export"]).stdout
        let segment = cli.store.appendingPathComponent("seg-000001.jsonl")
        var lines = try String(contentsOf: segment, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines.removeFirst()
        var random = SystemRandomNumberGenerator()
        lines.shuffle(using: &random)
        lines.append(lines[0])  // and one line twice
        try ([header] + lines).joined(separator: "\n").appending("\n").write(
            to: segment, atomically: false, encoding: .utf8)
        #expect(try cli.run(["doctor"]).status == 1)
        let repair = try cli.run(["doctor", "--repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(try cli.run(["doctor"]).status == 0)
        #expect(try cli.run(["export"]).stdout == before)
        // Only the copy went to a side file.
        let sideFiles = try FileManager.default.contentsOfDirectory(atPath: cli.store.path).filter {
            $0.hasPrefix("damaged-")
        }
        #expect(sideFiles.count == 1)
        let aside = try String(contentsOfFile: cli.store.appendingPathComponent(sideFiles[0]).path, encoding: .utf8)
        #expect(aside == lines[0] + "\n")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock")))
    func aStoreHeldTooLongIsBusyAndTheHolderIsNamed() throws {
        let (cli, _) = try storeWithPosts()
        // A process that takes the store's lock (its directory) and stops there, as a stopped
        // tweetcli would.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["--no-fork", cli.store.path, "sleep", "30"]  // ends with its process
        try holder.run()
        // SIGKILL: a child of the test runner inherits its blocked signals, SIGTERM among them.
        defer { kill(holder.processIdentifier, SIGKILL) }
        Thread.sleep(forTimeInterval: 0.3)
        let started = Date()
        let feed = try cli.run(["feed"])
        let waited = Date().timeIntervalSince(started)
        #expect(feed.status == 1)
        #expect(feed.stderr.contains("is busy: pid "), "\(feed.stderr)")
        #expect(feed.stderr.contains("for over 5 seconds"))
        #expect(waited >= 4.5 && waited < 20)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        #expect(try captions(cli).count == 3)
    }

    @Test(arguments: ["journal.jsonl", "MANIFEST.json", "seg-000001.jsonl", "seg-000001.idx"])
    func aFIFOWhereAStoreFileShouldBeIsAnErrorNotAHang(_ name: String) throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "3", "--tweets", "6"]).status == 0)
        let path = cli.store.appendingPathComponent(name).path
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        for arguments in [["feed"], ["doctor"]] {
            let result = try cli.run(arguments)  // A hang here would stop the suite at its time limit.
            #expect(result.status == 1, "\(arguments): \(result.stdout)")
            #expect((result.stdout + result.stderr).contains("it is not a regular file"), "\(arguments)")
        }
        // An index is rebuilt from its segment; anything else is left for a person to look at.
        let repair = try cli.run(["doctor", "--repair"])
        #expect(repair.status == (name.hasSuffix(".idx") ? 0 : 1), "\(repair.stdout) \(repair.stderr)")
        if name.hasSuffix(".idx") { #expect(try captions(cli).count == 6) }
    }

    @Test func theStoresTemporaryFilesNeverFollowASymlink() throws {
        let (cli, _) = try storeWithPosts()
        let victim = cli.home.appendingPathComponent("victim.txt")
        try Data("keep me\n".utf8).write(to: victim)
        // A link where the next manifest or journal rewrite writes its temporary file.
        for name in ["MANIFEST.json.new", "journal.jsonl.new"] {
            try FileManager.default.createSymbolicLink(
                atPath: cli.store.appendingPathComponent(name).path, withDestinationPath: victim.path)
        }
        let folds = ["TWEETCLI_FOLD_THRESHOLD": "1"]
        #expect(try cli.run(["post", "folded"], environment: folds).status == 0)
        #expect(try cli.run(["doctor", "--repair"]).status == 0)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me\n")
        #expect(try captions(cli).first == "folded")
    }

    @Test func aSegmentOfANewerFormatIsRefusedAndNeverRewritten() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "3", "--tweets", "6"]).status == 0)
        let segment = cli.store.appendingPathComponent("seg-000001.jsonl")
        let text = try String(contentsOf: segment, encoding: .utf8)
        let newer = text.replacingOccurrences(of: "\"version\":1}", with: "\"version\":2}")
        #expect(newer != text)
        try newer.write(to: segment, atomically: false, encoding: .utf8)
        let feed = try cli.run(["feed"])
        #expect(feed.status == 1)
        #expect(feed.stderr.contains("format 2, which this version cannot read; upgrade tweetcli"), "\(feed.stderr)")
        let repair = try cli.run(["doctor", "--repair"])
        #expect(repair.status == 1)
        #expect(try String(contentsOf: segment, encoding: .utf8) == newer)
    }

    /// Whether this process may make a mount namespace with a read-only bind mount (root here).
    static let canMountReadOnly: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), getuid() == 0 else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", "true"]
        probe.standardError = FileHandle.nullDevice
        do { try probe.run() } catch { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    @Test(.enabled(if: canMountReadOnly))
    func aStoreOnAReadOnlyFileSystemCanBeReadAndExported() throws {
        let (cli, _) = try storeWithPosts()
        let expected = try cli.run(["export"]).stdout
        let store = cli.store.path
        let tweetcli = "\(CLIRunner.executable.path) --store \(store)"
        let script = """
            mount --bind \(store) \(store) && mount -o remount,bind,ro \(store) || exit 99
            \(tweetcli) export > \(cli.home.path)/export.jsonl || exit 10
            \(tweetcli) feed --json > \(cli.home.path)/feed.json || exit 11
            \(tweetcli) post "not on a read-only disk" 2> \(cli.home.path)/post.err && exit 12
            exit 0
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-m", "/bin/sh", "-c", script]
        process.environment = ["HOME": cli.home.path, "XDG_STATE_HOME": cli.home.appendingPathComponent("state").path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try String(contentsOfFile: cli.home.path + "/export.jsonl", encoding: .utf8) == expected)
        let feed = try jsonArray(try String(contentsOfFile: cli.home.path + "/feed.json", encoding: .utf8))
        #expect(feed.count == 3)
        let error = try String(contentsOfFile: cli.home.path + "/post.err", encoding: .utf8)
        #expect(error.contains("the store is read-only"), "\(error)")
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func aStoreThatCannotBeReadIsAnErrorNeverAnEmptyStore() throws {
        let (cli, _) = try storeWithPosts()
        // Another user (nobody) meets the 0700 store: it cannot be searched, let alone read.
        for arguments in [["feed"], ["login", "--username", "ada", "--password-stdin"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", CLIRunner.executable.path, "--store",
                    cli.store.path,
                ]
                + arguments
            process.environment = ["HOME": "/tmp", "XDG_STATE_HOME": "/tmp/nobody-state-\(UUID().uuidString)"]
            let (output, errors, input) = (Pipe(), Pipe(), Pipe())
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = input
            try process.run()
            try input.fileHandleForWriting.write(contentsOf: Data("whatever1\n".utf8))
            try input.fileHandleForWriting.close()
            let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 1, "\(arguments): \(stdout)")
            #expect(stderr.contains("Permission denied"), "\(arguments): \(stderr)")
            #expect(!stdout.contains("No tweets yet") && !stderr.contains("wrong email"))
        }
    }
}
