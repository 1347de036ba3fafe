import TweetStore

/// The writes of the journal since the last fold: documents and deletions, by collection and ID.
final class Memtable {
    /// `nil` marks a deletion, which hides older versions in segments.
    private(set) var collections: [String: [String: JSONObject?]] = [:]
    /// Journal records applied since the last fold.
    private(set) var recordCount = 0

    enum Lookup {
        case absent
        case deleted
        case present(JSONObject)
    }

    func lookup(_ path: DocumentPath) -> Lookup {
        guard let collection = collections[path.collection], let entry = collection[path.documentID] else {
            return .absent
        }
        if let fields = entry { return .present(fields) }
        return .deleted
    }

    func contains(_ path: DocumentPath) -> Bool {
        collections[path.collection]?[path.documentID] != nil
    }

    func apply(_ operations: [JournalRecord.Operation]) {
        for operation in operations {
            switch operation {
            case .set(let path, let fields):
                collections[path.collection, default: [:]][path.documentID] = .some(fields)
            case .delete(let path):
                collections[path.collection, default: [:]][path.documentID] = .some(nil)
            }
        }
        recordCount += 1
    }

    /// The live documents of the collections a query looks at.
    func documents(in scope: Query.Scope) -> [DocumentSnapshot] {
        var result: [DocumentSnapshot] = []
        func add(_ collection: String, _ documents: [String: JSONObject?]) {
            for (id, fields) in documents {
                if let fields {
                    result.append(
                        DocumentSnapshot(path: DocumentPath(collection: collection, documentID: id), data: fields))
                }
            }
        }
        switch scope {
        case .collection(let path):
            // One collection by key: an import's memtable holds tens of thousands of them.
            if let documents = collections[path] { add(path, documents) }
        case .collectionGroup(let id):
            for (collection, documents) in collections where collection == id || collection.hasSuffix("/" + id) {
                add(collection, documents)
            }
        }
        return result
    }

    /// Every entry, deletions included, sorted by path: what a fold writes.
    func sortedEntries() -> [SegmentWriter.Entry] {
        var entries: [SegmentWriter.Entry] = []
        for (collection, documents) in collections {
            for (id, fields) in documents {
                entries.append(.init(path: DocumentPath(collection: collection, documentID: id), data: fields))
            }
        }
        entries.sort { SegmentFormat.comparePaths($0.path, $1.path) == .orderedAscending }
        return entries
    }

    /// Counts a record whose every operation a later record overwrites, so it was not applied.
    func countSuperseded() {
        recordCount += 1
    }

    var isEmpty: Bool { collections.isEmpty }
}
