import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// The log-structured engine against a plain dictionary model: whatever mix of writes, folds and
/// merges happened, every lookup and query answers as the model does.
struct StorageEngineTests {
    /// A temporary directory removed at the end of the test.
    final class Directory {
        let path: String

        init() {
            path = (NSTemporaryDirectory() as NSString).appendingPathComponent("engine-\(UUID().uuidString)")
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func files() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        }
    }

    static let indexes = [
        IndexDefinition("posts", ["timestamp"]),
        IndexDefinition("posts", ["author", "timestamp"]),
        IndexDefinition("likes", ["at"]),
        IndexDefinition("likes", ["post"], scope: .collectionGroup),
    ]

    /// Applies `count` random writes to `store` and to `model`, in transactions of one to three writes.
    static func randomWrites(
        _ count: Int, store: LocalDocumentStore, model: inout [DocumentPath: JSONObject], random: inout SplitMix64
    ) async throws {
        for step in 0..<count {
            var writes: [(DocumentPath, JSONObject?)] = []
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let kind = random.next() % 10
                if kind < 6 {
                    let path = DocumentPath(collection: "posts", documentID: "p\(random.next() % 60)")
                    writes.append(
                        (
                            path,
                            [
                                "author": .string("a\(random.next() % 5)"),
                                "timestamp": .integer(Int64(random.next() % 40)),
                                "text": .string("step \(step)"),
                            ]
                        ))
                } else if kind < 8 {
                    let path = DocumentPath(
                        collection: "users/a\(random.next() % 5)/likes", documentID: "p\(random.next() % 60)")
                    writes.append((path, ["at": .integer(Int64(step)), "post": .string(path.documentID)]))
                } else {
                    let collection = kind == 8 ? "posts" : "users/a\(random.next() % 5)/likes"
                    writes.append((DocumentPath(collection: collection, documentID: "p\(random.next() % 60)"), nil))
                }
            }
            let batch = writes
            try await store.runTransaction { transaction in
                for (path, fields) in batch {
                    if let fields { transaction.setData(fields, at: path) } else { transaction.deleteDocument(path) }
                }
            }
            for (path, fields) in writes { model[path] = fields }
        }
    }

    /// Checks lookups and a set of queries against the model.
    static func expectMatches(_ store: LocalDocumentStore, _ model: [DocumentPath: JSONObject]) async throws {
        for (path, fields) in model {
            #expect(try await store.getDocument(path)?.data == fields, "\(path)")
        }
        let missing = DocumentPath(collection: "posts", documentID: "never")
        #expect(try await store.getDocument(missing) == nil)

        func expected(_ query: Query) -> [String] {
            let snapshots = model.map { DocumentSnapshot(path: $0.key, data: $0.value) }.filter { snapshot in
                switch query.scope {
                case .collection(let path): return snapshot.path.collection == path
                case .collectionGroup(let id): return snapshot.path.collectionID == id
                }
            }
            return query.select(from: snapshots).map(\.path.description)
        }
        let posts = store.collection("posts")
        var queries: [Query] = [
            posts.order(by: "timestamp", descending: true).limit(to: 7),
            posts.order(by: "timestamp").limit(to: 5),
            posts.query,
            posts.whereField("author", in: [.string("a1"), .string("a3")]).order(by: "timestamp", descending: true)
                .limit(to: 6),
            store.collectionGroup("likes").whereField("post", isEqualTo: .string("p7")),
            // More values than the planner reads as ranges: a scan with the `in` checked on raw lines.
            posts.whereField("author", in: (0..<20).map { .string("a\($0 % 2 == 0 ? $0 / 2 : 100 + $0)") })
                .order(by: "timestamp", descending: true).limit(to: 9),
        ]
        for author in 0..<5 {
            queries.append(
                posts.whereField("author", isEqualTo: .string("a\(author)")).order(by: "timestamp", descending: true)
                    .limit(to: 4))
            queries.append(store.collection("users/a\(author)/likes").order(by: "at", descending: true).limit(to: 5))
        }
        for query in queries {
            let actual = try await store.runQuery(query).map(\.path.description)
            #expect(actual == expected(query))
            #expect(try await store.count(query) == expected(query).count)
        }
        // Paging with start(after:) visits every post exactly once, in order.
        let all = expected(posts.order(by: "timestamp", descending: true))
        var paged: [String] = []
        var page = try await store.runQuery(posts.order(by: "timestamp", descending: true).limit(to: 4))
        while !page.isEmpty {
            paged += page.map(\.path.description)
            page = try await store.runQuery(
                posts.order(by: "timestamp", descending: true).limit(to: 4).start(after: page.last!))
        }
        #expect(paged == all)
    }

    @Test(arguments: [true, false])
    func writesFoldsAndMergesAnswerLikeTheModel(withIndexes: Bool) async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(
            directory: directory.path, indexes: withIndexes ? Self.indexes : [], foldThreshold: 5)
        var model: [DocumentPath: JSONObject] = [:]
        var random = SplitMix64(seed: withIndexes ? 11 : 12)
        for _ in 0..<6 {
            try await Self.randomWrites(40, store: store, model: &model, random: &random)
            try await Self.expectMatches(store, model)
        }
        // Folds made segments and merges kept their number small.
        let segments = directory.files().filter { $0.hasSuffix(".jsonl") && $0.hasPrefix("seg-") }
        #expect(!segments.isEmpty)
        #expect(segments.count <= 8)
        // A new process (a new store object) reads the same.
        let reopened = try LocalDocumentStore(
            directory: directory.path, indexes: withIndexes ? Self.indexes : [], foldThreshold: 5)
        try await Self.expectMatches(reopened, model)
    }

    @Test func twoStoresOnOneDirectorySeeEachOthersFoldsAndMerges() async throws {
        let directory = Directory()
        let first = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 3)
        let second = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 3)
        var model: [DocumentPath: JSONObject] = [:]
        var random = SplitMix64(seed: 99)
        for round in 0..<8 {
            try await Self.randomWrites(7, store: round % 2 == 0 ? first : second, model: &model, random: &random)
            try await Self.expectMatches(round % 2 == 0 ? second : first, model)
        }
    }

    /// The streaming import (the seed's, and `import FILE`'s) makes its records on another thread
    /// a batch at a time: over several batches every document lands, in the same segment as a
    /// one-shot import writes; a path given twice, in batches apart, is refused; and a producer
    /// that fails leaves no store.
    @Test func aStreamingImportOfManyBatchesWritesWhatAOneShotImportWrites() async throws {
        var random = SplitMix64(seed: 9)
        var documents: [(DocumentPath, JSONObject)] = []
        for number in 0..<5000 {
            let collection = ["posts", "likes", "users/u\(number % 5)/likes"][Int(random.next() % 3)]
            documents.append(
                (
                    DocumentPath(collection: collection, documentID: "d\(random.next() % 1_000_000)-\(number)"),
                    [
                        "author": .string("a\(random.next() % 9)"), "timestamp": .integer(Int64(random.next() % 500)),
                        "at": .integer(Int64(number)), "post": .string("p\(random.next() % 40)"),
                    ]
                ))
        }
        let (streamed, oneShot) = (Directory(), Directory())
        let streaming = try LocalDocumentStore(directory: streamed.path, indexes: Self.indexes)
        let batch = documents
        try await streaming.importDocuments(requiringEmpty: nil) { add in
            for (path, fields) in batch { try add(path, fields) }
        }
        let whole = try LocalDocumentStore(directory: oneShot.path, indexes: Self.indexes)
        try await whole.importDocuments(documents, requiringEmpty: nil)
        for file in ["seg-000001.jsonl", "seg-000001.idx"] {
            let first = try Data(contentsOf: URL(fileURLWithPath: streamed.path).appendingPathComponent(file))
            let second = try Data(contentsOf: URL(fileURLWithPath: oneShot.path).appendingPathComponent(file))
            #expect(first == second, "\(file)")
        }
        for (path, fields) in documents.prefix(200) {
            #expect(try await streaming.getDocument(path)?.data == fields)
        }

        let repeated = Directory()
        let twice = try LocalDocumentStore(directory: repeated.path, indexes: Self.indexes)
        await #expect(throws: StoreError.self) {
            try await twice.importDocuments(requiringEmpty: nil) { add in
                for (path, fields) in batch { try add(path, fields) }
                try add(batch[10].0, batch[10].1)
            }
        }
        struct Stop: Error {}
        let failed = Directory()
        let failing = try LocalDocumentStore(directory: failed.path, indexes: Self.indexes)
        await #expect(throws: Stop.self) {
            try await failing.importDocuments(requiringEmpty: nil) { add in
                for (path, fields) in batch.prefix(4500) { try add(path, fields) }
                throw Stop()
            }
        }
        #expect(!FileManager.default.fileExists(atPath: failed.path), "\(failed.files())")
    }

    @Test func importedDocumentsAreNewerThanEverythingBefore() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 100)
        let path = DocumentPath(collection: "posts", documentID: "p1")
        try await store.setData(["author": .string("a1"), "timestamp": .integer(1)], at: path)
        try await store.importDocuments([
            (path, ["author": .string("a2"), "timestamp": .integer(2)]),
            (DocumentPath(collection: "posts", documentID: "p2"), ["author": .string("a2"), "timestamp": .integer(3)]),
        ])
        #expect(try await store.getDocument(path)?.data["author"] == .string("a2"))
        let byAuthor = try await store.runQuery(
            store.collection("posts").whereField("author", isEqualTo: .string("a1")))
        #expect(byAuthor.isEmpty)
        let journal = try String(
            contentsOfFile: (directory.path as NSString).appendingPathComponent("journal.jsonl"), encoding: .utf8)
        #expect(journal.split(separator: "\n").count == 1, "the fold emptied the journal")
    }

    @Test func aFoldThatCrashedAfterItsManifestDoesNotReplayTheJournalTwice() async throws {
        let directory = Directory()
        let journal = (directory.path as NSString).appendingPathComponent("journal.jsonl")
        let store = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 2)
        let path = DocumentPath(collection: "posts", documentID: "counter")
        try await store.setData(["n": .integer(0)], at: path)
        let saved = try Data(contentsOf: URL(fileURLWithPath: journal))
        // The second transaction folds; put the journal back as if the crash came before its replacement.
        try await store.runTransaction { $0.updateData(["n": .increment(1)], at: path) }
        var damaged = saved
        let record = JournalRecord(sequence: 2, time: Date(), operations: [.set(path, ["n": .integer(1)])]).line()
        damaged.append(contentsOf: record)
        try damaged.write(to: URL(fileURLWithPath: journal))
        let reopened = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 2)
        #expect(try await reopened.getDocument(path)?.data["n"] == .integer(1))
        try await reopened.runTransaction { $0.updateData(["n": .increment(1)], at: path) }
        #expect(try await reopened.getDocument(path)?.data["n"] == .integer(2))
    }

    @Test func aDamagedSegmentLineIsAnErrorNamingTheFileAndLine() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 100)
        try await store.importDocuments(
            (0..<10).map {
                (
                    DocumentPath(collection: "posts", documentID: "p\($0)"),
                    ["author": .string("a"), "timestamp": .integer(Int64($0))]
                )
            })
        let segment = (directory.path as NSString).appendingPathComponent("seg-000001.jsonl")
        var text = try String(contentsOfFile: segment, encoding: .utf8)
        // Change a digit inside line 4 (p2's timestamp): still valid JSON, caught by the checksum.
        let range = try #require(text.range(of: "\"timestamp\":2}"))
        text.replaceSubrange(range, with: "\"timestamp\":9}")
        try text.write(toFile: segment, atomically: false, encoding: .utf8)
        let reopened = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes)
        await #expect(throws: StoreError.corruptRecord(file: segment, line: 4, reason: "checksum mismatch")) {
            _ = try await reopened.getDocument(DocumentPath(collection: "posts", documentID: "p2"))
        }
    }

    @Test func textSearchFindsEveryMatchWhetherInTheJournalOrInASegment() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 100)
        let people: [(String, String)] = [
            ("ada", "Ada Lovelace"), ("grace", "Grace HOPPER"), ("kelvin", "\u{212A}elvin"), ("sao", "São Paulo Dev"),
            ("bob", "Bob Builder"),
        ]
        try await store.importDocuments(
            people.prefix(3).map {
                (
                    DocumentPath(collection: "people", documentID: $0.0),
                    ["username": .string($0.0), "fullname": .string($0.1)]
                )
            })
        for (username, fullname) in people.suffix(2) {
            try await store.setData(
                ["username": .string(username), "fullname": .string(fullname)],
                at: DocumentPath(collection: "people", documentID: username))
        }
        func search(_ text: String) async throws -> [String] {
            try await store.runQuery(
                store.collection("people").query.whereAny(["username", "fullname"], containsText: text)
            )
            .map(\.documentID).sorted()
        }
        #expect(try await search("hopper") == ["grace"])
        #expect(try await search("LOVE") == ["ada"])
        #expect(try await search("são") == ["sao"])
        #expect(try await search("builder") == ["bob"])
        #expect(try await search("e") == ["ada", "bob", "grace", "kelvin", "sao"])
        #expect(try await search("kelvin") == ["kelvin"])
        #expect(try await search("zzz").isEmpty)
    }

    /// Explore's query: a text search in username order with a limit reads the username index
    /// and stops once the page is full; it gives what filtering and sorting everyone gives.
    @Test func anOrderedTextSearchWithALimitGivesTheFirstMatchesInOrder() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(
            directory: directory.path, indexes: Self.indexes + [IndexDefinition("people", ["username"])],
            foldThreshold: 100)
        var random = SplitMix64(seed: 11)
        let parts = ["ada", "Ada", "ADA", "bob", "é", "e\u{301}", "zoë", "Da", "x", "\r\n", " ", "\u{212A}", "K"]
        var people: [(String, String)] = []
        for number in 0..<300 {
            let username = "\(parts[Int(random.next() % 4)].lowercased())\(number)"
            let fullname = (0..<3).map { _ in parts[Int(random.next() % UInt64(parts.count))] }.joined()
            people.append((username, fullname))
        }
        try await store.importDocuments(
            people.prefix(250).map {
                (
                    DocumentPath(collection: "people", documentID: "p\($0.0)"),
                    ["username": .string($0.0), "fullname": .string($0.1)]
                )
            })
        for (username, fullname) in people.suffix(50) {
            try await store.setData(
                ["username": .string(username), "fullname": .string(fullname)],
                at: DocumentPath(collection: "people", documentID: "p\(username)"))
        }
        for text in ["ada", "da", "é", "zoë", "bob1", "nobody", "k", "xk"] {
            // The standard library's character-wise search (see the test below).
            let everyMatch = people.filter {
                $0.0.lowercased().firstRange(of: text) != nil || $0.1.lowercased().firstRange(of: text) != nil
            }
            .map(\.0).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for limit in [1, 5, 21, 1000] {
                let found = try await store.runQuery(
                    store.collection("people").order(by: "username")
                        .whereAny(["username", "fullname"], containsText: text).limit(to: limit)
                ).map { $0.data["username"]?.stringValue ?? "" }
                #expect(found == Array(everyMatch.prefix(limit)), "\(text) limit \(limit)")
            }
        }
    }

    /// The text search's byte comparison answers as the standard library's character-wise search
    /// does (`firstRange(of:)`, behind the `contains` TweetStore calls; this file imports
    /// Foundation, whose `contains` is another search), whatever the text.
    @Test func textSearchContainsAgreesWithTheStandardLibrary() {
        var random = SplitMix64(seed: 5)
        let parts = ["a", "b", "ab", "\r", "\n", "\r\n", "é", "e", "\u{301}", "ß", "ss", " ", "🇸🇪", "🇸"]
        func text(_ count: Int) -> String {
            (0..<count).map { _ in parts[Int(random.next() % UInt64(parts.count))] }.joined()
        }
        for _ in 0..<5000 {
            let (haystack, needle) = (text(Int(random.next() % 8)), text(1 + Int(random.next() % 3)))
            #expect(
                Query.TextSearch.contains(haystack, needle) == (haystack.firstRange(of: needle) != nil),
                "\(haystack.debugDescription) \(needle.debugDescription)")
        }
    }

    @Test func segmentsWrittenBeforeAnIndexExistedStillAnswerCorrectly() async throws {
        let directory = Directory()
        let plain = try LocalDocumentStore(directory: directory.path, indexes: [], foldThreshold: 1)
        for (id, author, time) in [("p1", "a", 1), ("p2", "b", 2), ("p3", "a", 3), ("p4", "b", 4)] {
            try await plain.setData(
                ["author": .string(author), "timestamp": .integer(Int64(time))],
                at: DocumentPath(collection: "posts", documentID: id))
        }
        let indexed = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 1)
        try await indexed.setData(
            ["author": .string("a"), "timestamp": .integer(5)], at: DocumentPath(collection: "posts", documentID: "p5"))
        let query = indexed.collection("posts").whereField("author", isEqualTo: .string("a")).order(
            by: "timestamp", descending: true)
        #expect(try await indexed.runQuery(query).map(\.documentID) == ["p5", "p3", "p1"])
        #expect(try await indexed.runQuery(query.limit(to: 2)).map(\.documentID) == ["p5", "p3"])
    }

    @Test func aLostManifestIsAnErrorNotAnEmptyStore() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 1)
        try await store.setData(["n": .integer(1)], at: DocumentPath(collection: "posts", documentID: "p1"))
        try FileManager.default.removeItem(atPath: (directory.path as NSString).appendingPathComponent("MANIFEST.json"))
        #expect(throws: StoreError.self) { try LocalDocumentStore(directory: directory.path, indexes: Self.indexes) }
        #expect(try StoreDoctor(directory: directory.path, indexes: Self.indexes).check().contains { !$0.isRepairable })
        #expect(directory.files().contains("seg-000001.jsonl"))
    }

    @Test func aDamagedIndexIsFoundAndRebuiltByTheDoctor() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 100)
        try await store.importDocuments(
            (0..<50).map {
                (
                    DocumentPath(collection: "posts", documentID: "p\($0)"),
                    ["author": .string("a"), "timestamp": .integer(Int64($0))]
                )
            })
        // Zero the Bloom filter: lookups would miss every document.
        let indexPath = (directory.path as NSString).appendingPathComponent("seg-000001.idx")
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: indexPath)))
        let bloomWords = Int(bytes[24..<32].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        // After the filter: the collection directory, then each index's entries, 8 bytes each.
        let collections = IndexFileBytes.directory(in: bytes).whole
        let bloomStart = collections.lowerBound - 8 * bloomWords
        #expect(
            bytes.count - collections.upperBound == 50 * 8 * Self.indexes.filter { $0.collectionID == "posts" }.count)
        for offset in bloomStart..<(bloomStart + 8 * bloomWords) { bytes[offset] = 0 }
        try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
        let doctor = StoreDoctor(directory: directory.path, indexes: Self.indexes)
        #expect(try doctor.check().map(\.reason) == ["the index does not match its segment"])
        let report = try doctor.repair()
        #expect(report.repaired.count == 1 && report.unrepaired.isEmpty)
        #expect(try doctor.check().isEmpty)
        let reopened = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes)
        #expect(
            try await reopened.getDocument(DocumentPath(collection: "posts", documentID: "p7"))?.data["timestamp"]
                == .integer(7))
    }

    @Test func aDamagedSegmentHeaderLineIsMovedAsideNotDropped() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 100)
        try await store.importDocuments(
            (0..<5).map {
                (
                    DocumentPath(collection: "posts", documentID: "p\($0)"),
                    ["author": .string("a"), "timestamp": .integer(Int64($0))]
                )
            })
        let segment = (directory.path as NSString).appendingPathComponent("seg-000001.jsonl")
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: segment)))
        bytes[bytes.firstIndex(of: 0x0A)!] = UInt8(ascii: " ")  // the header's newline
        try Data(bytes).write(to: URL(fileURLWithPath: segment))
        let report = try StoreDoctor(directory: directory.path, indexes: Self.indexes).repair()
        #expect(report.sideFiles.count == 1)
        let aside = try String(contentsOfFile: report.sideFiles[0], encoding: .utf8)
        #expect(aside.contains("posts/p0"), "the document merged with the header is kept aside")
        let reopened = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes)
        #expect(try await reopened.runQuery(reopened.collection("posts").query).count == 4)
    }

    @Test func aFoldThatFailsDoesNotFailTheCommittedTransaction() async throws {
        let directory = Directory()
        let store = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 2)
        try await store.setData(["n": .integer(1)], at: DocumentPath(collection: "posts", documentID: "a"))
        try await store.setData(["n": .integer(2)], at: DocumentPath(collection: "posts", documentID: "b"))  // folds
        // A directory where the next segment's file would go makes the next fold fail.
        let blocker = (directory.path as NSString).appendingPathComponent("seg-000002.jsonl")
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: false)
        try await store.setData(["n": .integer(3)], at: DocumentPath(collection: "posts", documentID: "c"))
        // This one's fold fails.
        try await store.setData(["n": .integer(4)], at: DocumentPath(collection: "posts", documentID: "d"))
        #expect(
            try await store.getDocument(DocumentPath(collection: "posts", documentID: "d"))?.data["n"] == .integer(4))
        try FileManager.default.removeItem(atPath: blocker)
        let reopened = try LocalDocumentStore(directory: directory.path, indexes: Self.indexes, foldThreshold: 2)
        #expect(try await reopened.runQuery(reopened.collection("posts").query).count == 4)
    }

    @Test(arguments: [1, 100])
    func aPresenceIndexServesNullTestsExactly(foldThreshold: Int) async throws {
        let directory = Directory()
        let index = IndexDefinition("posts", ["author", "reply?", "timestamp"])
        let store = try LocalDocumentStore(directory: directory.path, indexes: [index], foldThreshold: foldThreshold)
        var model: [DocumentSnapshot] = []
        for number in 0..<30 {
            var fields: JSONObject = [
                "author": .string(number % 3 == 0 ? "a" : "b"), "timestamp": .integer(Int64(number)),
            ]
            switch number % 4 {
            case 0: fields["reply"] = .null
            case 1: fields["reply"] = .string("p\(number - 1)")
            case 2: break  // no field at all
            default: fields["reply"] = .string("")
            }
            let path = DocumentPath(collection: "posts", documentID: "p\(number)")
            try await store.setData(fields, at: path)
            model.append(DocumentSnapshot(path: path, data: fields))
        }
        let posts = store.collection("posts")
        for query in [
            posts.whereField("author", isEqualTo: .string("a")).whereField("reply", isNotEqualTo: .null)
                .order(by: "timestamp", descending: true),
            posts.whereField("author", isEqualTo: .string("a")).whereField("reply", isEqualTo: .null)
                .order(by: "timestamp", descending: true),
            posts.whereField("author", isEqualTo: .string("b")).whereField("reply", isNotEqualTo: .null)
                .order(by: "timestamp").limit(to: 3),
        ] {
            #expect(try await store.runQuery(query).map(\.documentID) == query.select(from: model).map(\.documentID))
        }
    }
}
