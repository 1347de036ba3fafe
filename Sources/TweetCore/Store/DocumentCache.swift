import Foundation

/// The documents of a replayed journal, by collection path and document ID.
///
/// A class, so a transaction can read it under the lock while the engine later mutates it in
/// place, without copying whole collections.
final class DocumentCache: TransactionReader {
    private var collections: [String: [String: JSONObject]] = [:]

    func document(at path: DocumentPath) -> JSONObject? {
        collections[path.collection]?[path.documentID]
    }

    func query(_ query: Query) -> [DocumentSnapshot] {
        query.select(from: candidates(for: query))
    }

    func candidates(for query: Query) -> [DocumentSnapshot] {
        switch query.scope {
        case .collection(let path):
            return snapshots(of: path)
        case .collectionGroup(let id):
            return collections.keys.filter { $0 == id || $0.hasSuffix("/" + id) }.flatMap(snapshots(of:))
        }
    }

    private func snapshots(of collection: String) -> [DocumentSnapshot] {
        (collections[collection] ?? [:]).map { id, fields in
            DocumentSnapshot(path: DocumentPath(collection: collection, documentID: id), data: fields)
        }
    }

    /// Every document, in path order.
    func allDocuments() -> [DocumentSnapshot] {
        collections.keys.sorted().flatMap { collection in
            snapshots(of: collection).sorted { $0.documentID.utf8.lexicographicallyPrecedes($1.documentID.utf8) }
        }
    }

    func apply(_ operations: [JournalRecord.Operation]) {
        for operation in operations {
            switch operation {
            case .set(let path, let fields):
                collections[path.collection, default: [:]][path.documentID] = fields
            case .delete(let path):
                collections[path.collection]?[path.documentID] = nil
                if collections[path.collection]?.isEmpty == true { collections[path.collection] = nil }
            }
        }
    }

    /// Turns a transaction's writes into whole-document operations against the current state.
    func resolve(_ writes: [Transaction.Write]) throws -> [JournalRecord.Operation] {
        var pending: [DocumentPath: JSONObject?] = [:]
        var order: [DocumentPath] = []
        func current(_ path: DocumentPath) -> JSONObject? {
            if let value = pending[path] { return value }
            return document(at: path)
        }
        func record(_ path: DocumentPath, _ fields: JSONObject?) {
            if pending[path] == nil { order.append(path) }
            pending[path] = .some(fields)
        }
        for write in writes {
            switch write {
            case .set(let path, let fields):
                record(path, fields)
            case .delete(let path):
                record(path, nil)
            case .update(let path, let changes):
                guard var fields = current(path) else {
                    throw StoreError.documentNotFound(path: path.description)
                }
                for (field, change) in changes {
                    switch change {
                    case .value(let value): fields[field] = value
                    case .delete: fields[field] = nil
                    case .increment(let amount): fields[field] = .integer((fields[field]?.integerValue ?? 0) + amount)
                    }
                }
                record(path, fields)
            }
        }
        return order.compactMap { path in
            switch pending[path]! {
            case .some(let fields): return .set(path, fields)
            case .none: return document(at: path) == nil ? nil : .delete(path)
            }
        }
    }
}
