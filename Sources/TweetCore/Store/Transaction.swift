import Foundation

/// What an engine lets a transaction read: the committed state, under the engine's write lock.
protocol TransactionReader {
    func document(at path: DocumentPath) throws -> JSONObject?
    func query(_ query: Query) throws -> [DocumentSnapshot]
}

/// The reads and writes of one ``DocumentStore/runTransaction(_:)`` call.
///
/// Reads see the store as it was when the transaction began (other writers wait on the lock);
/// writes are collected and committed together when the body returns.
public final class Transaction {
    /// One write to commit.
    enum Write {
        case set(DocumentPath, JSONObject)
        case update(DocumentPath, [String: FieldValue])
        case delete(DocumentPath)
    }

    private let reader: any TransactionReader
    private(set) var writes: [Write] = []

    /// The store's clock when the transaction began (Firestore's server timestamp). Never earlier
    /// than any transaction committed before it, so time order is commit order.
    public let time: Date

    init(reader: any TransactionReader, time: Date) {
        self.reader = reader
        self.time = time
    }

    /// The document at `path` as committed before this transaction, or `nil`.
    public func getDocument(_ path: DocumentPath) throws -> DocumentSnapshot? {
        try reader.document(at: path).map { DocumentSnapshot(path: path, data: $0) }
    }

    /// The documents `query` selects, as committed before this transaction.
    public func getDocuments(_ query: Query) throws -> [DocumentSnapshot] {
        try reader.query(query)
    }

    /// Replaces the whole document at `path` with `fields`.
    public func setData(_ fields: JSONObject, at path: DocumentPath) {
        writes.append(.set(path, fields))
    }

    /// Replaces the whole document at `path` with the fields of `value` (its `id` is not stored).
    public func setData<T: Encodable>(from value: T, at path: DocumentPath) throws {
        writes.append(.set(path, try DocumentCoding.encode(value).removingID()))
    }

    /// Changes some fields of the existing document at `path`.
    /// The commit fails with ``StoreError/documentNotFound(path:)`` if there is none.
    public func updateData(_ changes: [String: FieldValue], at path: DocumentPath) {
        writes.append(.update(path, changes))
    }

    /// Deletes the document at `path`, if there is one.
    public func deleteDocument(_ path: DocumentPath) {
        writes.append(.delete(path))
    }
}
