import FoundationEssentials

/// A Firestore-shaped document database: collections of JSON documents, queries, transactions.
///
/// The protocol is asynchronous and says nothing about files, so a server engine can implement
/// it later; ``LocalDocumentStore`` is the engine that keeps documents in a local directory.
public protocol DocumentStore: Sendable {
    /// The document at `path`, or `nil` when there is none.
    func getDocument(_ path: DocumentPath) async throws -> DocumentSnapshot?

    /// Several documents in one read, in the order of `paths` (a path asked twice comes twice);
    /// paths with no document are left out of the result.
    func getDocuments(_ paths: [DocumentPath]) async throws -> [DocumentSnapshot]

    /// The documents a query selects, in the query's order and within its limit.
    func runQuery(_ query: Query) async throws -> [DocumentSnapshot]

    /// How many documents a query selects (its limit and cursor apply).
    func count(_ query: Query) async throws -> Int

    /// The documents of several queries that order by the same fields in the same directions,
    /// merged in that order (at equal values, or when they order by nothing, the earlier query's
    /// first; then in each query's own order), at most `limit` in all, each with the position of
    /// its query: a timeline of tweets and retweets. The first query's orders are the ones
    /// compared. Each query's own limit and cursor apply. An engine that reads its queries side by
    /// side reads each only as far as the merge takes it; the default runs each within `limit`.
    func runMergedQuery(_ queries: [Query], limit: Int) async throws -> [(query: Int, snapshot: DocumentSnapshot)]

    /// For each of `prefixes`, the IDs of the documents of `collection` that start with it, in
    /// byte order, at most `limit` of them: short IDs, resolved and shown as git's short hashes
    /// are. Each is one range of the collection's IDs; the default runs a query for each.
    func documentIDs(in collection: String, startingWith prefixes: [String], limit: Int) async throws -> [[String]]

    /// For each of `ids`, how many of its first bytes (at least `minimum`, at most all of them)
    /// no other document ID of `collection` starts with: the length of its short form, as git
    /// abbreviates a hash. Deleted documents do not count. Each ID must name a document the caller
    /// has read (an engine may count on it being there); for any other, the length may be too
    /// short. The default reads each start's run of IDs with
    /// ``documentIDs(in:startingWith:limit:)``.
    func uniquePrefixLengths(in collection: String, of ids: [String], minimum: Int) async throws -> [Int]

    /// Whether each read is a round trip to a server, so that reading a few more documents with one
    /// already asked for is cheaper than reading them later; `false` for a store on this machine.
    var readsAreRoundTrips: Bool { get }

    /// How many writes this store object has begun, so that what a service read before can be
    /// known to be as the store still is (no write of this process since); `nil` for an engine
    /// that does not count them, whose earlier reads are never taken as current.
    var writesBegun: Int? { get }

    /// Says that `query` is likely the next one run, before a read it does not depend on (a
    /// listing's page before the session check): a server engine sends it in that read's round
    /// trip and answers ``runQuery(_:)`` of the same query from it, once and for a moment; a
    /// write in between forgets it. The default does nothing.
    func prefetch(_ query: Query) async

    /// ``prefetch(_:)`` for the documents at `paths`: ``getDocuments(_:)`` of the same paths, or
    /// ``getDocument(_:)`` of the one path, is answered from it. The default does nothing.
    func prefetch(documentsAt paths: [DocumentPath]) async

    /// ``prefetch(_:)`` for ``runMergedQuery(_:limit:)`` of the same queries and limit.
    func prefetch(mergedQuery queries: [Query], limit: Int) async

    /// The documents of `query`, and the documents of `collection` they name: by their own IDs
    /// (`field` `nil`: a page of bookmarks and the tweets they mark), or by the string in their
    /// top-level `field` (notifications and their tweets), which the query must select. One that does not
    /// exist is left out. A server engine reads both in one round trip; the default reads the
    /// query, then the documents it names.
    func runQuery(_ query: Query, withDocumentsIn collection: String, namedBy field: String?) async throws -> (
        documents: [DocumentSnapshot], named: [DocumentSnapshot]
    )

    /// ``prefetch(_:)`` for ``runQuery(_:withDocumentsIn:namedBy:)`` of the same arguments.
    func prefetch(_ query: Query, withDocumentsIn collection: String, namedBy field: String?) async

    /// The prefetches `reads` asks, given a stand-in for the ID of the first document of
    /// `lookup` (an account found by its username), which the caller asked ahead just before
    /// (``prefetch(_:)``): a server engine finds that ID on the server and sends them in the same
    /// round trip, and answers each as if asked with the ID. The default does nothing.
    func prefetch(dependingOnFirstIDOf lookup: Query, _ reads: @Sendable (String) async -> Void) async

    /// The prefetches `reads` asks, given a stand-in to use as one value of a list (`field in
    /// [values]`) for the strings of the array `field` of the document at `path` (whom an account
    /// follows): a server engine fills the list in on the server, in the next read's round trip,
    /// and answers each for the list it used, if the one asked later is the same. The default
    /// does nothing.
    func prefetch(dependingOnList field: String, at path: DocumentPath, _ reads: @Sendable (String) async -> Void)
        async

    /// ``prefetch(documentsAt:)`` of the documents of `collection` that the last `count` strings
    /// of the array `field` (top-level) across `query`'s rows name, the rows in order and each
    /// one's array from its end (a posting list's newest entries), asked before `query`'s answer
    /// is known: a server engine finds them on the server, in one round trip, for the
    /// ``getDocuments(_:)`` of those paths in that order. The default does nothing.
    func prefetch(documentsIn collection: String, namedByLast count: Int, of field: String, across query: Query)
        async

    /// ``getDocuments(_:)`` and ``uniquePrefixLengths(in:of:minimum:)`` at once: a page's
    /// documents and the short forms of the IDs it shows. A server engine asks both in one round
    /// trip; the default asks one, then the other.
    func getDocuments(_ paths: [DocumentPath], uniquePrefixLengthsIn collection: String, of ids: [String], minimum: Int)
        async throws -> (documents: [DocumentSnapshot], lengths: [Int])

    /// Runs `body`, then commits its writes atomically: all of them or, when `body` throws, none.
    /// Its reads see one consistent state that no other writer changes before the commit: the
    /// local engine locks the store for the whole body; a server engine may instead run the body
    /// again after a conflict, so `body` must have no effect but its transaction's writes. Inside
    /// `body`, read through the transaction, never through the store.
    func runTransaction<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T

    /// Writes many documents at once, atomically; for bulk data such as a demo store.
    /// - Parameter collection: when given, the import happens only if this collection is empty at
    ///   that moment (checked under the same lock), else it fails with ``StoreError/notEmpty(collection:)``.
    func importDocuments(_ documents: [(DocumentPath, JSONObject)], requiringEmpty collection: String?) async throws

    /// ``importDocuments(_:requiringEmpty:)`` for more documents than memory should hold: `produce`
    /// hands them to its argument one at a time, and the engine keeps no more of them than it must
    /// (the local engine sorts them on disk). A path given twice is
    /// ``StoreError/duplicateDocument(path:)``, and then nothing is written.
    func importDocuments(
        requiringEmpty collection: String?,
        from produce: sending (_ add: (DocumentPath, JSONObject) throws -> Void) async throws -> Void
    ) async throws

    /// A write too large for a transaction's memory (a Twitter archive of a million tweets), in two
    /// steps committed atomically together. `produce` runs first, without holding the store: it
    /// may read the store, and hands its documents to ``BulkWrite/setData(_:at:)``, which keeps
    /// few of them in memory (the local engine sorts them on disk). Then `finish` runs as a
    /// transaction's body does, reading the store as it is then, and its writes commit with the
    /// produced documents; of a path both write, `finish`'s counts. `finish` does not see the
    /// produced documents, and should update none of them. `changed` tells it whether anything
    /// may have been committed since `produce` began: then what `produce` read may be out of
    /// date, and `finish` must check what it relied on.
    func bulkWrite<T: Sendable>(
        produce: sending (_ bulk: BulkWrite) async throws -> Void,
        finish: @Sendable (_ transaction: Transaction, _ changed: Bool) async throws -> T
    ) async throws -> T

    /// Adds the documents the store does not have, atomically, and leaves every one it has as it
    /// is: one with the same fields counts as unchanged, one with other fields as a conflict. Of two
    /// documents given for one path, the later counts.
    func mergeDocuments(_ documents: [(DocumentPath, JSONObject)]) async throws -> MergeReport

    /// Every document of the store in ``DocumentPath`` order (by collection path, then ID, both in
    /// byte order), handed to `body` a batch at a time, all from one consistent state: a backup, or
    /// a move to another engine.
    func exportDocuments(_ body: @Sendable ([DocumentSnapshot]) throws -> Void) async throws

    /// Keeps `bytes` (a photo) under `address`, their SHA-256 in lower-case hex, which the caller
    /// computed: durably before it returns, so that a document written after it may name it, and
    /// once however often it is given. A blob nothing names is removed later, never one a
    /// committed document names.
    /// - Throws: ``StoreError/invalidBlobAddress(_:)`` for an address that is not 64 hex digits.
    func putBlob(_ bytes: [UInt8], address: String) async throws

    /// The bytes kept under `address`, or `nil`. The store does not check them against it: a
    /// reader that trusts nothing hashes them again.
    func getBlob(_ address: String) async throws -> [UInt8]?

    /// Moves the blob at `address` out of the way (its bytes are not what its address says): kept
    /// for a person to look at, but no longer read as the blob, so that a put of the right bytes
    /// writes it anew. Returns whether there was one.
    func setBlobAside(_ address: String) async throws -> Bool

    /// The address of every blob kept, in no particular order.
    func blobAddresses() async throws -> [String]

    /// Removes each blob of `addresses` last put more than `seconds` ago (a blob put again
    /// meanwhile, by a post naming it, stays), and any piece a put cut short left as long ago.
    /// Returns how many were removed and their bytes. The caller has made sure that no document
    /// names them; the wait covers a put whose document is not written yet.
    func removeBlobs(_ addresses: [String], putBefore seconds: Int) async throws -> (count: Int, bytes: Int)

    /// Whether the store has been created. A store that does not exist reads as empty, but a
    /// sign-in against it is told so rather than "wrong password".
    func exists() async throws -> Bool

    /// Starts reads that all see one state of the store, until the matching
    /// ``endConsistentReads()`` (they nest): what ``withConsistentReads(_:)`` brackets. A write
    /// in between ends them early. An engine that cannot pin a state reads anew each time.
    func beginConsistentReads() async throws

    /// Ends what ``beginConsistentReads()`` started.
    func endConsistentReads() async

    /// A watch that wakes whoever waits on it when another process (or this one) writes to the
    /// store: what a timeline that updates itself waits on instead of reading again and again.
    /// - Throws: ``StoreError`` when the engine cannot watch this store.
    func watchChanges() throws -> any StoreChangeWatch
}

/// A blob's address: the SHA-256 of its bytes, 64 lower-case hex digits.
public enum BlobAddress {
    /// Whether `address` is one, so that it can name a file or a row without escaping.
    public static func isValid(_ address: String) -> Bool {
        address.utf8.count == 64 && address.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// `address`, or ``StoreError/invalidBlobAddress(_:)``.
    public static func checked(_ address: String) throws -> String {
        guard isValid(address) else { throw StoreError.invalidBlobAddress(address) }
        return address
    }
}

extension DocumentStore {
    /// Engines whose store always exists once reachable.
    public func exists() async throws -> Bool { true }

    /// Engines that cannot pin a state read anew each time.
    public func beginConsistentReads() async throws {}

    public func endConsistentReads() async {}

    /// Engines that cannot say when their store changed.
    public func watchChanges() throws -> any StoreChangeWatch {
        throw StoreError.io(path: "this store", reason: "it cannot tell when it changes")
    }

    /// Runs `body`, which only reads, with every read of this store from one consistent state, as
    /// a read-only transaction would: a page and the users and likes it joins agree, and the local
    /// engine locks and catches up once instead of at every read.
    public func withConsistentReads(_ body: () async throws -> Void) async throws {
        try await beginConsistentReads()
        do {
            try await body()
        } catch {
            await endConsistentReads()
            throw error
        }
        await endConsistentReads()
    }

    /// Each query run within `limit` (whole documents, so that they can be compared), then merged.
    public func runMergedQuery(_ queries: [Query], limit: Int) async throws -> [(
        query: Int, snapshot: DocumentSnapshot
    )] {
        var rows: [(query: Int, snapshot: DocumentSnapshot)] = []
        for (position, query) in queries.enumerated() {
            let batch = try await runQuery(query.wholeDocuments.limit(to: min(query.limit ?? limit, limit)))
            rows += batch.map { (position, $0) }
        }
        return Query.merged(rows, of: queries, limit: limit)
    }

    /// The collection at `path`, such as `"tweets"` or `"users/\(uid)/user-likes"`.
    public func documentIDs(in collection: String, startingWith prefixes: [String], limit: Int) async throws
        -> [[String]]
    {
        var result: [[String]] = []
        for prefix in prefixes {
            let query = self.collection(collection).query
                .whereField(Query.documentID, isGreaterThanOrEqualTo: .string(prefix))
                .whereField(Query.documentID, isLessThan: .string(Query.successor(ofPrefix: prefix)))
                .order(by: Query.documentID).select([]).limit(to: limit)
            result.append(try await runQuery(query).map(\.documentID))
        }
        return result
    }

    public func uniquePrefixLengths(in collection: String, of ids: [String], minimum: Int) async throws -> [Int] {
        let request = UniquePrefixRequest(ids: ids, minimum: minimum)
        // The IDs sharing a short start are few (an ID's first eight characters are its time to
        // the millisecond), so each run is read whole.
        return request.lengths(
            from: try await documentIDs(in: collection, startingWith: request.starts, limit: Int.max))
    }

    public var readsAreRoundTrips: Bool { false }

    public func prefetch(_ query: Query) async {}

    public func prefetch(documentsAt paths: [DocumentPath]) async {}

    public func prefetch(mergedQuery queries: [Query], limit: Int) async {}

    public func runQuery(_ query: Query, withDocumentsIn collection: String, namedBy field: String?) async throws -> (
        documents: [DocumentSnapshot], named: [DocumentSnapshot]
    ) {
        let documents = try await runQuery(query)
        var seen: Set<String> = []
        let paths = documents.compactMap { document -> DocumentPath? in
            guard let id = field.map({ document.data[$0]?.stringValue }) ?? document.documentID,
                seen.insert(id).inserted
            else { return nil }
            return DocumentPath(collection: collection, documentID: id)
        }
        return (documents, paths.isEmpty ? [] : try await getDocuments(paths))
    }

    public func prefetch(_ query: Query, withDocumentsIn collection: String, namedBy field: String?) async {}

    public func prefetch(dependingOnFirstIDOf lookup: Query, _ reads: @Sendable (String) async -> Void) async {}

    public func prefetch(
        dependingOnList field: String, at path: DocumentPath, _ reads: @Sendable (String) async -> Void
    )
        async
    {}

    public func prefetch(documentsIn collection: String, namedByLast count: Int, of field: String, across query: Query)
        async
    {}

    /// ``runQuery(_:withDocumentsIn:namedBy:)`` of the documents with the query's IDs.
    public func runQuery(_ query: Query, withDocumentsNamedByIDsIn collection: String) async throws -> (
        documents: [DocumentSnapshot], named: [DocumentSnapshot]
    ) {
        try await runQuery(query, withDocumentsIn: collection, namedBy: nil)
    }

    /// ``prefetch(_:withDocumentsIn:namedBy:)`` of the documents with the query's IDs.
    public func prefetch(_ query: Query, withDocumentsNamedByIDsIn collection: String) async {
        await prefetch(query, withDocumentsIn: collection, namedBy: nil)
    }

    public var writesBegun: Int? { nil }

    public func getDocuments(
        _ paths: [DocumentPath], uniquePrefixLengthsIn collection: String, of ids: [String], minimum: Int
    ) async throws -> (documents: [DocumentSnapshot], lengths: [Int]) {
        (try await getDocuments(paths), try await uniquePrefixLengths(in: collection, of: ids, minimum: minimum))
    }

    public func collection(_ path: String) -> CollectionReference {
        CollectionReference(store: self, path: path)
    }

    /// All collections named `id`, wherever they sit (Firestore's collection group).
    public func collectionGroup(_ id: String) -> Query {
        Query(store: self, scope: .collectionGroup(id))
    }

    /// Writes the documents in one transaction; engines with a faster bulk path implement it themselves.
    public func importDocuments(_ documents: [(DocumentPath, JSONObject)], requiringEmpty collection: String?)
        async throws
    {
        let guardQuery = collection.map { self.collection($0).query.limit(to: 1) }
        try await runTransaction { transaction in
            if let guardQuery, let collection, try await !transaction.getDocuments(guardQuery).isEmpty {
                throw StoreError.notEmpty(collection: collection)
            }
            for (path, fields) in documents { transaction.setData(fields, at: path) }
        }
    }

    /// Gathers the documents, then imports them as one array; engines that can hold less implement it themselves.
    public func importDocuments(
        requiringEmpty collection: String?,
        from produce: sending (_ add: (DocumentPath, JSONObject) throws -> Void) async throws -> Void
    ) async throws {
        var documents: [(DocumentPath, JSONObject)] = []
        var seen = Set<DocumentPath>()
        try await produce { path, fields in
            guard seen.insert(path).inserted else { throw StoreError.duplicateDocument(path: path.description) }
            documents.append((path, fields))
        }
        try await importDocuments(documents, requiringEmpty: collection)
    }

    /// Gathers the produced documents in memory, then runs `finish` and writes them in one
    /// transaction; engines that can hold less implement it themselves.
    public func bulkWrite<T: Sendable>(
        produce: sending (_ bulk: BulkWrite) async throws -> Void,
        finish: @Sendable (_ transaction: Transaction, _ changed: Bool) async throws -> T
    ) async throws -> T {
        var documents: [(DocumentPath, JSONObject)] = []
        var seen = Set<DocumentPath>()
        let bulk = BulkWrite(
            add: { path, fields in
                guard seen.insert(path).inserted else {
                    throw StoreError.duplicateDocument(path: path.description)
                }
                documents.append((path, fields))
            }, sorter: MemoryRecordSorter())
        try await produce(bulk)
        let produced = documents
        return try await runTransaction { transaction in
            let result = try await finish(transaction, true)
            var written = Set<DocumentPath>()
            for write in transaction.writes {
                switch write {
                case .set(let path, _), .update(let path, _), .delete(let path): written.insert(path)
                }
            }
            for (path, fields) in produced where !written.contains(path) { transaction.setData(fields, at: path) }
            return result
        }
    }

    /// Merges in one transaction, reading each path; engines with a faster path implement it themselves.
    public func mergeDocuments(_ documents: [(DocumentPath, JSONObject)]) async throws -> MergeReport {
        let latest = MergeReport.latest(documents)
        return try await runTransaction { transaction in
            var report = MergeReport()
            for (path, fields) in latest {
                if let existing = try await transaction.getDocument(path) {
                    report.count(existing.data, against: fields, at: path)
                } else {
                    transaction.setData(fields, at: path)
                    report.added += 1
                }
            }
            return report
        }
    }

    /// Writes many documents at once, atomically.
    public func importDocuments(_ documents: [(DocumentPath, JSONObject)]) async throws {
        try await importDocuments(documents, requiringEmpty: nil)
    }

    /// Writes `fields` as the whole document at `path`, in a transaction of its own.
    public func setData(_ fields: JSONObject, at path: DocumentPath) async throws {
        try await runTransaction { $0.setData(fields, at: path) }
    }
}

/// A collection of documents, the starting point of a query.
public struct CollectionReference: Sendable {
    let store: any DocumentStore
    /// The collection's slash-separated path.
    public let path: String

    /// The document with `id` in this collection.
    public func document(_ id: String) -> DocumentPath { DocumentPath(collection: path, documentID: id) }

    /// A query over the whole collection.
    public var query: Query { Query(store: store, scope: .collection(path)) }

    /// A query keeping documents whose `field` equals `value`.
    public func whereField(_ field: String, isEqualTo value: JSONValue) -> Query {
        query.whereField(field, isEqualTo: value)
    }

    /// A query keeping documents whose `field` equals one of `values`.
    public func whereField(_ field: String, in values: [JSONValue]) -> Query {
        query.whereField(field, in: values)
    }

    /// A query ordered by `field`.
    public func order(by field: String, descending: Bool = false) -> Query {
        query.order(by: field, descending: descending)
    }
}

/// Where one document lives: its collection's path and its ID.
public struct DocumentPath: Sendable, Hashable, CustomStringConvertible {
    /// The collection's slash-separated path, such as `"users/abc/user-likes"`.
    public let collection: String
    /// The document's ID within its collection.
    public let documentID: String

    /// Creates the path of document `documentID` in `collection`.
    public init(collection: String, documentID: String) {
        self.collection = collection
        self.documentID = documentID
    }

    /// `collection/documentID`.
    public var description: String { "\(collection)/\(documentID)" }

    /// Splits `"a/b/c/d"` into collection `"a/b/c"` and ID `"d"`; `nil` for a collection path.
    package init?(_ string: String) {
        // One pass over the bytes: every line a segment reads is parsed here.
        var string = string
        guard let path = string.withUTF8({ Self(utf8: $0) }) else { return nil }
        self = path
    }

    /// ``init(_:)`` from the path's UTF-8 bytes, which must be valid UTF-8: a journal's paths are
    /// read in place.
    package init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        var slashes = 0
        var last = -1
        for index in bytes.indices where bytes[index] == UInt8(ascii: "/") {
            guard index > last + 1 else { return nil }  // an empty component
            slashes += 1
            last = index
        }
        guard slashes % 2 == 1, last < bytes.count - 1 else { return nil }
        collection = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<last]), as: UTF8.self)
        documentID = String(decoding: UnsafeBufferPointer(rebasing: bytes[(last + 1)...]), as: UTF8.self)
    }

    /// The last component of the collection path: `"user-likes"` for `"users/abc/user-likes"`.
    package var collectionID: Substring { collection.split(separator: "/").last ?? Substring(collection) }
}

/// One document as read from the store.
public struct DocumentSnapshot: Sendable, Equatable {
    /// Where the document lives.
    public let path: DocumentPath
    /// Its fields.
    public let data: JSONObject

    /// Creates a snapshot of `data` at `path`.
    public init(path: DocumentPath, data: JSONObject) {
        self.path = path
        self.data = data
    }

    /// The document's ID.
    public var documentID: String { path.documentID }

    /// Decodes the document as `T`, with its ID as the `id` field (Firestore's `@DocumentID`).
    /// - Throws: ``StoreError/undecodable(path:reason:)`` naming the document and the key path.
    public func data<T: Decodable>(as type: T.Type) throws -> T {
        var fields = data
        fields["id"] = .string(path.documentID)
        return try DocumentCoding.decode(type, from: fields, path: path.description)
    }
}

/// A change to one field in ``Transaction/updateData(_:at:)``.
public enum FieldValue: Sendable, Equatable {
    /// Sets the field to this value.
    case value(JSONValue)
    /// Adds to the field's integer (a missing field counts as 0).
    case increment(Int64)
    /// Adds to a count of things, which is never below zero: a field that is missing, not an
    /// integer or below zero (a damaged or hostile document) counts from 0, and the sum stays
    /// between 0 and `Int64.max`.
    case incrementCount(Int64)
    /// Removes the field.
    case delete
}

/// What ``DocumentStore/mergeDocuments(_:)`` did.
public struct MergeReport: Equatable, Sendable {
    /// Documents written: the store did not have them.
    public var added = 0
    /// Documents the store had with the same fields.
    public var unchanged = 0
    /// Documents the store had with other fields, left as they are, in path order.
    public var conflicts: [DocumentPath] = []

    public init(added: Int = 0, unchanged: Int = 0, conflicts: [DocumentPath] = []) {
        self.added = added
        self.unchanged = unchanged
        self.conflicts = conflicts
    }

    /// Counts a document the store has: unchanged when its fields are `given`, else a conflict.
    package mutating func count(_ stored: JSONObject, against given: JSONObject, at path: DocumentPath) {
        if stored == given { unchanged += 1 } else { conflicts.append(path) }
    }

    /// `documents` with the later of two for one path only, in path order.
    package static func latest(_ documents: [(DocumentPath, JSONObject)]) -> [(DocumentPath, JSONObject)] {
        var last: [DocumentPath: Int] = [:]
        for (position, (path, _)) in documents.enumerated() { last[path] = position }
        return documents.enumerated().filter { last[$0.element.0] == $0.offset }.map(\.element).sorted {
            ByteOrder.compare($0.0.collection, $1.0.collection) == .orderedAscending
                || ($0.0.collection == $1.0.collection
                    && ByteOrder.compare($0.0.documentID, $1.0.documentID) == .orderedAscending)
        }
    }
}

/// What ``DocumentStore/uniquePrefixLengths(in:of:minimum:)`` reads, and what it makes of it: the
/// distinct starts of the IDs, whose runs of IDs are read, and each ID's length among its run.
public struct UniquePrefixRequest: Sendable {
    public let ids: [String]
    public let minimum: Int
    /// The IDs' first `minimum` bytes, each once, in the order met.
    public let starts: [String]

    public init(ids: [String], minimum: Int) {
        self.ids = ids
        self.minimum = minimum
        var starts: [String] = []
        for id in ids {
            let start = String(decoding: id.utf8.prefix(minimum), as: UTF8.self)
            if !starts.contains(start) { starts.append(start) }
        }
        self.starts = starts
    }

    /// Each ID's short length, from `runs`: the IDs that begin with each of ``starts``, in order.
    public func lengths(from runs: [[String]]) -> [Int] {
        ids.map { id in
            let start = String(decoding: id.utf8.prefix(minimum), as: UTF8.self)
            let run = starts.firstIndex(of: start).map { runs.indices.contains($0) ? runs[$0] : [] } ?? []
            return DocumentIDs.uniqueLength(of: id, among: run, minimum: minimum)
        }
    }
}

/// Helpers for document IDs that every engine shares.
package enum DocumentIDs {
    /// How many bytes of `id` (at least `minimum`, at most all) tell it from every other ID of
    /// `others`.
    package static func uniqueLength(of id: String, among others: [String], minimum: Int) -> Int {
        let bytes = Array(id.utf8)
        var length = minimum
        for other in others where other != id {
            let shared = zip(bytes, other.utf8).prefix { $0 == $1 }.count
            length = max(length, shared + 1)
        }
        return min(length, bytes.count)
    }
}
