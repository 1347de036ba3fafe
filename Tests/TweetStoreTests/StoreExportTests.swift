import Foundation
import Synchronization
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct StoreExportTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// Exports `store` into a file and returns its lines.
    private func export(_ store: any DocumentStore) async throws -> [JSONValue] {
        let path = env.path("export.jsonl")
        let written = Mutex<[UInt8]>([])
        try await store.exportDocuments { batch in
            written.withLock { bytes in for document in batch { bytes += ExportViewModel.line(document) } }
        }
        try Data(written.withLock { $0 }).write(to: URL(fileURLWithPath: path))
        let bytes = try env.bytes(of: path)
        #expect(bytes.isEmpty || bytes.last == 0x0A)
        return try bytes.split(separator: 0x0A).map { try JSONValue.parse($0) }
    }

    @Test func storedTerminalControlsAreEscapedInTheExportAndSurviveIt() async throws {
        let store = try env.makeStore()
        let hostile = "evil \u{9B}2J \u{202E}gnp.exe \u{1B}]0;x\u{07}"
        try await store.setData(["caption": .string(hostile)], at: DocumentPath(collection: "tweets", documentID: "a"))
        let lines = try await export(store)
        let raw = String(decoding: try env.bytes(of: env.path("export.jsonl")), as: UTF8.self)
        #expect(
            !raw.unicodeScalars.contains { $0.value < 0x0A || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
        #expect(lines.first == .object(["path": .string("tweets/a"), "data": .object(["caption": .string(hostile)])]))
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

    @Test(arguments: StoreLayout.allCases)
    func aMergeAddsWhatIsMissingAndLeavesWhatIsThereAsItIs(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout)
        let same = DocumentPath(collection: "tweets", documentID: "a")
        let differs = DocumentPath(collection: "tweets", documentID: "b")
        let new = DocumentPath(collection: "tweets", documentID: "c")
        let nested = DocumentPath(collection: "users/u/user-likes", documentID: "a")
        try await store.setData(["n": .integer(1)], at: same)
        try await store.setData(["n": .integer(2)], at: differs)
        let merged: [(DocumentPath, JSONObject)] = [
            (new, ["n": .integer(4)]), (differs, ["n": .integer(3)]), (same, ["n": .integer(1)]),
            (nested, ["tweetId": .string("a")]), (new, ["n": .integer(5)]),
        ]
        #expect(try await store.mergeDocuments(merged) == MergeReport(added: 2, unchanged: 1, conflicts: [differs]))
        #expect(try await store.getDocument(differs)?.data == ["n": .integer(2)], "a conflict is left as it was")
        #expect(try await store.getDocument(new)?.data == ["n": .integer(5)], "the later of two for one path")
        #expect(try await store.getDocument(nested)?.data == ["tweetId": .string("a")])
        // The same merge again adds nothing: everything is there, the conflict still is one.
        #expect(try await store.mergeDocuments(merged) == MergeReport(added: 0, unchanged: 3, conflicts: [differs]))
        let paths = try await export(store).map { $0.objectValue?["path"]?.stringValue }
        #expect(paths == ["tweets/a", "tweets/b", "tweets/c", "users/u/user-likes/a"])
    }

    @Test func anEmptyStoreExportsNothing() async throws {
        #expect(try await export(env.makeStore()).isEmpty)
    }
}

struct TerminalSafeJSONTests {
    @Test func controlsATerminalWouldActOnAreEscapedAndDecodeToTheSameText() throws {
        let text = "csi \u{9B}2J del \u{7F} rlo \u{202E} lri \u{2066} ls \u{2028} ok é 日本 👋"
        let json = JSONValue.object(["s": .string(text)]).serialized()
        let escaped = JSONValue.escapingTerminalControls(json)
        let output = String(decoding: escaped, as: UTF8.self)
        #expect(output.contains("\\u009b") && output.contains("\\u007f") && output.contains("\\u202e"))
        #expect(output.contains("\\u2066") && output.contains("\\u2028"))
        #expect(!output.unicodeScalars.contains { [0x9B, 0x7F, 0x202E, 0x2066, 0x2028].contains($0.value) })
        #expect(try JSONValue.parse(escaped) == .object(["s": .string(text)]))
        let plain = JSONValue.object(["s": .string("nothing to escape: é 日本 👋")]).serialized()
        #expect(JSONValue.escapingTerminalControls(plain) == plain)
    }
}
