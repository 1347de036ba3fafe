import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct LocalDocumentStoreTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    private func path(_ id: String) -> DocumentPath { DocumentPath(collection: "things", documentID: id) }

    private func lines(of file: String) throws -> [ArraySlice<UInt8>] {
        try env.bytes(of: file).split(separator: 0x0A, omittingEmptySubsequences: false)
    }

    /// The `corruptRecord` error's file and line, after checking it is one.
    private func corruptLocation(_ error: StoreError?) -> (file: String, line: Int)? {
        guard case .corruptRecord(let file, let line, _)? = error else {
            Issue.record("expected StoreError.corruptRecord, got \(String(describing: error))")
            return nil
        }
        return (file, line)
    }

    // MARK: Files

    @Test func openingWritesNothingUntilTheFirstWrite() async throws {
        let store = try env.makeStore()
        #expect(try await store.getDocument(DocumentPath(collection: "things", documentID: "a")) == nil)
        #expect(try await !store.exists())
        #expect(!FileManager.default.fileExists(atPath: env.storeDirectory))
    }

    @Test func theFirstWriteCreatesThePrivateDirectoryWithAHeaderLine() async throws {
        let store = try env.makeStore()
        try await store.setData(["n": .integer(1)], at: DocumentPath(collection: "things", documentID: "a"))
        #expect(try await store.exists())
        #expect(try env.permissions(of: env.storeDirectory) == 0o700)
        #expect(try env.permissions(of: env.journalPath) == 0o600)
        let header = try JSONValue.parse(try #require(try lines(of: env.journalPath).first))
        #expect(header == .object(["format": .string("tweetcli-store"), "version": .integer(1)]))
        #expect(try env.files(in: env.storeDirectory) == ["journal.jsonl"])  // The lock is the directory.
    }

    /// Replaying a journal reads in full only the records that hold some path's newest write; a
    /// store reopened on a journal of overwrites, deletes and recreations reads what was written
    /// last, and still folds after as many records as before.
    @Test func aReplayedJournalKeepsEachPathsNewestWrite() async throws {
        let writer = try env.makeStore(foldThreshold: 1000)
        var expected: [String: JSONObject?] = [:]
        var generator = SplitMix64(seed: 5)
        for round in 0..<120 {
            let id = ["a", "b", "c", "d"].randomElement(using: &generator)!
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                try await writer.runTransaction { $0.deleteDocument(path(id)) }
                expected[id] = .some(nil)
            case 1:
                try await writer.runTransaction { transaction in
                    transaction.setData(["n": .integer(Int64(round))], at: path(id))
                    transaction.setData(["other": .integer(Int64(round))], at: path("e"))
                }
                expected[id] = ["n": .integer(Int64(round))]
                expected["e"] = ["other": .integer(Int64(round))]
            default:
                try await writer.setData(["n": .integer(Int64(round)), "text": .string("w\(round)")], at: path(id))
                expected[id] = ["n": .integer(Int64(round)), "text": .string("w\(round)")]
            }
        }
        let reader = try env.makeStore(foldThreshold: 1000)
        for (id, fields) in expected {
            #expect(try await reader.getDocument(path(id))?.data == fields ?? nil, "\(id)")
        }
        let listed = try await reader.collection("things").query.getDocuments().map(\.documentID).sorted()
        #expect(listed == expected.filter { $0.value != nil }.keys.sorted())
        // The fold still counts every record, superseded ones included (a handful hold the newest
        // writes): a threshold of one more than the journal's records folds at the next commit.
        let records = try env.bytes(of: env.journalPath).filter { $0 == 0x0A }.count - 1
        #expect(records > 20)
        let folding = try env.makeStore(foldThreshold: records + 1)
        try await folding.setData(["n": .integer(-1)], at: path("z"))
        #expect(try env.files(in: env.storeDirectory).contains { $0.hasSuffix(".jsonl") && $0.hasPrefix("seg-") })
        #expect(try await env.makeStore().getDocument(path("a"))?.data == expected["a"] ?? nil)
    }

    @Test func everyCommittedTransactionEndsWithANewline() async throws {
        let store = try env.makeStore()
        for index in 0..<5 { try await store.setData(["n": .integer(Int64(index))], at: path("\(index)")) }
        let bytes = try env.bytes(of: env.journalPath)
        #expect(bytes.last == 0x0A)
        #expect(bytes.filter { $0 == 0x0A }.count == 6)
    }

    @Test(arguments: StoreLayout.allCases)
    func dataSurvivesReopeningTheStore(_ layout: StoreLayout) async throws {
        do {
            let store = try env.makeStore(layout)
            try await store.setData(
                ["name": .string("ann"), "tags": .array([.string("é"), .integer(1)])], at: path("a"))
            try await store.setData(["name": .string("bob")], at: path("b"))
            try await store.runTransaction { $0.updateData(["visits": .increment(2)], at: path("a")) }
            try await store.runTransaction { $0.deleteDocument(path("b")) }
        }
        let reopened = try env.makeStore(layout)
        #expect(
            try await reopened.getDocument(path("a"))?.data
                == ["name": .string("ann"), "tags": .array([.string("é"), .integer(1)]), "visits": .integer(2)])
        #expect(try await reopened.getDocument(path("b")) == nil)
        #expect(try await reopened.collection("things").query.count() == 1)
    }

    @Test(arguments: StoreLayout.allCases)
    func twoStoresOnOneDirectorySeeEachOthersWrites(_ layout: StoreLayout) async throws {
        let first = try env.makeStore(layout)
        let second = try env.makeStore(layout)
        try await first.setData(["by": .string("first")], at: path("a"))
        #expect(try await second.getDocument(path("a"))?.data == ["by": .string("first")])
        try await second.runTransaction { $0.updateData(["by": .value(.string("second"))], at: path("a")) }
        try await second.setData(["by": .string("second")], at: path("b"))
        #expect(try await first.getDocument(path("a"))?.data == ["by": .string("second")])
        #expect(try await first.collection("things").query.count() == 2)
        #expect(try await first.getDocuments([path("a"), path("zzz"), path("b")]).map(\.documentID) == ["a", "b"])
    }

    /// A batch is looked up in path order but answered in the order asked, from the journal and
    /// the segments alike, with what does not exist left out and a path asked twice answered twice.
    @Test(arguments: StoreLayout.allCases)
    func aBatchIsAnsweredInTheOrderAsked(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout)
        let ids = ["m", "b", "zz", "a0", "q"]
        for id in ids {
            try await store.setData(["id": .string(id)], at: path(id))
            try await store.setData(["id": .string(id)], at: DocumentPath(collection: "others/\(id)/x", documentID: id))
        }
        try await store.runTransaction { $0.deleteDocument(path("q")) }
        let asked = [
            path("zz"), DocumentPath(collection: "others/b/x", documentID: "b"), path("missing"), path("a0"),
            path("q"), DocumentPath(collection: "others/m/x", documentID: "m"), path("b"), path("zz"), path("m"),
        ]
        let answered = try await store.getDocuments(asked)
        #expect(
            answered.map(\.path.description) == [
                "things/zz", "others/b/x/b", "things/a0", "others/m/x/m", "things/b", "things/zz", "things/m",
            ])
        #expect(answered.allSatisfy { $0.data["id"] == .string($0.documentID) })
    }

    /// A batch answers as one lookup at a time does, however its paths are spread over segments:
    /// after a path found in one segment the next of its collection is searched there before that
    /// segment's Bloom filter is read, which must not hide a newer version, a deletion or an absence.
    @Test(arguments: StoreLayout.localCases)
    func aBatchFindsWhatSingleLookupsFindAcrossSegments(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout)
        let ids = (0..<60).map { String(format: "id%03d", $0) }
        for (number, id) in ids.enumerated() where number % 3 != 2 {
            try await store.setData(["n": .integer(Int64(number)), "round": .integer(1)], at: path(id))
        }
        // A second round, in later folds: some rewritten, some deleted, the rest new.
        for (number, id) in ids.enumerated() {
            switch number % 3 {
            case 0 where number % 2 == 0: try await store.setData(["round": .integer(2)], at: path(id))
            case 1 where number % 4 == 1: try await store.runTransaction { $0.deleteDocument(path(id)) }
            case 2 where number % 5 != 0: try await store.setData(["round": .integer(2)], at: path(id))
            default: break
            }
        }
        let asked = (ids + ids.map { $0 + "x" }).map(path) + [path("id000")]
        var expected: [DocumentSnapshot] = []
        for one in asked { if let found = try await store.getDocument(one) { expected.append(found) } }
        #expect(expected.count > 30 && expected.count < ids.count)
        #expect(try await store.getDocuments(asked) == expected)
        #expect(try await store.getDocuments(asked.reversed()) == expected.reversed())
    }

    @Test(arguments: StoreLayout.allCases)
    func aTransactionSeesAnotherStoresLatestWrite(_ layout: StoreLayout) async throws {
        let first = try env.makeStore(layout)
        let second = try env.makeStore(layout)
        try await first.setData(["count": .integer(1)], at: path("a"))
        _ = try await second.getDocument(path("a"))
        try await first.runTransaction { $0.updateData(["count": .increment(1)], at: path("a")) }
        try await second.runTransaction { $0.updateData(["count": .increment(1)], at: path("a")) }
        #expect(try await first.getDocument(path("a"))?.data["count"] == .integer(3))
    }

    // MARK: Torn lines

    private let tornBytes = Array(#"{"crc":"0badf00d","tx":{"ops":[{"op":"set","path":"things/torn""#.utf8)

    @Test func aTornLastLineIsIgnoredByAReader() async throws {
        let store = try env.makeStore()
        try await store.setData(["n": .integer(1)], at: path("a"))
        try env.append(tornBytes, to: env.journalPath)
        let damaged = try env.bytes(of: env.journalPath)

        #expect(try await store.getDocument(path("a"))?.data == ["n": .integer(1)])
        #expect(try await store.getDocument(path("torn")) == nil)
        #expect(try await store.collection("things").query.count() == 1)
        #expect(try env.bytes(of: env.journalPath) == damaged)  // A reader leaves the file alone.
        #expect(try env.files(in: env.storeDirectory).filter { $0.contains("torn") }.isEmpty)
    }

    @Test func theNextWriterMovesATornLastLineToASideFileAndKeepsEveryAcknowledgedWrite() async throws {
        let store = try env.makeStore()
        try await store.setData(["n": .integer(1)], at: path("a"))
        let acknowledged = try env.bytes(of: env.journalPath)
        try env.append(tornBytes, to: env.journalPath)
        _ = try await store.getDocument(path("a"))  // Read past the torn line first.

        try await store.setData(["n": .integer(2)], at: path("b"))

        let sideFiles = try env.files(in: env.storeDirectory).filter { $0.hasPrefix("journal.jsonl.torn-") }
        #expect(sideFiles.count == 1)
        if let side = sideFiles.first {
            #expect(try env.bytes(of: env.path("store/\(side)")) == tornBytes)
        }
        let journal = try env.bytes(of: env.journalPath)
        #expect(journal.starts(with: acknowledged))
        #expect(journal.last == 0x0A)
        #expect(journal.filter { $0 == 0x0A }.count == 3)

        let reopened = try env.makeStore()
        #expect(try await reopened.getDocument(path("a"))?.data == ["n": .integer(1)])
        #expect(try await reopened.getDocument(path("b"))?.data == ["n": .integer(2)])
        #expect(try await store.getDocument(path("b"))?.data == ["n": .integer(2)])
    }

    @Test func anotherStoreAppendingAfterATornLineKeepsTheReadersViewConsistent() async throws {
        let reader = try env.makeStore()
        let writer = try env.makeStore()
        try await writer.setData(["n": .integer(1)], at: path("a"))
        try env.append(tornBytes, to: env.journalPath)
        #expect(try await reader.getDocument(path("a"))?.data == ["n": .integer(1)])
        try await writer.setData(["n": .integer(2)], at: path("b"))
        #expect(try await reader.getDocument(path("b"))?.data == ["n": .integer(2)])
        #expect(try await reader.collection("things").query.count() == 2)
    }

    @Test func openingAStoreWithATornLastLineSetsItAsideToo() async throws {
        do {
            let store = try env.makeStore()
            try await store.setData(["n": .integer(1)], at: path("a"))
        }
        try env.append(tornBytes, to: env.journalPath)
        let store = try env.makeStore()
        #expect(try await store.getDocument(path("a"))?.data == ["n": .integer(1)])
        try await store.setData(["n": .integer(2)], at: path("b"))
        #expect(try env.files(in: env.storeDirectory).filter { $0.hasPrefix("journal.jsonl.torn-") }.count == 1)
        #expect(try await env.makeStore().collection("things").query.count() == 2)
    }

    // MARK: Damage

    /// Writes two records and changes one digit inside the second, leaving valid JSON.
    private func writeAndDamageTheSecondRecord() async throws {
        let store = try env.makeStore()
        try await store.setData(["n": .integer(11111)], at: path("a"))
        try await store.setData(["n": .integer(22222)], at: path("b"))
        var bytes = try env.bytes(of: env.journalPath)
        let digits = Array("22222".utf8)
        let start = try #require(
            bytes.indices.first { bytes[$0...].starts(with: digits) }, "the value is in the journal")
        bytes[start + 2] = UInt8(ascii: "3")
        try env.write(bytes, to: env.journalPath)
        let record = try #require(try lines(of: env.journalPath).dropFirst(2).first)
        #expect(throws: Never.self) { try JSONValue.parse(record) }  // Still valid JSON: only the checksum knows.
    }

    @Test func aChangedByteInARecordIsReportedWithTheFileAndLine() async throws {
        try await writeAndDamageTheSecondRecord()
        let error = #expect(throws: StoreError.self) { try env.makeStore() }
        let location = corruptLocation(error)
        #expect(location?.file == env.journalPath)
        #expect(location?.line == 3)
        #expect(error?.errorDescription?.contains("line 3") == true)
        #expect(error?.errorDescription?.contains(env.journalPath) == true)
    }

    @Test func aStoreAlreadyOpenReportsDamageInRecordsItHasNotReadYet() async throws {
        let reader = try env.makeStore()
        try await writeAndDamageTheSecondRecord()
        let error = await #expect(throws: StoreError.self) { try await reader.getDocument(path("a")) }
        #expect(corruptLocation(error)?.line == 3)
    }

    @Test
    func readingADamagedStoreAgainReportsTheSameLine() async throws {
        let reader = try env.makeStore()
        try await writeAndDamageTheSecondRecord()
        let first = await #expect(throws: StoreError.self) { try await reader.getDocument(path("a")) }
        let second = await #expect(throws: StoreError.self) { try await reader.getDocument(path("a")) }
        #expect(corruptLocation(first)?.line == 3)
        #expect(corruptLocation(second)?.line == 3)
    }

    @Test func aLineThatIsNotARecordIsReportedWithItsLine() async throws {
        do {
            let store = try env.makeStore()
            try await store.setData(["n": .integer(1)], at: path("a"))
        }
        try env.append(Array("{\"hello\":\"world\"}\n".utf8), to: env.journalPath)
        let error = #expect(throws: StoreError.self) { try env.makeStore() }
        #expect(corruptLocation(error)?.line == 3)
    }

    @Test func anEmptyJournalIsAClearError() throws {
        try FileManager.default.createDirectory(atPath: env.storeDirectory, withIntermediateDirectories: true)
        try env.write([], to: env.journalPath)
        let error = #expect(throws: StoreError.self) { try env.makeStore() }
        guard case .corruptRecord(let file, let line, let reason)? = error else {
            Issue.record("expected corruptRecord, got \(String(describing: error))")
            return
        }
        #expect(file == env.journalPath)
        #expect(line == 1)
        #expect(reason.contains("empty"))
        #expect(try env.bytes(of: env.journalPath).isEmpty)  // Nothing was overwritten.
    }

    @Test func aNewerFormatVersionIsRefusedByName() throws {
        try FileManager.default.createDirectory(atPath: env.storeDirectory, withIntermediateDirectories: true)
        try env.write(Array("{\"format\":\"tweetcli-store\",\"version\":99}\n".utf8), to: env.journalPath)
        #expect(throws: StoreError.unsupportedFormat(file: env.journalPath, version: "99")) { try env.makeStore() }
        let message = StoreError.unsupportedFormat(file: env.journalPath, version: "99").errorDescription ?? ""
        #expect(message.contains("99") && message.contains("cannot read"))
    }

    @Test(arguments: ["{\"format\":\"something-else\",\"version\":1}\n", "not json\n", "[1]\n"])
    func aFileThatIsNotAStoreIsRefused(_ header: String) throws {
        try FileManager.default.createDirectory(atPath: env.storeDirectory, withIntermediateDirectories: true)
        try env.write(Array(header.utf8), to: env.journalPath)
        let error = #expect(throws: StoreError.self) { try env.makeStore() }
        #expect(corruptLocation(error)?.line == 1)
    }

    @Test func aDirectoryThatCannotBeCreatedIsReported() async throws {
        try env.write([1, 2, 3], to: env.path("plain-file"))
        let store = try env.makeStore(directory: env.path("plain-file/store"))
        await #expect(throws: StoreError.self) {
            try await store.setData(["n": .integer(1)], at: DocumentPath(collection: "things", documentID: "a"))
        }
    }
}

/// Removing blobs no document names: only those put longer ago than the wait, so that a put
/// again (a post naming the blob, whose document is not written yet) keeps it; and the pieces a
/// cut-short put left.
struct BlobCollectionTests {
    @Test func aBlobPutAgainIsKeptAndAnOldOneIsRemovedWithItsLeftovers() async throws {
        let env = try TestEnvironment()
        let store = try env.makeStore()
        let bytes: [UInt8] = Array("a photo's bytes".utf8)
        let address = String(repeating: "ab", count: 32)
        try await store.putBlob(bytes, address: address)
        let file = env.storeDirectory + "/blobs/ab/" + address
        let leftover = env.storeDirectory + "/blobs/ab/." + address + ".4242.tmp"
        #expect(FileManager.default.createFile(atPath: leftover, contents: Data("half".utf8)))
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        func age(_ path: String) throws {
            try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: path)
        }
        #expect(try await store.blobAddresses() == [address])
        // Young: kept, and the leftover too.
        #expect(try await store.removeBlobs([address], putBefore: 3600) == (0, 0))
        #expect(FileManager.default.fileExists(atPath: leftover))
        // Old, then put again: kept.
        try age(file)
        try await store.putBlob(bytes, address: address)
        #expect(try await store.removeBlobs([address], putBefore: 3600) == (0, 0))
        #expect(try await store.getBlob(address) == bytes)
        // Old and not put again: removed, with the old leftover; nothing else is left behind.
        try age(file)
        try age(leftover)
        #expect(try await store.removeBlobs([address], putBefore: 3600) == (1, bytes.count))
        #expect(try await store.getBlob(address) == nil)
        #expect(try await store.blobAddresses().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: env.storeDirectory + "/blobs/ab").isEmpty)
        // Put after its removal: there again.
        try await store.putBlob(bytes, address: address)
        #expect(try await store.getBlob(address) == bytes)
    }
}
