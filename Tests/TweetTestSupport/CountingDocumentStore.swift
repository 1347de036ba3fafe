import Foundation
import Synchronization
import TweetCore
import TweetStore
import TweetStoreLocal

/// A ``DocumentStore`` that forwards to another and counts the reads, so tests can show that a
/// page costs a fixed number of reads rather than one per tweet.
package final class CountingDocumentStore: DocumentStore {
    /// How many calls of each kind reached the store.
    package struct Counts: Equatable, Sendable {
        package var getDocument = 0
        package var getDocuments = 0
        package var runQuery = 0
        package var count = 0
        package var transactions = 0
        package var imports = 0

        package init(
            getDocument: Int = 0, getDocuments: Int = 0, runQuery: Int = 0, count: Int = 0, transactions: Int = 0,
            imports: Int = 0
        ) {
            self.getDocument = getDocument
            self.getDocuments = getDocuments
            self.runQuery = runQuery
            self.count = count
            self.transactions = transactions
            self.imports = imports
        }

        /// Every call that reads outside a transaction.
        package var reads: Int { getDocument + getDocuments + runQuery + count }
    }

    package let base: any DocumentStore
    private let tally = Mutex(Counts())

    package init(_ base: any DocumentStore) {
        self.base = base
    }

    /// The calls counted since the start or the last ``reset()``.
    package var counts: Counts { tally.withLock { $0 } }

    package func reset() {
        tally.withLock { $0 = Counts() }
    }

    package func getDocument(_ path: DocumentPath) async throws -> DocumentSnapshot? {
        tally.withLock { $0.getDocument += 1 }
        return try await base.getDocument(path)
    }

    package func getDocuments(_ paths: [DocumentPath]) async throws -> [DocumentSnapshot] {
        tally.withLock { $0.getDocuments += 1 }
        return try await base.getDocuments(paths)
    }

    package func runQuery(_ query: Query) async throws -> [DocumentSnapshot] {
        tally.withLock { $0.runQuery += 1 }
        return try await base.runQuery(query)
    }

    /// Counted as one query: one read, however many queries it merges.
    package func runMergedQuery(_ queries: [Query], limit: Int) async throws -> [(
        query: Int, snapshot: DocumentSnapshot
    )] {
        tally.withLock { $0.runQuery += 1 }
        return try await base.runMergedQuery(queries, limit: limit)
    }

    package func count(_ query: Query) async throws -> Int {
        tally.withLock { $0.count += 1 }
        return try await base.count(query)
    }

    package func runTransaction<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T {
        tally.withLock { $0.transactions += 1 }
        return try await base.runTransaction(body)
    }

    package func importDocuments(_ documents: [(DocumentPath, JSONObject)], requiringEmpty collection: String?)
        async throws
    {
        tally.withLock { $0.imports += 1 }
        try await base.importDocuments(documents, requiringEmpty: collection)
    }

    package func bulkWrite<T: Sendable>(
        produce: sending (_ bulk: BulkWrite) async throws -> Void,
        finish: @Sendable (_ transaction: Transaction, _ changed: Bool) async throws -> T
    ) async throws -> T {
        tally.withLock { $0.imports += 1 }
        return try await base.bulkWrite(produce: produce, finish: finish)
    }

    private let scopes = Mutex((begun: 0, ended: 0))

    /// How many ``withConsistentReads(_:)`` scopes began and ended.
    package var consistentReadScopes: (begun: Int, ended: Int) { scopes.withLock { $0 } }

    package func beginConsistentReads() async throws {
        try await base.beginConsistentReads()
        scopes.withLock { $0.begun += 1 }
    }

    package func endConsistentReads() async {
        scopes.withLock { $0.ended += 1 }
        await base.endConsistentReads()
    }

    package func exportDocuments(_ body: @Sendable ([DocumentSnapshot]) throws -> Void) async throws {
        try await base.exportDocuments(body)
    }

    package func putBlob(_ bytes: [UInt8], address: String) async throws {
        try await base.putBlob(bytes, address: address)
    }

    package func getBlob(_ address: String) async throws -> [UInt8]? { try await base.getBlob(address) }
    package func blobAddresses() async throws -> [String] { try await base.blobAddresses() }
    package func setBlobAside(_ address: String) async throws -> Bool { try await base.setBlobAside(address) }
    package func removeBlobs(_ addresses: [String], putBefore seconds: Int) async throws -> (count: Int, bytes: Int) {
        try await base.removeBlobs(addresses, putBefore: seconds)
    }
}
