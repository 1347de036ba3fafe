import Foundation
import Synchronization
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

#if canImport(Glibc)
    import Glibc
#endif

/// Merges run outside the writers' lock: commits leave them to a compaction, which answers as the
/// model does, runs one at a time, and can be killed at any moment without losing anything.
@Suite(.serialized)
struct CompactionTests {
    typealias Directory = StorageEngineTests.Directory

    /// The directories a store asked to compact, instead of compacting them.
    final class Requests: Sendable {
        let directories = Mutex<[String]>([])

        var start: @Sendable (String) -> Void {
            { directory in self.directories.withLock { $0.append(directory) } }
        }
    }

    static func manifest(_ directory: Directory) throws -> Manifest {
        try Manifest.load(directory: directory.path)
    }

    /// The records in the store's journal (its lines after the header).
    static func journalRecords(_ directory: Directory) throws -> Int {
        let text = try String(
            contentsOfFile: (directory.path as NSString).appendingPathComponent(StorageEngine.journalName),
            encoding: .utf8)
        return text.split(separator: "\n").count - 1
    }

    /// The lines of `segment`'s data file that are deletions.
    static func deletions(in segment: String, _ directory: Directory) throws -> [String] {
        let text = try String(
            contentsOfFile: (directory.path as NSString).appendingPathComponent(SegmentFormat.dataFileName(segment)),
            encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map(String.init).filter { $0.contains(",null,\"") }
    }

    @Test func commitsLeaveMergesToACompactionThatAnswersLikeTheModel() async throws {
        let directory = Directory()
        let requests = Requests()
        let store = try LocalDocumentStore(
            directory: directory.path, indexes: StorageEngineTests.indexes, foldThreshold: 3,
            compaction: .background(start: requests.start))
        var model: [DocumentPath: JSONObject] = [:]
        var random = SplitMix64(seed: 5)
        try await StorageEngineTests.randomWrites(150, store: store, model: &model, random: &random)
        // No commit merged: the segments are as the folds left them, and each fold that wanted a
        // merge asked for one.
        let before = try Self.manifest(directory)
        #expect(StorageEngine.plannedMerge(before.segments) != nil, "\(before.segments)")
        #expect(
            (9...StorageEngine.segmentLimit).contains(before.segments.count),
            "more than the rule keeps, no more than the limit: \(before.segments.count) segments")
        let asked = requests.directories.withLock { $0 }
        #expect(!asked.isEmpty && asked.allSatisfy { $0 == directory.path })
        try await StorageEngineTests.expectMatches(store, model)

        #expect(try await store.compact())
        let after = try Self.manifest(directory)
        #expect(StorageEngine.plannedMerge(after.segments) == nil, "\(after.segments)")
        #expect(after.segments.count < before.segments.count)
        // The journal the commits left is folded too, if it is long enough to want it.
        #expect(after.foldedSequence >= before.foldedSequence && after.lastTime! >= before.lastTime!)
        #expect(try FoldTests.pendingRecords(directory) < 3)
        try await StorageEngineTests.expectMatches(store, model)
        // The oldest segment hides nothing older, so the merges into it kept no deletion.
        #expect(try Self.deletions(in: after.segments[0].name, directory).isEmpty)
        // Only the live segments' files are left, and no compaction's.
        let live = Set(after.segments.flatMap { [$0.name + ".jsonl", $0.name + ".idx"] })
        #expect(Set(directory.files().filter { $0.hasPrefix("seg-") }) == live)
        #expect(!directory.files().contains { $0.hasPrefix("compaction-") })
        let reopened = try LocalDocumentStore(
            directory: directory.path, indexes: StorageEngineTests.indexes, foldThreshold: 3)
        try await StorageEngineTests.expectMatches(reopened, model)
    }

    @Test func aCompactionThatFindsAnotherRunningLeavesItTheWork() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(
            directory: directory.path, indexes: StorageEngineTests.indexes, foldThreshold: 2,
            compaction: .background(start: { _ in }))
        var model: [DocumentPath: JSONObject] = [:]
        var random = SplitMix64(seed: 6)
        try await StorageEngineTests.randomWrites(20, store: store, model: &model, random: &random)
        let before = try Self.manifest(directory)
        let held = try [CompactionLock.Kind.fold, .merge].map {
            try #require(try CompactionLock.acquire(directory.path, $0))
        }
        #expect(try await store.compact() == false)
        #expect(try Self.manifest(directory) == before)
        held.forEach(CompactionLock.release)
        #expect(try await store.compact())
        #expect(StorageEngine.plannedMerge(try Self.manifest(directory).segments) == nil)
        try await StorageEngineTests.expectMatches(store, model)
    }

    /// A compaction, asked for or run by hand, folds a journal of any length: every process
    /// replays what it leaves, and `compact` promises a store with nothing left to replay.
    @Test func aCompactionFoldsAJournalTooShortToAskForOne() async throws {
        let directory = Directory()
        let store = try FoldTests.store(directory, foldThreshold: 64)
        var model: [DocumentPath: JSONObject] = [:]
        var random = SplitMix64(seed: 9)
        try await StorageEngineTests.randomWrites(5, store: store, model: &model, random: &random)
        let written = try Self.journalRecords(directory)
        #expect(written > 0)
        _ = try await store.compact()
        #expect(try Self.journalRecords(directory) == 0)
        #expect(try Self.manifest(directory).foldedSequence == Int64(written))
        try await StorageEngineTests.expectMatches(store, model)
    }

    @Test func aKilledCompactionsFilesAreNeverReadAndTheNextRemovesThem() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(
            directory: directory.path, indexes: StorageEngineTests.indexes, foldThreshold: 2,
            compaction: .background(start: { _ in }))
        var model: [DocumentPath: JSONObject] = [:]
        var random = SplitMix64(seed: 7)
        try await StorageEngineTests.randomWrites(20, store: store, model: &model, random: &random)
        for name in ["compaction-4242.jsonl", "compaction-4242.idx", "fold-4243.jsonl", "fold-4243.idx"] {
            try Data("half a merge".utf8).write(to: URL(fileURLWithPath: directory.path).appendingPathComponent(name))
        }
        // A merge killed after its commit, before it removed the segments it replaced: one large,
        // one a link to a file outside the store, which is not to be touched.
        let outside = Directory()
        try FileManager.default.createDirectory(atPath: outside.path, withIntermediateDirectories: true)
        let target = (outside.path as NSString).appendingPathComponent("kept.jsonl")
        try Data(repeating: 0x61, count: 3_000).write(to: URL(fileURLWithPath: target))
        let large = (directory.path as NSString).appendingPathComponent("seg-000900.jsonl.gone")
        try Data(repeating: 0x62, count: 9 << 20 + 17).write(to: URL(fileURLWithPath: large))
        let link = (directory.path as NSString).appendingPathComponent("seg-000900.idx.gone")
        #expect(symlink(target, link) == 0)
        let lookalike = (directory.path as NSString).appendingPathComponent("notes.jsonl.gone")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: lookalike))
        try await StorageEngineTests.expectMatches(store, model)
        #expect(try await store.compact())
        #expect(
            !directory.files().contains { $0.hasPrefix("compaction-") || $0.hasPrefix("fold-") }, "\(directory.files())"
        )
        #expect(!directory.files().contains { $0.hasPrefix("seg-") && $0.hasSuffix(".gone") }, "\(directory.files())")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)).count == 3_000, "the link's target stays")
        #expect(directory.files().contains("notes.jsonl.gone"), "not a segment's file")
        // A name that only looks like a compaction's is not touched.
        #expect(!CompactionLock.isOutputFileName("compaction-42.jsonl.bak", .merge))
        #expect(!CompactionLock.isOutputFileName("compaction-.jsonl", .merge))
        #expect(CompactionLock.isOutputFileName("compaction-42.idx", .merge))
        // Each kind removes only its own: a running fold's files are not a merge's to delete.
        #expect(!CompactionLock.isOutputFileName("fold-42.idx", .merge))
        #expect(CompactionLock.isOutputFileName("fold-42.idx", .fold))
        #expect(!CompactionLock.isOutputFileName("compaction-42.idx", .fold))
    }

    /// A store whose next merge is into its base segment, a large one: two imports, the second a
    /// quarter of the first's size, so the size-tiered rule merges them.
    static func storeWithALargeMerge(_ directory: Directory, base: Int) async throws -> (
        LocalDocumentStore, [DocumentPath: JSONObject]
    ) {
        let store = try LocalDocumentStore(
            directory: directory.path, indexes: AppServices.indexes, foldThreshold: 50,
            compaction: .background(start: { _ in }))
        var model: [DocumentPath: JSONObject] = [:]
        func tweets(_ range: Range<Int>, version: Int) -> [(DocumentPath, JSONObject)] {
            range.map { number in
                let fields: JSONObject = [
                    "uid": .string("u\(number % 97)"), "caption": .string("tweet \(number) version \(version)"),
                    "timestamp": .string("2026-01-01T00:00:\(String(format: "%02d", number % 60)).000Z"),
                    "likes": .integer(Int64(number % 7)),
                ]
                return (
                    DocumentPath(collection: number % 3 == 0 ? "counters" : "tweets", documentID: "t\(number)"), fields
                )
            }
        }
        for documents in [tweets(0..<base, version: 1), tweets(base / 2..<(base / 2 + base / 4), version: 2)] {
            try await store.importDocuments(documents, requiringEmpty: nil)
            for (path, fields) in documents { model[path] = fields }
        }
        let manifest = try Manifest.load(directory: directory.path)
        #expect(manifest.segments.count == 2 && StorageEngine.plannedMerge(manifest.segments) == 0)
        return (store, model)
    }

    @Test func killingCompactionsMidMergeLosesNothingWhileOthersReadAndWrite() async throws {
        let directory = Directory()
        var (store, model) = try await Self.storeWithALargeMerge(directory, base: 24_000)
        var random = SplitMix64(seed: 8)
        var abandoned = 0
        var written = 0
        for trial in 0..<10 {
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["--store", directory.path, "compact"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // While it merges, this process reads and writes as any command would.
            let deadline = Date().addingTimeInterval(Double(random.next() % 400) / 1000)
            repeat {
                let path = DocumentPath(collection: "tweets", documentID: "new\(trial)-\(written)")
                let fields: JSONObject = ["uid": .string("w"), "timestamp": .string("2026-02-01T00:00:00.000Z")]
                try await store.setData(fields, at: path)
                model[path] = fields
                written += 1
                let probe = model.keys.randomElement(using: &random)!
                #expect(try await store.getDocument(probe)?.data == model[probe], "\(probe)")
            } while Date() < deadline
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if directory.files().contains(where: { $0.hasPrefix("compaction-") }) { abandoned += 1 }
            // Every read, from a fresh store object (another process), still answers from the old segments.
            store = try LocalDocumentStore(
                directory: directory.path, indexes: AppServices.indexes, foldThreshold: 50,
                compaction: .background(start: { _ in }))
        }
        #expect(abandoned >= 3, "at least three kills came in the middle of a merge (\(abandoned))")
        // A compaction left to finish merges everything, and removes what the killed ones left.
        let finish = try Process.run(CLIRunner.executable, arguments: ["--store", directory.path, "compact"])
        finish.waitUntilExit()
        #expect(finish.terminationStatus == 0)
        #expect(!directory.files().contains { $0.hasPrefix("compaction-") }, "\(directory.files())")
        let manifest = try Manifest.load(directory: directory.path)
        #expect(StorageEngine.plannedMerge(manifest.segments) == nil, "\(manifest.segments)")
        var exported: [DocumentPath: JSONObject] = [:]
        let collected = Mutex<[DocumentSnapshot]>([])
        try await store.exportDocuments { batch in collected.withLock { $0 += batch } }
        for snapshot in collected.withLock({ $0 }) {
            #expect(exported[snapshot.path] == nil, "\(snapshot.path) exported twice")
            exported[snapshot.path] = snapshot.data
        }
        #expect(exported == model)
        #expect(try StoreDoctor(directory: directory.path, indexes: AppServices.indexes).check().isEmpty)
    }
}
