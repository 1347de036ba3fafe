import Foundation
import Testing

@testable import TweetCore

struct StoreExportTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// Exports `store` into a file and returns its lines.
    private func export(_ store: LocalDocumentStore) async throws -> [JSONValue] {
        let path = env.path("export.jsonl")
        let output = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(output >= 0)
        do {
            try await store.export(to: output)
            close(output)
        } catch {
            close(output)
            throw error
        }
        let bytes = try env.bytes(of: path)
        #expect(bytes.isEmpty || bytes.last == 0x0A)
        return try bytes.split(separator: 0x0A).map { try JSONValue.parse($0) }
    }

    @Test(arguments: StoreLayout.allCases)
    func exportWritesEveryLiveDocumentOnceInPathOrder(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout)
        let writes: [(String, JSONObject)] = [
            ("tweets/b", ["n": .integer(1)]), ("users/u1", ["name": .string("é")]), ("tweets/a", ["n": .integer(2)]),
            ("users/u1/user-likes/b", ["t": .null]), ("tweets/c", ["n": .integer(3)]), ("a/x", [:]),
        ]
        for (path, fields) in writes { try await store.setData(fields, at: try #require(DocumentPath(path))) }
        try await store.runTransaction { $0.deleteDocument(DocumentPath(collection: "tweets", documentID: "c")) }
        try await store.runTransaction {
            $0.updateData(["n": .increment(10)], at: DocumentPath(collection: "tweets", documentID: "a"))
        }

        let lines = try await export(store)
        #expect(
            lines.map { $0.objectValue?["path"]?.stringValue } == [
                "a/x", "tweets/a", "tweets/b", "users/u1", "users/u1/user-likes/b",
            ])
        #expect(lines[1] == .object(["path": .string("tweets/a"), "data": .object(["n": .integer(12)])]))
        #expect(lines[3].objectValue?["data"] == .object(["name": .string("é")]))
    }

    @Test func anEmptyStoreExportsNothing() async throws {
        #expect(try await export(env.makeStore()).isEmpty)
    }
}
