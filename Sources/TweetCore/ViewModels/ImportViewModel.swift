import Foundation
import Observation
import TweetStore

/// Restoring a backup, or moving a store to another engine: the JSON Lines that `export` prints,
/// read into an empty store in one step, with every document exactly as exported.
@MainActor @Observable
public final class ImportViewModel: ErrorRecording {
    /// How many documents the last import wrote.
    public private(set) var imported = 0
    /// What a merge (``importLines(_:source:merging:)`` with `merging`) found: documents the store
    /// had already, and those it had with other fields, left as they are.
    public private(set) var merge: MergeReport?
    public internal(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Reads every line of `bytes` (from `source`, as errors name it) and writes the documents.
    /// Nothing is written unless every line is a document and the store is empty; `merging`, into
    /// a store with documents too: only those it does not have are added, and ``merge`` says what
    /// it had already.
    /// - Throws: ``ImportError``.
    public func importLines(_ bytes: [UInt8], source: String, merging: Bool = false) async throws {
        try await perform {
            let documents = try Self.documents(in: bytes, source: source)
            if merging {
                let report = try await services.store.mergeDocuments(documents)
                merge = report
                imported = report.added
                return
            }
            try await requireEmptyStore()
            do {
                // The users collection is checked again in the import's own step, against a writer
                // who comes in between.
                try await services.store.importDocuments(documents, requiringEmpty: Collections.users)
            } catch StoreError.notEmpty {
                throw ImportError.storeNotEmpty
            }
            imported = documents.count
        }
    }

    private struct FoundOne: Error {}

    private func requireEmptyStore() async throws {
        do {
            try await services.store.exportDocuments { batch in if !batch.isEmpty { throw FoundOne() } }
        } catch is FoundOne {
            throw ImportError.storeNotEmpty
        }
    }

    /// The documents of an export's lines, each checked: `{"data": {…}, "path": "collection/id"}`
    /// and nothing else, each path once.
    nonisolated static func documents(in bytes: [UInt8], source: String) throws -> [(DocumentPath, JSONObject)] {
        var documents: [(DocumentPath, JSONObject)] = []
        var lines: [DocumentPath: Int] = [:]
        var number = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if line.isEmpty { continue }
            func bad(_ reason: String) -> ImportError { .malformed(source: source, line: number, reason: reason) }
            let value: JSONValue
            do {
                value = try JSONValue.parse(line)
            } catch {
                throw bad("it is not JSON (\(error))")
            }
            guard case .object(let fields) = value, fields.count == 2, case .string(let text)? = fields["path"],
                case .object(let data)? = fields["data"]
            else { throw bad("it is not {\"data\": {…}, \"path\": \"collection/id\"}") }
            guard let path = DocumentPath(text) else { throw bad("\(text) is not a document's path") }
            if let first = lines[path] { throw bad("it repeats the document of line \(first)") }
            lines[path] = number
            documents.append((path, data))
        }
        return documents
    }
}

/// Why an import wrote nothing.
public enum ImportError: Error, Equatable, LocalizedError {
    /// A line of the input is not a document.
    case malformed(source: String, line: Int, reason: String)
    /// The store already has documents.
    case storeNotEmpty

    public var errorDescription: String? {
        switch self {
        case .malformed(let source, let line, let reason):
            return "line \(line) of \(source) is not an exported document: \(reason); nothing was imported"
        case .storeNotEmpty:
            return
                "the store is not empty: import restores into an empty store only (--merge adds to one); nothing was imported"
        }
    }
}
