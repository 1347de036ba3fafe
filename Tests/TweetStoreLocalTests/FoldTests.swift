import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

#if canImport(Glibc)
    import Glibc
#endif

/// Folds of the journal run in a compaction, outside the writers' lock: a commit only asks for one,
/// what is committed while a fold writes survives it, a fold overtaken by another is dropped, and
/// a fold killed at any moment loses nothing.
@Suite(.serialized)
struct FoldTests {
    typealias Directory = StorageEngineTests.Directory
    typealias Requests = CompactionTests.Requests

    static func tweet(_ number: Int) -> (DocumentPath, JSONObject) {
        (
            DocumentPath(collection: "posts", documentID: "p\(number)"),
            ["author": .string("a\(number % 7)"), "timestamp": .string("2026-03-01T00:00:\(number % 60)Z")]
        )
    }

    static func engine(_ directory: Directory, foldThreshold: Int) throws -> StorageEngine {
        try StorageEngine(
            directory: directory.path, clock: Date.init, indexes: StorageEngineTests.indexes,
            foldThreshold: foldThreshold)
    }

    /// The journal's records not folded yet: after its header, those past the manifest's
    /// ``Manifest/foldedSequence`` (a fold killed between its commit and the journal's replacement
    /// leaves the ones before, which are skipped).
    static func pendingRecords(_ directory: Directory) throws -> Int {
        let folded = try Manifest.load(directory: directory.path).foldedSequence
        let bytes = try #require(FileManager.default.contents(atPath: directory.path + "/" + StorageEngine.journalName))
        return try Array(bytes).split(separator: 0x0A).dropFirst().enumerated().count { number, line in
            try JournalRecord.outline(line: line, file: "journal", lineNumber: number + 2).sequence > folded
        }
    }

    /// Writes tweets `range`, one transaction each, to `store` and `model`.
    static func write(
        _ range: Range<Int>, to store: LocalDocumentStore, model: inout [DocumentPath: JSONObject]
    ) async throws {
        for number in range {
            let (path, fields) = tweet(number)
            try await store.setData(fields, at: path)
            model[path] = fields
        }
    }

    @Test func aCommitAsksForAFoldAndFoldsItselfOnlyWhenNoneComes() async throws {
        let directory = Directory()
        let requests = Requests()
        let store = try LocalDocumentStore(
            directory: directory.path, indexes: StorageEngineTests.indexes, foldThreshold: 20,
            compaction: .background(start: requests.start))
        var model: [DocumentPath: JSONObject] = [:]
        try await Self.write(0..<19, to: store, model: &model)
        #expect(requests.directories.withLock { $0.count } == 0)
        try await Self.write(19..<20, to: store, model: &model)
        #expect(requests.directories.withLock { $0.count } == 1)
        // Asked again every few records while no fold comes, and the commits fold nothing.
        try await Self.write(20..<79, to: store, model: &model)
        #expect(requests.directories.withLock { $0.count } == 4)
        #expect(try Manifest.load(directory: directory.path) == Manifest())
        #expect(try CompactionTests.journalRecords(directory) == 79)
        // At four times the threshold the commit folds, under its lock, so the journal stays bounded.
        try await Self.write(79..<80, to: store, model: &model)
        let manifest = try Manifest.load(directory: directory.path)
        #expect(manifest.foldedSequence == 80 && manifest.segments.map(\.documents) == [80])
        #expect(try CompactionTests.journalRecords(directory) == 0)
        try await StorageEngineTests.expectMatches(store, model)
    }

    /// A journal long in bytes, not in records, asks for a fold when it passes
    /// ``StorageEngine/foldBytes``, then every few records as the records' threshold does, not at
    /// every commit (each request starts a process).
    @Test func aJournalLongInBytesAsksForAFoldEveryFewRecords() async throws {
        let directory = Directory()
        let requests = Requests()
        let store = try LocalDocumentStore(
            directory: directory.path, indexes: StorageEngineTests.indexes, foldThreshold: 1000,
            compaction: .background(start: requests.start))
        // The bound is crossed near the 48th record, well before a commit folds it itself.
        let padding = String(repeating: "x", count: StorageEngine.foldBytes / 48)
        var crossed: Int?
        for number in 0..<64 {
            try await store.setData(
                ["author": .string("a"), "padding": .string(padding)],
                at: DocumentPath(collection: "posts", documentID: "p\(number)"))
            let size =
                try FileManager.default.attributesOfItem(
                    atPath: directory.path + "/" + StorageEngine.journalName)[.size] as? Int ?? 0
            if crossed == nil, size >= StorageEngine.foldBytes { crossed = number + 1 }
        }
        let at = try #require(crossed, "the journal passed foldBytes")
        // Once at the crossing, then at each multiple of the interval after it.
        let expected = 1 + (at + 1...64).count { $0 % StorageEngine.foldRequestInterval == 0 }
        #expect(requests.directories.withLock { $0.count } == expected, "crossed at record \(at)")
    }

    /// A store whose commits ask for a fold every `foldThreshold` records (the requests go
    /// nowhere: the tests compact by hand).
    static func store(_ directory: Directory, foldThreshold: Int) throws -> LocalDocumentStore {
        try LocalDocumentStore(
            directory: directory.path, indexes: StorageEngineTests.indexes, foldThreshold: foldThreshold,
            compaction: .background(start: { _ in }))
    }

    /// `rounds` times: 4 tweets written (from `first`), then a compaction, while the merge lock is
    /// held as another process's merge holds it, so that each compaction only folds.
    static func foldWithTheMergeLockHeld(
        rounds: Int, from first: Int, _ directory: Directory, _ store: LocalDocumentStore,
        model: inout [DocumentPath: JSONObject]
    ) async throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let merging = try #require(try CompactionLock.acquire(directory.path, .merge))
        defer { CompactionLock.release(merging) }
        for round in 0..<rounds {
            try await write((first + round * 4)..<(first + round * 4 + 4), to: store, model: &model)
            var engine = try engine(directory, foldThreshold: 4)
            #expect(try !engine.compact(), "merges are the lock holder's")
        }
    }

    /// While another process merges (a merge into a large base segment can take minutes), folds
    /// keep coming: they merge the newest segments themselves beyond ``StorageEngine/segmentLimit``,
    /// so reads and open descriptors stay bounded, and leave no file the manifest does not name.
    @Test func foldsKeepTheSegmentsBoundedWhileAnotherProcessMerges() async throws {
        let directory = Directory()
        let store = try Self.store(directory, foldThreshold: 4)
        var model: [DocumentPath: JSONObject] = [:]
        try await Self.foldWithTheMergeLockHeld(rounds: 40, from: 0, directory, store, model: &model)
        let manifest = try Manifest.load(directory: directory.path)
        #expect(manifest.segments.count == StorageEngine.segmentLimit)
        #expect(manifest.segments.reduce(0) { $0 + $1.documents } == 160 && manifest.foldedSequence == 160)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(
            Set(files.filter(StorageEngine.isSegmentFileName))
                == Set(
                    manifest.segments.flatMap {
                        [SegmentFormat.dataFileName($0.name), SegmentFormat.indexFileName($0.name)]
                    }))
        try await StorageEngineTests.expectMatches(store, model)
    }

    /// A bulk import's commits fold faster than another process merges, thousands of times: the
    /// merges those folds make themselves rewrite each document a logarithmic number of times and
    /// leave the large base segment alone. (Merging the newest two each time rewrote the newest
    /// segment at every fold, about half of all folded documents each time.)
    @Test func foldsOverTheLimitMergeCheaplyAndLeaveTheBaseAlone() {
        let folds = 4096
        var segments = [Manifest.SegmentInfo(name: "base", documents: 1_000_000)]
        var rewritten = 0
        for fold in 0..<folds {
            segments.append(.init(name: "fold\(fold)", documents: 1))
            while segments.count > StorageEngine.segmentLimit {
                let older = StorageEngine.cheapestNeighbours(segments)
                let merged = segments[older].documents + segments[older + 1].documents
                rewritten += merged
                segments.replaceSubrange(older...(older + 1), with: [.init(name: "merge\(fold)", documents: merged)])
            }
        }
        #expect(segments.first == .init(name: "base", documents: 1_000_000))
        #expect(segments.reduce(0) { $0 + $1.documents } == 1_000_000 + folds)
        #expect(rewritten <= folds * 12, "log₂ \(folds) = 12 rewrites of each document at most")
    }

    /// A fold that fails (here: its commit refused) still lets the compaction merge, then says why.
    @Test func aFailingFoldLeavesTheMergesToRun() async throws {
        struct Refused: Error {}
        let directory = Directory()
        let store = try Self.store(directory, foldThreshold: 4)
        var model: [DocumentPath: JSONObject] = [:]
        // Two folds of the same size while the merges wait: a merge is due.
        try await Self.foldWithTheMergeLockHeld(rounds: 2, from: 0, directory, store, model: &model)
        #expect(try Manifest.load(directory: directory.path).segments.map(\.documents) == [4, 4])
        try await Self.write(8..<12, to: store, model: &model)
        var engine = try Self.engine(directory, foldThreshold: 4)
        #expect(throws: Refused.self) { try engine.compact(beforeFoldCommit: { throw Refused() }) }
        // Merged, and the journal's four records still there for the next fold.
        #expect(try Manifest.load(directory: directory.path).segments.map(\.documents) == [8])
        #expect(try Self.pendingRecords(directory) == 4)
        try await StorageEngineTests.expectMatches(store, model)
    }

    @Test func aFoldHoldsNoLockWhileItWritesAndKeepsWhatIsCommittedMeanwhile() async throws {
        let directory = Directory()
        let store = try Self.store(directory, foldThreshold: 3)
        var model: [DocumentPath: JSONObject] = [:]
        try await Self.write(0..<5, to: store, model: &model)
        var compaction = try Self.engine(directory, foldThreshold: 3)
        var writer = try Self.engine(directory, foldThreshold: 3)
        let late = Self.tweet(99)
        var lockWasFree = false
        _ = try compaction.compact {
            // Nobody holds the store's lock while the fold's segment is written: a writer can commit.
            let probe = try StoreLock.open(directory.path)
            lockWasFree = flock(probe.fd, LOCK_EX | LOCK_NB) == 0
            StoreLock.release(probe.fd)
            let time = try writer.beginTransaction()
            _ = try writer.commitTransaction([.set(late.0, late.1)], time: time)
        }
        model[late.0] = late.1
        #expect(lockWasFree)
        let manifest = try Manifest.load(directory: directory.path)
        #expect(manifest.foldedSequence == 5 && manifest.segments.map(\.documents) == [5])
        // The record committed during the fold is the new journal's one record, after the fold's.
        #expect(try CompactionTests.journalRecords(directory) == 1)
        #expect(!directory.files().contains { $0.hasPrefix("fold-") }, "\(directory.files())")
        try await StorageEngineTests.expectMatches(store, model)
        let reopened = try LocalDocumentStore(directory: directory.path, indexes: StorageEngineTests.indexes)
        try await StorageEngineTests.expectMatches(reopened, model)
        #expect(try StoreDoctor(directory: directory.path, indexes: StorageEngineTests.indexes).check().isEmpty)
    }

    @Test func aFoldOvertakenByAnotherIsDroppedAndOneThatFailsLeavesNothing() async throws {
        let directory = Directory()
        let store = try Self.store(directory, foldThreshold: 3)
        var model: [DocumentPath: JSONObject] = [:]
        try await Self.write(0..<5, to: store, model: &model)

        struct Refused: Error {}
        var failing = try Self.engine(directory, foldThreshold: 3)
        #expect(throws: Refused.self) { _ = try failing.compact { throw Refused() } }
        #expect(try Manifest.load(directory: directory.path) == Manifest())
        #expect(try CompactionTests.journalRecords(directory) == 5)
        #expect(!directory.files().contains { $0.hasPrefix("fold-") }, "\(directory.files())")

        // An import folds the journal itself, under the lock, while the compaction's fold is written.
        var compaction = try Self.engine(directory, foldThreshold: 3)
        var importer = try Self.engine(directory, foldThreshold: 3)
        let imported = Self.tweet(50)
        _ = try compaction.compact {
            _ = try importer.importSegment { _ in [SegmentWriter.Entry(path: imported.0, data: imported.1)] }
        }
        model[imported.0] = imported.1
        let manifest = try Manifest.load(directory: directory.path)
        #expect(manifest.foldedSequence == 5 && manifest.imports == 1)
        #expect(manifest.segments.map(\.documents).reduce(0, +) == 6, "\(manifest.segments)")
        #expect(!directory.files().contains { $0.hasPrefix("fold-") }, "\(directory.files())")
        try await StorageEngineTests.expectMatches(store, model)
        #expect(try StoreDoctor(directory: directory.path, indexes: StorageEngineTests.indexes).check().isEmpty)
    }

    @Test func killingAFoldAtAnyMomentLosesNothing() async throws {
        let directory = Directory()
        // The CLI's compaction folds at 128 records; these commits never fold themselves.
        var store = try LocalDocumentStore(
            directory: directory.path, indexes: AppServices.indexes, compaction: .background(start: { _ in }))
        var model: [DocumentPath: JSONObject] = [:]
        try await Self.write(0..<1, to: store, model: &model)
        var next = 1
        var (abandoned, folded) = (0, 0)
        // The kill moves earlier after a fold that finished, later after one that had not begun,
        // so that kills come in the middle of the fold, wherever its middle is on this machine.
        var delay = 0.02
        for _ in 0..<40 where abandoned < 3 {
            let wanted = 150 - (try Self.pendingRecords(directory))
            try await Self.write(next..<(next + max(0, wanted)), to: store, model: &model)
            next += max(0, wanted)
            let before = try Manifest.load(directory: directory.path)
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["--store", directory.path, "compact"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(delay * 1e6))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if directory.files().contains(where: { $0.hasPrefix("fold-") }) {
                abandoned += 1
            } else if try Manifest.load(directory: directory.path).foldedSequence > before.foldedSequence {
                folded += 1
                delay *= 0.7
            } else {
                delay *= 1.4
            }
            // A fresh store object (another process) reads everything, from whatever the kill left.
            store = try LocalDocumentStore(
                directory: directory.path, indexes: AppServices.indexes, compaction: .background(start: { _ in }))
            for (path, fields) in model {
                #expect(try await store.getDocument(path)?.data == fields, "\(path)")
            }
        }
        #expect(abandoned >= 3, "kills in the middle of a fold: \(abandoned); after one: \(folded)")
        let finish = try Process.run(CLIRunner.executable, arguments: ["--store", directory.path, "compact"])
        finish.waitUntilExit()
        #expect(finish.terminationStatus == 0)
        #expect(!directory.files().contains { $0.hasPrefix("fold-") }, "\(directory.files())")
        #expect(try Self.pendingRecords(directory) == 0)
        for (path, fields) in model {
            #expect(try await store.getDocument(path)?.data == fields, "\(path)")
        }
        #expect(try StoreDoctor(directory: directory.path, indexes: AppServices.indexes).check().isEmpty)
    }
}
