import Foundation
import Testing

@testable import TweetCore

@MainActor
struct ExportViewModelTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    private func exportToFile(_ services: AppServices) async -> (ExportViewModel, [UInt8]) {
        let path = env.path("export.jsonl")
        let output = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let model = ExportViewModel(services: services)
        // The outcome is checked through the view model's `error`, which records what was thrown.
        _ = try? await model.export(to: output)
        close(output)
        return (model, (try? env.bytes(of: path)) ?? [])
    }

    @Test func exportingTheLocalStoreWritesItsDocuments() async throws {
        let services = try env.makeServices()
        let alice = try await env.addUser("alice", to: services)
        try await env.post("exported", as: alice, in: services)
        let (model, bytes) = await exportToFile(services)
        #expect(model.error == nil)
        #expect(model.didExport)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\"path\":\"users/\(alice.id)\""))
        #expect(text.contains("\"caption\":\"exported\""))
    }

    @Test func anotherEngineCannotExport() async throws {
        let services = try env.makeServices(store: CountingDocumentStore(try env.makeStore()))
        let (model, bytes) = await exportToFile(services)
        #expect(!model.didExport)
        #expect(model.error is StoreError)
        #expect(bytes.isEmpty)
    }
}
