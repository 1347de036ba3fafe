import Foundation
import Synchronization

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// A ``DocumentStore`` that forwards to another and counts the reads, so tests can show that a
/// page costs a fixed number of reads rather than one per tweet.
final class CountingDocumentStore: DocumentStore {
    /// How many calls of each kind reached the store.
    struct Counts: Equatable, Sendable {
        var getDocument = 0
        var getDocuments = 0
        var runQuery = 0
        var count = 0
        var transactions = 0
        var imports = 0

        /// Every call that reads outside a transaction.
        var reads: Int { getDocument + getDocuments + runQuery + count }
    }

    let base: any DocumentStore
    private let tally = Mutex(Counts())

    init(_ base: any DocumentStore) {
        self.base = base
    }

    /// The calls counted since the start or the last ``reset()``.
    var counts: Counts { tally.withLock { $0 } }

    func reset() {
        tally.withLock { $0 = Counts() }
    }

    func getDocument(_ path: DocumentPath) async throws -> DocumentSnapshot? {
        tally.withLock { $0.getDocument += 1 }
        return try await base.getDocument(path)
    }

    func getDocuments(_ paths: [DocumentPath]) async throws -> [DocumentSnapshot] {
        tally.withLock { $0.getDocuments += 1 }
        return try await base.getDocuments(paths)
    }

    func runQuery(_ query: Query) async throws -> [DocumentSnapshot] {
        tally.withLock { $0.runQuery += 1 }
        return try await base.runQuery(query)
    }

    /// Counted as one query: one read, however many queries it merges.
    func runMergedQuery(_ queries: [Query], limit: Int) async throws -> [(query: Int, snapshot: DocumentSnapshot)] {
        tally.withLock { $0.runQuery += 1 }
        return try await base.runMergedQuery(queries, limit: limit)
    }

    func count(_ query: Query) async throws -> Int {
        tally.withLock { $0.count += 1 }
        return try await base.count(query)
    }

    func runTransaction<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T {
        tally.withLock { $0.transactions += 1 }
        return try await base.runTransaction(body)
    }

    func importDocuments(_ documents: [(DocumentPath, JSONObject)], requiringEmpty collection: String?) async throws {
        tally.withLock { $0.imports += 1 }
        try await base.importDocuments(documents, requiringEmpty: collection)
    }

    func exportDocuments(_ body: @Sendable ([DocumentSnapshot]) throws -> Void) async throws {
        try await base.exportDocuments(body)
    }
}
