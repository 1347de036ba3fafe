import TweetStore

/// A ``DocumentStore`` that hands every call to `base` unless it says otherwise: for tests that
/// step in at one call (another process's write landing at a chosen moment).
package protocol ForwardingDocumentStore: DocumentStore {
    var base: any DocumentStore { get }
}

extension ForwardingDocumentStore {
    package func getDocument(_ path: DocumentPath) async throws -> DocumentSnapshot? {
        try await base.getDocument(path)
    }

    package func getDocuments(_ paths: [DocumentPath]) async throws -> [DocumentSnapshot] {
        try await base.getDocuments(paths)
    }

    package func runQuery(_ query: Query) async throws -> [DocumentSnapshot] { try await base.runQuery(query) }

    package func count(_ query: Query) async throws -> Int { try await base.count(query) }

    package func importDocuments(_ documents: [(DocumentPath, JSONObject)], requiringEmpty collection: String?)
        async throws
    {
        try await base.importDocuments(documents, requiringEmpty: collection)
    }

    package func runTransaction<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T {
        try await base.runTransaction(body)
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
