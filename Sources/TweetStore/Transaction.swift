import FoundationEssentials
import Synchronization

/// What an engine lets a transaction read: the committed state as the transaction sees it.
///
/// An engine implements it for its own transactions; the reads are asynchronous, so that a
/// server engine can make them over its connection.
public protocol TransactionReader: Sendable {
    /// The document at `path` as committed before the transaction, or `nil`.
    func document(at path: DocumentPath) async throws -> JSONObject?
    /// The documents `query` selects, as committed before the transaction.
    func query(_ query: Query) async throws -> [DocumentSnapshot]
    /// The documents at `paths` as committed before the transaction, by path (`nil` for one not
    /// there): a server engine reads them in one round trip; the default reads one at a time.
    func documents(at paths: [DocumentPath]) async throws -> [DocumentPath: JSONObject?]
}

extension TransactionReader {
    public func documents(at paths: [DocumentPath]) async throws -> [DocumentPath: JSONObject?] {
        var found: [DocumentPath: JSONObject?] = [:]
        for path in paths where found[path] == nil { found[path] = .some(try await document(at: path)) }
        return found
    }
}

/// The reads and writes of one ``DocumentStore/runTransaction(_:)`` call.
///
/// Reads see the store as it was when the transaction began; writes are collected and committed
/// together when the body returns. An engine may run a body more than once (when a concurrent
/// writer conflicts with it), so a body must do nothing but read and write through its
/// transaction: no output, no changes outside it.
public final class Transaction: Sendable {
    /// One write to commit.
    public enum Write: Sendable, Equatable {
        /// Replaces the whole document.
        case set(DocumentPath, JSONObject)
        /// Changes some fields of an existing document.
        case update(DocumentPath, [String: FieldValue])
        /// Deletes the document, if there is one.
        case delete(DocumentPath)
    }

    private let reader: any TransactionReader
    private let pending = Mutex<[Write]>([])
    /// Documents read so far (`nil` inside: read and not there): a transaction's reads all see the
    /// state before it, so a second read of one is answered from here.
    private let read = Mutex<[DocumentPath: JSONObject?]>([:])

    /// The store's clock when the transaction began (Firestore's server timestamp). Never earlier
    /// than any transaction committed before it, so time order is commit order.
    public let time: Date

    /// A transaction reading through `reader`, stamped `time`: for engines.
    public init(reader: any TransactionReader, time: Date) {
        self.reader = reader
        self.time = time
    }

    /// The writes so far, in the order they were made: for engines, to commit.
    public var writes: [Write] { pending.withLock { $0 } }

    /// The document at `path` as committed before this transaction, or `nil`.
    public func getDocument(_ path: DocumentPath) async throws -> DocumentSnapshot? {
        let fields: JSONObject?
        if let known = read.withLock({ $0[path] }) {
            fields = known
        } else {
            fields = try await reader.document(at: path)
            read.withLock { $0[path] = .some(fields) }
        }
        return fields.map { DocumentSnapshot(path: path, data: $0) }
    }

    /// Reads the documents at `paths` now, together (one round trip on a server), for the
    /// ``getDocument(_:)`` calls that follow to take: what a body will read, said at once.
    public func readAhead(_ paths: [DocumentPath]) async throws {
        let unread = read.withLock { known in paths.filter { known[$0] == nil } }
        guard !unread.isEmpty else { return }
        let found = try await reader.documents(at: unread)
        read.withLock { known in
            for path in unread { known[path] = .some(found[path] ?? nil) }
        }
    }

    /// The documents `query` selects, as committed before this transaction.
    public func getDocuments(_ query: Query) async throws -> [DocumentSnapshot] {
        try await reader.query(query)
    }

    /// Replaces the whole document at `path` with `fields`.
    public func setData(_ fields: JSONObject, at path: DocumentPath) {
        pending.withLock { $0.append(.set(path, fields)) }
    }

    /// Replaces the whole document at `path` with the fields of `value` (its `id` is not stored).
    public func setData<T: Encodable>(from value: T, at path: DocumentPath) throws {
        let fields = try DocumentCoding.encode(value).removingID()
        pending.withLock { $0.append(.set(path, fields)) }
    }

    /// Changes some fields of the existing document at `path`.
    /// The commit fails with ``StoreError/documentNotFound(path:)`` if there is none.
    public func updateData(_ changes: [String: FieldValue], at path: DocumentPath) {
        pending.withLock { $0.append(.update(path, changes)) }
    }

    /// Deletes the document at `path`, if there is one.
    public func deleteDocument(_ path: DocumentPath) {
        pending.withLock { $0.append(.delete(path)) }
    }
}

extension Transaction {
    /// Turns writes into whole documents, in the order each path was first written: the new
    /// fields, or `nil` for a deletion. A deletion of a document that `current` does not have is
    /// left out. An engine calls it at commit.
    /// - Parameter current: the committed document at a path, or `nil`.
    /// - Throws: ``StoreError/documentNotFound(path:)`` for an update of a missing document.
    package static func resolve(_ writes: [Write], current: (DocumentPath) throws -> JSONObject?) throws
        -> [(path: DocumentPath, fields: JSONObject?)]
    {
        var pending: [DocumentPath: JSONObject?] = [:]
        var order: [DocumentPath] = []
        func latest(_ path: DocumentPath) throws -> JSONObject? {
            if let value = pending[path] { return value }
            return try current(path)
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
                guard var fields = try latest(path) else { throw StoreError.documentNotFound(path: path.description) }
                for (field, change) in changes {
                    switch change {
                    case .value(let value): fields[field] = value
                    case .delete: fields[field] = nil
                    case .increment(let amount):
                        // A damaged count saturates rather than trapping on overflow.
                        let (sum, overflow) = (fields[field]?.integerValue ?? 0).addingReportingOverflow(amount)
                        fields[field] = .integer(overflow ? (amount > 0 ? .max : .min) : sum)
                    case .incrementCount(let amount):
                        // The store is not trusted to hold a count of zero or more.
                        let start = max(0, fields[field]?.integerValue ?? 0)
                        let (sum, overflow) = start.addingReportingOverflow(amount)
                        fields[field] = .integer(overflow ? (amount > 0 ? .max : 0) : max(0, sum))
                    }
                }
                record(path, fields)
            }
        }
        return try order.compactMap { path in
            switch pending[path]! {
            case .some(let fields): return (path, fields)
            case .none: return try current(path) == nil ? nil : (path, nil)
            }
        }
    }
}
