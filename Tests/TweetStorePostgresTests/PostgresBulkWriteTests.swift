import Foundation
import Testing
import TweetTestSupport

@testable import TweetStore
@testable import TweetStorePostgres

/// The PostgreSQL engine's bulk write: produced documents and records go to a connection's
/// temporary tables a batch at a time, the server sorts the records, and `finish` commits them.
struct PostgresBulkWriteTests {
    static let indexes = [IndexDefinition("posts", ["author", "timestamp"])]

    static func post(_ number: Int) -> (DocumentPath, JSONObject) {
        (
            DocumentPath(collection: "posts", documentID: String(format: "p%05d", number)),
            ["author": .string("a\(number % 7)"), "timestamp": .integer(Int64(number))]
        )
    }

    /// More documents and records than a batch, out of order: the records come back sorted by
    /// their bytes (a shorter key first, equal keys in the order they came); the documents land,
    /// indexed, with `finish`'s write winning over a produced one; `changed` is false when nobody
    /// wrote meanwhile.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func producedAndFinishedDocumentsCommitTogether() async throws {
        let store = PostgresDocumentStore(
            location: try PostgresLocation(try PostgresCluster.freshLocation()), indexes: Self.indexes)
        let counter = DocumentPath(collection: "counters", documentID: "posts")
        try await store.setData(["count": .integer(5)], at: counter)
        let count = PostgresBulkLoad.batchRows * 2 + 17
        let numbers = (0..<count).shuffled()
        let written = try await store.bulkWrite { bulk in
            for number in numbers {
                let (path, fields) = Self.post(number)
                try bulk.setData(fields, at: path)
                // Keys of bytes that text would mangle (0, 0xFF, a backslash), equal for pairs.
                try bulk.addRecord(key: [0xFF, UInt8(number / 2 % 256), 0, 0x5C], value: [UInt8(number % 256)])
            }
            try bulk.addRecord(key: [0xFF], value: [1])
            try bulk.addRecord(key: [], value: [2])
            let records = try bulk.sortedRecords()
            var all: [(key: [UInt8], value: [UInt8])] = []
            while let record = try records.next() { all.append(record) }
            #expect(all.count == count + 2)
            #expect(all.first?.key == [] && all.first?.value == [2])
            #expect(all.dropFirst().first?.key == [0xFF])
            for (earlier, later) in zip(all, all.dropFirst()) {
                #expect(!later.key.lexicographicallyPrecedes(earlier.key))
            }
            // Equal keys keep the order they were added in.
            let firstOfEach = Dictionary(all.dropFirst(2).map { ($0.key, $0.value) }) { first, _ in first }
            let added = Dictionary(numbers.map { ([0xFF, UInt8($0 / 2 % 256), 0, 0x5C], [UInt8($0 % 256)]) }) {
                first, _ in first
            }
            #expect(firstOfEach == added)
            #expect(throws: StoreError.self) { try bulk.addRecord(key: [1], value: []) }
        } finish: { transaction, changed in
            #expect(!changed)
            let produced = try await transaction.getDocument(Self.post(10).0)
            #expect(produced == nil)
            transaction.updateData(["count": .incrementCount(Int64(count))], at: counter)
            transaction.setData(["author": .string("finish"), "timestamp": .integer(-1)], at: Self.post(10).0)
            return count
        }
        #expect(written == count)
        #expect(try await store.getDocument(counter)?.data["count"] == .integer(Int64(count + 5)))
        #expect(try await store.getDocument(Self.post(11).0)?.data == Self.post(11).1)
        #expect(try await store.getDocument(Self.post(10).0)?.data["author"] == .string("finish"))
        let byAuthor = try await store.runQuery(
            store.collection("posts").query.whereField("author", isEqualTo: .string("a3"))
                .order(by: "timestamp", descending: true))
        #expect(byAuthor.count == (0..<count).filter { $0 % 7 == 3 && $0 != 10 }.count)
        // The store's connection is its own again, and reads and writes go on.
        try await store.setData(Self.post(count).1, at: Self.post(count).0)
        #expect(try await store.count(store.collection("posts").query) == count + 1)
    }

    /// A commit by another client between the produce and the finish is reported to the finish;
    /// a path given twice (in one batch or two), an error in either step, or a finish that throws
    /// write nothing.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func aCommitMeanwhileIsReportedAndFailuresWriteNothing() async throws {
        let location = try PostgresLocation(try PostgresCluster.freshLocation())
        let store = PostgresDocumentStore(location: location, indexes: Self.indexes)
        let other = PostgresDocumentStore(location: location, indexes: Self.indexes)
        let x = DocumentPath(collection: "c", documentID: "x")
        try await store.setData(["count": .integer(1)], at: x)
        let seen = try await store.bulkWrite { bulk in
            try bulk.setData(Self.post(1).1, at: Self.post(1).0)
            try await other.setData(["count": .integer(2)], at: x)
        } finish: { transaction, changed in
            #expect(changed)
            return try await transaction.getDocument(x)?.data["count"]
        }
        #expect(seen == .integer(2))
        #expect(try await other.getDocument(Self.post(1).0) != nil)

        struct Stop: Error {}
        await #expect(throws: StoreError.duplicateDocument(path: Self.post(2).0.description)) {
            try await store.bulkWrite { bulk in
                try bulk.setData(Self.post(2).1, at: Self.post(2).0)
                try bulk.setData(Self.post(2).1, at: Self.post(2).0)
            } finish: { _, _ in
            }
        }
        await #expect(throws: StoreError.self) {
            try await store.bulkWrite { bulk in
                try bulk.setData(Self.post(3).1, at: Self.post(3).0)
                for number in 100..<(100 + PostgresBulkLoad.batchRows) {
                    try bulk.setData(Self.post(number).1, at: Self.post(number).0)
                }
                try bulk.setData(Self.post(3).1, at: Self.post(3).0)
            } finish: { _, _ in
            }
        }
        await #expect(throws: Stop.self) {
            try await store.bulkWrite { bulk in
                try bulk.setData(Self.post(4).1, at: Self.post(4).0)
                throw Stop()
            } finish: { _, _ in
            }
        }
        await #expect(throws: Stop.self) {
            try await store.bulkWrite { bulk in
                try bulk.setData(Self.post(5).1, at: Self.post(5).0)
            } finish: { transaction, _ in
                transaction.setData(Self.post(6).1, at: Self.post(6).0)
                throw Stop()
            }
        }
        for number in [2, 3, 4, 5, 6, 100] { #expect(try await store.getDocument(Self.post(number).0) == nil) }
        // Both stores write on.
        try await store.setData(Self.post(7).1, at: Self.post(7).0)
        try await other.setData(Self.post(8).1, at: Self.post(8).0)
        #expect(try await other.getDocument(Self.post(7).0) != nil)
    }

    /// An import into an empty store goes straight into its table, the indexes built at the end:
    /// a path given twice is named and a producer that fails leaves the store empty, with its
    /// primary key and indexes; one that succeeds is read through them and written on.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func anImportIntoAnEmptyStoreIsWholeOrNothing() async throws {
        let location = try PostgresLocation(try PostgresCluster.freshLocation())
        let store = PostgresDocumentStore(location: location, indexes: Self.indexes)
        let many = 0..<(PostgresBulkLoad.batchRows + 10)
        // The schema, with every index, and an empty table.
        try await store.setData(Self.post(1).1, at: Self.post(1).0)
        try await store.runTransaction { $0.deleteDocument(Self.post(1).0) }
        let raw = try PostgresConnection(location)
        let indexes =
            "SELECT string_agg(indexname, ' ' ORDER BY indexname) FROM pg_indexes "
            + "WHERE tablename = 'tweetcli_documents' AND schemaname = current_schema()"
        let kept = try raw.execute(indexes).first?.first ?? nil
        #expect(kept?.contains("pkey") == true, "\(kept ?? "")")
        await #expect(throws: StoreError.duplicateDocument(path: Self.post(3).0.description)) {
            try await store.importDocuments(requiringEmpty: "posts") { add in
                for number in many { try add(Self.post(number).0, Self.post(number).1) }
                try add(Self.post(3).0, Self.post(3).1)
            }
        }
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await store.importDocuments(requiringEmpty: "posts") { add in
                for number in many { try add(Self.post(number).0, Self.post(number).1) }
                throw Stop()
            }
        }
        #expect(try await store.getDocument(Self.post(1).0) == nil)
        let afterFailures = try raw.execute(indexes).first?.first ?? nil
        #expect(afterFailures == kept, "\(afterFailures ?? "") \(kept ?? "")")

        try await store.importDocuments(requiringEmpty: "posts") { add in
            for number in many { try add(Self.post(number).0, Self.post(number).1) }
        }
        let afterImport = try raw.execute(indexes).first?.first ?? nil
        #expect(afterImport == kept, "\(afterImport ?? "") \(kept ?? "")")
        let byAuthor = try await store.runQuery(
            store.collection("posts").whereField("author", isEqualTo: .string("a3")).order(by: "timestamp"))
        #expect(byAuthor.count == many.filter { $0 % 7 == 3 }.count)
        #expect(byAuthor.first?.path == Self.post(3).0)
        try await store.setData(["author": .string("again")], at: Self.post(3).0)
        #expect(try await store.getDocument(Self.post(3).0)?.data == ["author": .string("again")])
        await #expect(throws: StoreError.notEmpty(collection: "posts")) {
            try await store.importDocuments(requiringEmpty: "posts") { add in try add(Self.post(1).0, Self.post(1).1) }
        }
    }
}
