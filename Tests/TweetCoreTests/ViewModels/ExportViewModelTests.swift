import Foundation
import Synchronization
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

@MainActor
struct ExportViewModelTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// Exports through the view model into memory; `failAfter` makes the output fail from that chunk on.
    private func export(_ services: AppServices, failAfter: Int? = nil) async -> (ExportViewModel, [UInt8]) {
        let written = Mutex<(bytes: [UInt8], chunks: Int)>(([], 0))
        let model = ExportViewModel(services: services)
        // The outcome is checked through the view model's `error`, which records what was thrown.
        _ = try? await model.export { chunk in
            try written.withLock {
                if let failAfter, $0.chunks >= failAfter { throw OutputFailed() }
                $0.bytes += chunk
                $0.chunks += 1
            }
        }
        return (model, written.withLock { $0.bytes })
    }

    private struct OutputFailed: Error {}

    @Test func exportingTheLocalStoreWritesItsDocuments() async throws {
        let services = try env.makeServices()
        let alice = try await env.addUser("alice", to: services)
        try await env.post("exported", as: alice, in: services)
        let (model, bytes) = await export(services)
        #expect(model.error == nil)
        #expect(model.didExport)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\"path\":\"users/\(alice.id)\""))
        #expect(text.contains("\"caption\":\"exported\""))
    }

    @Test func anyEngineExportsThroughTheProtocolTheSameLines() async throws {
        let store = try env.makeStore()
        let services = try env.makeServices(store: store)
        _ = try await env.addUser("alice", to: services)  // a user, so the export holds more than one collection
        for number in 0..<1500 {
            try await store.setData(
                ["n": .integer(Int64(number))], at: DocumentPath(collection: "bulk", documentID: "d\(number)"))
        }
        let (local, localBytes) = await export(services)
        let (wrapped, wrappedBytes) = await export(try env.makeServices(store: CountingDocumentStore(store)))
        #expect(local.error == nil && wrapped.error == nil)
        #expect(!localBytes.isEmpty && wrappedBytes == localBytes)
        // More than one batch, every document once, in path order.
        #expect(local.documents == wrapped.documents && local.documents > 1500)
        let paths = localBytes.split(separator: 0x0A).map { line -> String in
            guard case .object(let fields) = try? JSONValue.parse(line) else { return "" }
            return fields["path"]?.stringValue ?? ""
        }
        #expect(paths.count == local.documents)
        let parsed = paths.compactMap(DocumentPath.init)
        #expect(parsed.count == paths.count)
        #expect(zip(parsed, parsed.dropFirst()).allSatisfy { SegmentFormat.comparePaths($0, $1) == .orderedAscending })
    }

    @Test func anOutputThatFailsStopsTheExportWithItsError() async throws {
        let store = try env.makeStore()
        for number in 0..<3000 {
            try await store.setData([:], at: DocumentPath(collection: "bulk", documentID: "d\(number)"))
        }
        let (model, bytes) = await export(try env.makeServices(store: store), failAfter: 1)
        #expect(!model.didExport)
        #expect(model.error is OutputFailed)
        #expect(bytes.split(separator: 0x0A).count == 1024)
    }
}
