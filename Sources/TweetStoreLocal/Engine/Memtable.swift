import TweetStore

/// The writes of the journal since the last fold: documents and deletions, by collection and ID.
///
/// A document replayed from the journal stays the bytes of its record until something reads it:
/// replay checks every record as strictly as a parse (its checksum, then a walk of its JSON), so
/// the parse cannot fail later, and a command pays only for the documents it reads (parsing each
/// newest version at replay made even a `whoami` pay for documents it never read).
final class Memtable {
    enum Entry {
        /// A deletion, which hides older versions in segments.
        case deleted
        case document(JSONObject)
        /// A document's JSON object in a journal record, not parsed yet.
        case journal(ArraySlice<UInt8>, file: String, line: Int)
    }

    private(set) var collections: [String: [String: Entry]] = [:]
    /// Journal records applied since the last fold.
    private(set) var recordCount = 0

    enum Lookup {
        case absent
        case deleted
        case present(JSONObject)
    }

    func lookup(_ path: DocumentPath) throws -> Lookup {
        guard let entry = collections[path.collection]?[path.documentID] else { return .absent }
        guard let fields = try Self.fields(of: entry) else { return .deleted }
        if case .journal = entry { collections[path.collection]?[path.documentID] = .document(fields) }
        return .present(fields)
    }

    func contains(_ path: DocumentPath) -> Bool {
        collections[path.collection]?[path.documentID] != nil
    }

    /// The entry's fields, `nil` for a deletion.
    private static func fields(of entry: Entry) throws -> JSONObject? {
        switch entry {
        case .deleted: return nil
        case .document(let fields): return fields
        case .journal(let bytes, let file, let line):
            let value: JSONValue
            do {
                value = try JSONValue.parse(bytes)
            } catch {
                throw StoreError.corruptRecord(file: file, line: line, reason: "invalid JSON: \(error)")
            }
            guard case .object(let fields) = value else {
                throw StoreError.corruptRecord(file: file, line: line, reason: "a set without data")
            }
            return fields
        }
    }

    func apply(_ operations: [JournalRecord.Operation]) {
        for operation in operations {
            switch operation {
            case .set(let path, let fields):
                collections[path.collection, default: [:]][path.documentID] = .document(fields)
            case .delete(let path): collections[path.collection, default: [:]][path.documentID] = .deleted
            }
        }
        recordCount += 1
    }

    /// Applies a replayed record from its outline: `line` is the record's line (the slice the
    /// outline was made from), its documents kept as bytes until read.
    func apply(_ outline: JournalRecord.Outline, line: ArraySlice<UInt8>, file: String, lineNumber: Int) {
        for operation in outline.operations {
            collections[operation.path.collection, default: [:]][operation.path.documentID] =
                operation.data.map { .journal(line[$0], file: file, line: lineNumber) } ?? .deleted
        }
        recordCount += 1
    }

    /// The live documents of the collections a query looks at.
    /// - Parameter ids: the IDs a document must have, when the query bounds them (a short ID's
    ///   range), so the others are passed over unparsed.
    func documents(in scope: Query.Scope, ids: QueryPlan.IDRange = .all) throws -> [DocumentSnapshot] {
        var result: [DocumentSnapshot] = []
        func add(_ collection: String, _ documents: [String: Entry]) throws {
            for (id, entry) in documents where ids.contains(id) {
                let path = DocumentPath(collection: collection, documentID: id)
                if let fields = try Self.fields(of: entry) {
                    result.append(DocumentSnapshot(path: path, data: fields))
                }
            }
        }
        switch scope {
        case .collection(let path):
            // One collection by key: an import's memtable holds tens of thousands of them.
            if let documents = collections[path] { try add(path, documents) }
        case .collectionGroup(let id):
            for (collection, documents) in collections where collection == id || collection.hasSuffix("/" + id) {
                try add(collection, documents)
            }
        }
        return result
    }

    /// Every entry, deletions included, sorted by path: what a fold writes.
    func sortedEntries() throws -> [SegmentWriter.Entry] {
        var entries: [SegmentWriter.Entry] = []
        for (collection, documents) in collections {
            for (id, entry) in documents {
                let path = DocumentPath(collection: collection, documentID: id)
                entries.append(.init(path: path, data: try Self.fields(of: entry)))
            }
        }
        entries.sort { SegmentFormat.comparePaths($0.path, $1.path) == .orderedAscending }
        return entries
    }

    var isEmpty: Bool { collections.isEmpty }
}
