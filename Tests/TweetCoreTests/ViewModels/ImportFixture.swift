import Foundation
import Synchronization
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// A small store with one of each document the commands write, its export as lines, and ways to
/// import lines into a fresh store of any layout: what the import tests and the fuzzer start from.
@MainActor
struct ImportFixture {
    let env: TestEnvironment
    /// The store the export came from.
    let services: AppServices
    let ada: User
    let bob: User
    /// The export's lines, without their newlines.
    let lines: [String]

    init(_ layout: StoreLayout = .journal) async throws {
        env = try TestEnvironment()
        services = try env.makeServices(layout)
        bob = try await env.registerUser("bob", in: services)
        ada = try await env.registerUser("ada", in: services)  // signed in last: the session acts as ada
        let first = try await services.tweets.uploadTweet(caption: "Hello #swift, @bob https://example.org")
        _ = try await services.twtxt.follow(url: "https://example.org/twtxt.txt", nick: "someone")
        try await services.tweets.bookmark(id: first.id)
        try await env.signIn(bob, in: services)
        let reply = try await services.tweets.uploadTweet(caption: "Hi ada", replyTo: first.id)
        _ = try await services.tweets.uploadTweet(caption: "Quoting", quote: first.id)
        try await services.tweets.likeTweet(id: first.id)
        try await services.tweets.retweet(id: first.id)
        try await services.users.follow(uid: ada.id)
        try await env.signIn(ada, in: services)
        try await services.tweets.likeTweet(id: reply.id)
        lines = try await Self.export(services)
    }

    /// Every line of `services`' export.
    static func export(_ services: AppServices) async throws -> [String] {
        let written = Mutex<[UInt8]>([])
        try await ExportViewModel(services: services).export { chunk in written.withLock { $0 += chunk } }
        return String(decoding: written.withLock { $0 }, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Services over a new, empty store laid out as `layout`, in a directory of its own.
    func freshServices(_ layout: StoreLayout, name: String = "target") throws -> AppServices {
        try env.makeServices(store: env.makeStore(layout, directory: env.path(name)))
    }

    /// Imports `lines` into `services`' store as `import` does (streaming), or `--merge`.
    @discardableResult
    func importLines(_ lines: [String], into services: AppServices, merging: Bool = false) async throws -> Int {
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let model = ImportViewModel(services: services)
        if merging {
            try await model.importLines(bytes, source: "backup.jsonl", merging: true)
            return model.imported
        }
        let chunks = Mutex(
            Array(
                stride(from: 0, to: bytes.count, by: 4096).map { Array(bytes[$0..<min($0 + 4096, bytes.count)]) }
                    .reversed()))
        try await model.importLines(source: "backup.jsonl") { chunks.withLock { $0.popLast() } }
        return model.imported
    }

    /// The line of the document at `path`, as an object to edit.
    func document(_ path: String) throws -> JSONObject {
        guard let line = lines.first(where: { $0.hasSuffix("\"path\":\"\(path)\"}") }),
            case .object(let object) = try JSONValue.parse(Array(line.utf8)), case .object(let data)? = object["data"]
        else { throw FixtureError.noSuchDocument(path) }
        return data
    }

    /// An export line for `data` at `path`.
    static func line(_ path: String, _ data: JSONObject) -> String {
        String(decoding: JSONValue.object(["data": .object(data), "path": .string(path)]).serialized(), as: UTF8.self)
    }

    /// The lines with the document at `path` replaced by `data`.
    func replacing(_ path: String, with data: JSONObject) -> [String] {
        lines.map { $0.hasSuffix("\"path\":\"\(path)\"}") ? Self.line(path, data) : $0 }
    }

    enum FixtureError: Error { case noSuchDocument(String) }
}

/// The invariants a store keeps whatever was imported into it: what ``StoreAudit`` checks, every
/// account found by its own username only, and no session sign-in did not make.
@MainActor
func expectImportInvariants(_ services: AppServices) async throws -> [String] {
    var problems: [String] = []
    let audit = StoreAudit(store: services.store)
    problems += try await audit.check().map(\.description)
    let users = try await services.store.collection(Collections.users).query.getDocuments()
    for user in users {
        guard case .string(let name)? = user.data["username"] else { continue }
        let found = try await services.store.collection(Collections.users)
            .whereField("username", isEqualTo: .string(name.lowercased())).getDocuments()
        if found.map(\.documentID) != [user.documentID] {
            problems.append("@\(name) signs in as \(found.count) accounts")
        }
    }
    let sessions = try await services.store.collection(Collections.sessions).query.getDocuments()
    if !sessions.isEmpty { problems.append("\(sessions.count) sessions nobody signed in to") }
    return problems
}
