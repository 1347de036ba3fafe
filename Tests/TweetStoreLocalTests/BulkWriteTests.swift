import Foundation
import Testing

@testable import TweetStore
@testable import TweetStoreLocal

/// The local engine's bulk write: produced documents sorted on disk and written with no lock
/// held, then `finish` under the lock, committed together.
struct BulkWriteTests {
    typealias Directory = StorageEngineTests.Directory

    static func post(_ number: Int) -> (DocumentPath, JSONObject) {
        (
            DocumentPath(collection: "posts", documentID: String(format: "p%05d", number)),
            ["author": .string("a\(number % 7)"), "timestamp": .integer(Int64(number))]
        )
    }

    /// Thousands of documents given out of order, records sorted aside, and a finish that reads
    /// and writes: everything lands, indexed; of a path both write, finish's wins; nothing is
    /// left in the directory but the store's files.
    @Test func producedAndFinishedDocumentsCommitTogether() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(
            directory: directory.path, indexes: StorageEngineTests.indexes, foldThreshold: 1000)
        let counter = DocumentPath(collection: "counters", documentID: "posts")
        try await store.setData(["count": .integer(5)], at: counter)
        let numbers = (0..<6000).shuffled()
        let sortedAside = try await store.bulkWrite { bulk in
            for number in numbers {
                let (path, fields) = Self.post(number)
                try bulk.setData(fields, at: path)
                try bulk.addRecord(key: Array(String(format: "%05d", 6000 - number).utf8), value: [UInt8(number % 256)])
            }
            let records = try bulk.sortedRecords()
            var previous: [UInt8] = []
            var count = 0
            while let (key, _) = try records.next() {
                #expect(previous.lexicographicallyPrecedes(key))
                previous = key
                count += 1
            }
            #expect(count == 6000)
        } finish: { transaction, changed in
            #expect(!changed)
            // The produced documents are not visible here; the store's are.
            let produced = try await transaction.getDocument(Self.post(10).0)
            #expect(produced == nil)
            transaction.updateData(["count": .incrementCount(6000)], at: counter)
            transaction.setData(["author": .string("finish"), "timestamp": .integer(-1)], at: Self.post(10).0)
            return 6000
        }
        #expect(sortedAside == 6000)
        #expect(try await store.getDocument(counter)?.data["count"] == .integer(6005))
        #expect(try await store.getDocument(Self.post(11).0)?.data == Self.post(11).1)
        #expect(try await store.getDocument(Self.post(10).0)?.data["author"] == .string("finish"))
        let byAuthor = try await store.runQuery(
            store.collection("posts").query.whereField("author", isEqualTo: .string("a3"))
                .order(by: "timestamp", descending: true))
        #expect(byAuthor.count == (0..<6000).filter { $0 % 7 == 3 && $0 != 10 }.count)
        #expect(byAuthor.first?.data["timestamp"] == .integer(5995))
        #expect(directory.files().allSatisfy { !$0.hasPrefix("import-") }, "\(directory.files())")
        // The next writes go on from it, and another process sees it all.
        try await store.setData(["author": .string("a1"), "timestamp": .integer(7000)], at: Self.post(7000).0)
        let other = try LocalDocumentStore(directory: directory.path, indexes: StorageEngineTests.indexes)
        #expect(try await other.count(other.collection("posts").query) == 6001)
    }

    /// A commit by another process between the produce and the finish is reported to the finish,
    /// which sees it; a duplicate path, an error in either step, or a finish that throws write
    /// nothing and leave no files behind.
    @Test func aCommitMeanwhileIsReportedAndFailuresWriteNothing() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: StorageEngineTests.indexes)
        let other = try LocalDocumentStore(directory: directory.path, indexes: StorageEngineTests.indexes)
        try await store.setData(["count": .integer(1)], at: DocumentPath(collection: "c", documentID: "x"))
        let seen = try await store.bulkWrite { bulk in
            try bulk.setData(Self.post(1).1, at: Self.post(1).0)
            try await other.setData(["count": .integer(2)], at: DocumentPath(collection: "c", documentID: "x"))
        } finish: { transaction, changed in
            #expect(changed)
            return try await transaction.getDocument(DocumentPath(collection: "c", documentID: "x"))?.data["count"]
        }
        #expect(seen == .integer(2))
        #expect(try await other.getDocument(Self.post(1).0) != nil)

        struct Stop: Error {}
        let before = directory.files()
        await #expect(throws: StoreError.self) {
            try await store.bulkWrite { bulk in
                try bulk.setData(Self.post(2).1, at: Self.post(2).0)
                try bulk.setData(Self.post(2).1, at: Self.post(2).0)
            } finish: { _, _ in
            }
        }
        await #expect(throws: Stop.self) {
            try await store.bulkWrite { bulk in
                try bulk.setData(Self.post(3).1, at: Self.post(3).0)
            } finish: { transaction, _ in
                transaction.setData(Self.post(4).1, at: Self.post(4).0)
                throw Stop()
            }
        }
        for number in 2...4 { #expect(try await store.getDocument(Self.post(number).0) == nil) }
        #expect(directory.files() == before)
        // The lock was given back: others write on.
        try await other.setData(Self.post(5).1, at: Self.post(5).0)
    }

    /// What a bulk write killed before its commit left (its output files) is removed by the next.
    @Test func anAbandonedOutputIsRemovedByTheNextBulkWrite() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: StorageEngineTests.indexes)
        try await store.setData(Self.post(1).1, at: Self.post(1).0)
        for file in ["import-999999.jsonl", "import-999999.idx"] {
            #expect(FileManager.default.createFile(atPath: directory.path + "/" + file, contents: Data("partial".utf8)))
        }
        try await store.bulkWrite { bulk in
            try bulk.setData(Self.post(2).1, at: Self.post(2).0)
        } finish: { _, _ in
        }
        #expect(directory.files().allSatisfy { !$0.hasPrefix("import-") }, "\(directory.files())")
        #expect(try await store.getDocument(Self.post(2).0)?.data == Self.post(2).1)
    }

    /// Two bulk writes at once: the second waits as long as for the store's lock, then says that
    /// another import has the store, and writes nothing.
    @Test func aSecondBulkWriteWaitsThenSaysAnotherImportHasTheStore() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: StorageEngineTests.indexes)
        let other = try LocalDocumentStore(directory: directory.path, indexes: StorageEngineTests.indexes)
        try await store.setData(Self.post(1).1, at: Self.post(1).0)
        let started = Date()
        await #expect(throws: StoreError.busy(path: directory.path, holder: "another import")) {
            try await store.bulkWrite { bulk in
                try bulk.setData(Self.post(2).1, at: Self.post(2).0)
                try await other.bulkWrite { inner in
                    try inner.setData(Self.post(3).1, at: Self.post(3).0)
                } finish: { _, _ in
                }
            } finish: { _, _ in
            }
        }
        #expect(Date().timeIntervalSince(started) >= StoreError.busyAfter - 0.1)
        for number in 2...3 { #expect(try await other.getDocument(Self.post(number).0) == nil) }
    }
}
