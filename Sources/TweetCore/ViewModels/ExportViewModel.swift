import Foundation
import Observation

/// Exporting the whole store as JSON Lines (a backup, or the benchmark's input for sqlite3).
@MainActor @Observable
public final class ExportViewModel: ErrorRecording {
    public private(set) var didExport = false
    public internal(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Writes every document to the file descriptor `output`, one JSON object per line.
    public func export(to output: Int32) async throws {
        try await perform {
            guard let store = services.store as? LocalDocumentStore else {
                throw StoreError.io(path: "the store", reason: "only the local engine can export")
            }
            try await store.export(to: output)
            didExport = true
        }
    }
}
