import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// A seeded mutation fuzzer for every file the store reads: the journal, the manifest, a segment,
/// its index and the session file. Each run copies a store, damages one file (bytes flipped, set,
/// inserted or cut, lines repeated, swapped or dropped, the file truncated), then opens and reads it,
/// runs `doctor` and `doctor --repair`: none may trap (a trap ends this process), and a repair that
/// reports nothing it could not mend must leave a store that `doctor` finds healthy and that still
/// holds every tweet whose line in the damaged file came through whole.
///
/// `TWEETCLI_FUZZ_ITERATIONS` sets the runs per file (40 by default, as CI runs it) and
/// `TWEETCLI_FUZZ_SEED` the seed: `TWEETCLI_FUZZ_ITERATIONS=5000 swift test --filter StoreFuzzTests`;
/// with `TWEETCLI_FUZZ_KEEP=DIR` each damaged store is kept in DIR, named by salt and run.
@Suite(.serialized)
struct StoreFuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["TWEETCLI_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 40
    static let seed = ProcessInfo.processInfo.environment["TWEETCLI_FUZZ_SEED"].flatMap(UInt64.init) ?? 2026

    /// `TWEETCLI_FUZZ_KEEP`: a directory to keep each damaged store in (before any command ran on it).
    static let keep = ProcessInfo.processInfo.environment["TWEETCLI_FUZZ_KEEP"]

    let env: TestEnvironment
    let pristine: String

    init() async throws {
        env = try TestEnvironment()
        pristine = env.path("pristine")
        let store = try env.makeStore(directory: pristine, foldThreshold: 5)
        for number in 0..<23 {  // 23 records: four folds (with merges) and three still in the journal.
            let fields: JSONObject = [
                "uid": .string("u\(number % 3)"), "caption": .string("tweet \(number) é 日本"), "likes": .integer(0),
                "timestamp": .string(Timestamp.string(from: Date(timeIntervalSince1970: Double(number)))),
                "replyToId": number % 4 == 0 ? .string("t000") : .null,
            ]
            try await store.setData(fields, at: DocumentPath(collection: "tweets", documentID: "t\(number)"))
        }
    }

    enum Mutation: CaseIterable {
        case flip, set, insert, cut, truncate, repeatLine, swapLines, dropLine
    }

    static func mutate(_ bytes: inout [UInt8], _ mutation: Mutation, _ random: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        func offset() -> Int { Int(random.next() % UInt64(bytes.count)) }
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        func line() -> Int { Int(random.next() % UInt64(max(1, lines.count - 1))) }
        switch mutation {
        case .flip: bytes[offset()] ^= UInt8(1 << (random.next() % 8))
        case .set: bytes[offset()] = UInt8(truncatingIfNeeded: random.next())
        case .insert:
            bytes.insert(
                contentsOf: (0..<(1 + random.next() % 8)).map { _ in UInt8(truncatingIfNeeded: random.next()) },
                at: offset())
        case .cut:
            let start = offset()
            bytes.removeSubrange(start..<min(bytes.count, start + 1 + Int(random.next() % 64)))
        case .truncate: bytes.removeLast(1 + offset() % bytes.count)
        case .repeatLine, .swapLines, .dropLine:
            guard lines.count > 2 else { return }
            let (a, b) = (line(), line())
            switch mutation {
            case .repeatLine: lines.insert(lines[a], at: b)
            case .swapLines: lines.swapAt(a, b)
            default: lines.remove(at: a)
            }
            bytes = Array(lines.joined(separator: [0x0A]))
        }
    }

    /// Opens the damaged store and reads every way a command does; errors are fine, traps are not.
    func exercise(_ directory: String) async {
        guard let store = try? LocalDocumentStore(directory: directory, indexes: AppServices.indexes) else { return }
        let tweets = store.collection("tweets")
        // Every error here is an acceptable answer to damage; only a trap or a hang is not.
        _ = try? await store.getDocument(DocumentPath(collection: "tweets", documentID: "t7"))
        _ = try? await store.getDocuments((0..<23).map { DocumentPath(collection: "tweets", documentID: "t\($0)") })
        _ = try? await store.runQuery(tweets.order(by: "timestamp", descending: true).limit(to: 5))
        _ = try? await store.runQuery(tweets.whereField("uid", isEqualTo: .string("u1")).order(by: "timestamp"))
        _ = try? await store.count(tweets.whereField("replyToId", isEqualTo: .string("t000")))
        _ = try? await store.setData(["n": .integer(1)], at: DocumentPath(collection: "tweets", documentID: "new"))
    }

    /// - Parameter salt: varies the mutations from one file's runs to the next's.
    func fuzz(salt: UInt64, file pick: (String) throws -> String) async throws -> Int {
        var random = SplitMix64(seed: Self.seed &+ salt)
        var repairedToHealthy = 0
        for run in 0..<Self.iterations {
            let directory = env.path("run-\(UUID().uuidString.prefix(8))")
            try FileManager.default.copyItem(atPath: pristine, toPath: directory)
            defer { try? FileManager.default.removeItem(atPath: directory) }  // Best effort: a scratch copy.
            let path = try pick(directory)
            var bytes = try env.bytes(of: path)
            let original = Set(Self.lines(bytes))
            let mutation = Mutation.allCases[Int(random.next() % UInt64(Mutation.allCases.count))]
            Self.mutate(&bytes, mutation, &random)
            try env.write(bytes, to: path)
            // The tweets whose lines in this file came through the damage whole.
            let intact = Self.lines(bytes).filter(original.contains).flatMap(Self.tweetNumbers)
            // The damaged store as it was, kept to replay a failure by hand.
            let damaged = directory + "-damaged"
            if Self.keep != nil { try FileManager.default.copyItem(atPath: directory, toPath: damaged) }
            var failed = false
            defer {
                if let keep = Self.keep {  // Best effort, like the scratch copy itself.
                    try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
                    if failed { try? FileManager.default.moveItem(atPath: damaged, toPath: "\(keep)/\(salt)-\(run)") }
                    try? FileManager.default.removeItem(atPath: damaged)
                }
            }
            await exercise(directory)
            let doctor = StoreDoctor(directory: directory, indexes: AppServices.indexes)
            _ = try? doctor.check()  // It may report or throw; it may not trap.
            guard let report = try? doctor.repair(), report.unrepaired.isEmpty else { continue }
            let after = try doctor.check()
            #expect(after.isEmpty, "run \(run) (\(mutation)) of \(path): after repair \(after)")
            failed = !after.isEmpty
            // Repair keeps every record whose checksum holds.
            let repaired = try LocalDocumentStore(directory: directory, indexes: AppServices.indexes)
            for number in Set(intact) {
                let tweet = try await repaired.getDocument(DocumentPath(collection: "tweets", documentID: "t\(number)"))
                if tweet?.data["caption"] != .string("tweet \(number) é 日本") { failed = true }
                #expect(
                    tweet?.data["caption"] == .string("tweet \(number) é 日本"),
                    "run \(run) (\(mutation)) of \(path): t\(number) was intact and is gone")
            }
            await exercise(directory)
            if after.isEmpty { repairedToHealthy += 1 }
        }
        return repairedToHealthy
    }

    /// The file's finished lines: a last one without its newline is an unfinished write, never
    /// committed (the newline is a record's commit mark), which repair sets aside.
    static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        lines.removeLast()
        return lines.filter { !$0.isEmpty }
    }

    /// The numbers of the tweets a line holds (`tweets/t7` is 7).
    static func tweetNumbers(_ line: ArraySlice<UInt8>) -> [Int] {
        let text = String(decoding: line, as: UTF8.self)
        return text.split(separator: "tweets/t").dropFirst().compactMap { Int($0.prefix(while: \.isNumber)) }
    }

    func file(_ directory: String, where matches: (String) -> Bool) throws -> String {
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted().first(where: matches))
        return directory + "/" + name
    }

    @Test func theJournal() async throws {
        let healthy = try await fuzz(salt: 1) { $0 + "/journal.jsonl" }
        print("fuzz journal.jsonl: \(Self.iterations) runs, \(healthy) repaired to healthy, no crash")
        #expect(healthy > 0)
    }

    @Test func theManifest() async throws {
        _ = try await fuzz(salt: 2) { $0 + "/MANIFEST.json" }
        print("fuzz MANIFEST.json: \(Self.iterations) runs, no crash")
    }

    @Test func aSegment() async throws {
        let healthy = try await fuzz(salt: 3) { try file($0) { $0.hasPrefix("seg-") && $0.hasSuffix(".jsonl") } }
        print("fuzz segment: \(Self.iterations) runs, \(healthy) repaired to healthy, no crash")
        #expect(healthy > 0)
    }

    @Test func anIndex() async throws {
        let healthy = try await fuzz(salt: 4) { try file($0) { $0.hasSuffix(".idx") } }
        print("fuzz index: \(Self.iterations) runs, \(healthy) repaired to healthy, no crash")
        #expect(healthy > 0)
    }

    @Test func theSessionFile() throws {
        var random = SplitMix64(seed: Self.seed)
        let path = env.path("session.json")
        let good = Array(#"{"store":"/tmp/s","uid":"abc"}"#.utf8)
        for _ in 0..<Self.iterations {
            var bytes = good
            Self.mutate(&bytes, Mutation.allCases[Int(random.next() % 5)], &random)
            try env.write(bytes, to: path)
            let session = SessionStore(path: path)
            _ = try? session.load()  // Unreadable is an error, never a trap.
        }
    }
}
