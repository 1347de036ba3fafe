import Foundation
import Observation
import Synchronization
import TweetStore

/// Exporting the whole store as JSON Lines (a backup, a move to another engine, or the
/// benchmark's input for sqlite3), through any engine.
@MainActor @Observable
public final class ExportViewModel: ErrorRecording {
    public private(set) var didExport = false
    public private(set) var documents = 0
    public internal(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Hands `output` every document as lines of `{"data":{…},"path":"collection/id"}`, in path
    /// order, a few hundred kilobytes at a time.
    public func export(to output: @escaping @Sendable ([UInt8]) throws -> Void) async throws {
        try await perform {
            let counted = Mutex(0)
            try await services.store.exportDocuments { batch in
                var bytes: [UInt8] = []
                for document in batch { bytes += Self.line(document) }
                try output(bytes)
                counted.withLock { $0 += batch.count }
            }
            documents = counted.withLock { $0 }
            didExport = true
        }
    }

    /// One document's line: escaped for a terminal too, since an export printed to one must not drive it.
    public nonisolated static func line(_ document: DocumentSnapshot) -> [UInt8] {
        var line = JSONValue.escapingTerminalControls(
            JSONValue.object(["path": .string(document.path.description), "data": .object(document.data)])
                .serialized())
        line.append(0x0A)
        return line
    }
}
