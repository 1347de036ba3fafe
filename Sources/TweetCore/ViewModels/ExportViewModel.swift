import FoundationEssentials
import Observation
import Synchronization
import TweetStore

/// Exporting the whole store as JSON Lines (a backup, a move to another engine, or the
/// benchmark's input for sqlite3), through any engine.
@MainActor @Observable
public final class ExportViewModel: ErrorRecording {
    public private(set) var didExport = false
    public private(set) var documents = 0
    /// How many photos the last export wrote.
    public private(set) var photos = 0
    public package(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Hands `output` every document but the sessions as lines of
    /// `{"data":{…},"path":"collection/id"}`, in path order, a few hundred kilobytes at a time,
    /// then each photo a tweet names as `{"blob":"<SHA-256>","data":"<base64>"}`; `progress` hears
    /// the documents written so far after each batch.
    public func export(
        to output: @escaping @Sendable ([UInt8]) throws -> Void, progress: @escaping ProgressHandler = { _ in }
    ) async throws {
        try await perform {
            let counted = Mutex(0)
            let named = Mutex(Set<String>())
            try await services.store.exportDocuments { batch in
                var bytes: [UInt8] = []
                var written = 0
                // Sessions say who is signed in on which device, not what the store holds: a
                // backup that carried them would sign its reader in as anyone in it.
                for document in batch where document.path.collection != Collections.sessions {
                    bytes += Self.line(document)
                    written += 1
                    if document.path.collection == Collections.tweets,
                        let images = TweetImage.list(document.data["images"])
                    {
                        named.withLock { $0.formUnion(images.flatMap(\.blobs)) }
                    } else if document.path.collection == Collections.users,
                        case .string(let avatar)? = document.data["avatar"], BlobAddress.isValid(avatar)
                    {
                        named.withLock { _ = $0.insert(avatar) }
                    }
                }
                try output(bytes)
                let done = counted.withLock {
                    $0 += written
                    return $0
                }
                progress(WorkProgress(done: done))
            }
            documents = counted.withLock { $0 }
            // Only photos a tweet names: one whose tweet is gone is not carried on. One missing
            // from the store is left out, and the import of this export names it.
            photos = 0
            for address in named.withLock({ $0 }).sorted() {
                guard let bytes = try await services.store.getBlob(address) else { continue }
                try output(Self.photoLine(address: address, bytes: bytes))
                photos += 1
            }
            didExport = true
        }
    }

    /// One document's line: escaped for a terminal too, since an export printed to one must not drive it.
    /// Writes one account's tweets as a twtxt feed (``Twtxt``): the signed-in user's, or `user`'s
    /// (`@username` or a uid), with `url` as where it will be published.
    /// - Throws: ``AuthError/notSignedIn`` without `user` and a session; ``UserError`` for no such user.
    public func exportTwtxt(
        user reference: String?, url: String?, to output: @escaping @Sendable ([UInt8]) throws -> Void
    ) async throws {
        try await perform {
            let user: User
            if let reference {
                user = try await services.users.fetchUser(matching: reference)
            } else {
                guard let me = try await services.auth.currentUser() else { throw AuthError.notSignedIn }
                user = me
            }
            try output(Array(Twtxt.header(nick: user.username, url: url ?? user.twtxtUrl).utf8))
            // A first pass finds whom the tweets mention; those who publish a feed are linked.
            var mentioned: Set<String> = []
            try await services.tweets.forEachTweet(ofUid: user.id) { page in
                mentioned.formUnion(Twtxt.mentionedUsernames(page))
            }
            var feeds: [String: String] = [:]
            for name in mentioned.sorted() {
                // A mention of nobody here (or of an unreadable user) stays as written.
                guard let other = try? await services.users.fetchUser(withUsername: name), let feed = other.twtxtUrl
                else { continue }
                feeds[name] = feed
            }
            let links = feeds
            var count = 0
            try await services.tweets.forEachTweet(ofUid: user.id) { page in
                try output(Array(page.map { Twtxt.line($0, linking: links) }.joined().utf8))
                count += page.count
            }
            documents = count
            didExport = true
        }
    }

    /// A photo's line: `{"blob":"<SHA-256>","data":"<base64>"}`.
    nonisolated static func photoLine(address: String, bytes: [UInt8]) -> [UInt8] {
        Array(#"{"blob":"\#(address)","data":"\#(Data(bytes).base64EncodedString())"}"#.utf8) + [0x0A]
    }

    public nonisolated static func line(_ document: DocumentSnapshot) -> [UInt8] {
        // `{"data":…,"path":…}`, as the object's serialization orders its keys, written directly.
        var json: [UInt8] = Array(#"{"data":"#.utf8)
        json.reserveCapacity(256)
        JSONValue.object(document.data).write(into: &json)
        json.append(contentsOf: #","path":"#.utf8)
        JSONValue.writeString(document.path.collection, slash: document.path.documentID, into: &json)
        json.append(UInt8(ascii: "}"))
        var line = JSONValue.escapingTerminalControls(json)
        line.append(0x0A)
        return line
    }
}
