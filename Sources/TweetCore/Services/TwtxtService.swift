import FoundationEssentials
import TweetStore
import TwitterText

/// A twtxt feed someone follows: where it is, and the nick its entries show under.
public struct TwtxtFollow: Codable, Equatable, Sendable {
    /// An `http(s)://` address, or a `file://` URL of a local file.
    public var url: String
    public var nick: String
    public var followed: Date
    /// For a local file, the proof that this device's user followed it (see ``DeviceKey``).
    var device: String?
}

/// A followed feed `feed --following` does not read, and why.
public struct SkippedTwtxtFollow: Equatable, Sendable {
    public var url: String
    public var reason: String
}

/// Reads a followed twtxt feed: a local file, or a fetch over http(s) through a cache. The
/// command line provides it (network and cache are the program's, not the library's).
public protocol TwtxtFeedLoader: Sendable {
    /// The feed at `url`, its entries under `nick` when it names none.
    /// - Throws: an error whose description is one sentence a user can act on.
    func load(_ url: String, nick: String) async throws -> TwtxtFeed
}

/// The twtxt feeds the signed-in user follows, kept at `users/{uid}/twtxt-following/{key}`,
/// private to them like their bookmarks.
public final class TwtxtService: Sendable {
    let store: any DocumentStore
    let auth: AuthService

    /// The most feeds one account follows: each is read on every `feed --following`.
    public static let maximumFollows = 100

    /// The device's secret, which proves a local feed was followed here.
    let deviceKey: DeviceKey

    init(store: any DocumentStore, auth: AuthService) {
        self.store = store
        self.auth = auth
        deviceKey = DeviceKey(besideSession: auth.session.path)
    }

    /// Why `url` is not an address a feed may be followed at, or `nil` when it is: an http(s)
    /// address with a host, or a `file://` URL of an absolute path, one line of visible text of at
    /// most 2,000 bytes. `follow --twtxt` makes its addresses this way; a stored one is checked
    /// again before it is read, since anyone may have written the store.
    public static func problem(withURL url: String) -> String? {
        let lowered = url.lowercased()
        guard url.utf8.count <= 2000, TextRules.forbiddenCharacter(in: url, multiline: false) == nil,
            let parsed = URL(string: url)
        else { return "it is not a web address" }
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            return parsed.host?.isEmpty == false ? nil : "it is not a web address"
        }
        if lowered.hasPrefix("file://") {
            return parsed.isFileURL && parsed.path.hasPrefix("/") ? nil : "it is not a file URL"
        }
        return "only http, https and local files are followed"
    }

    /// A feed's document ID: FNV-1a of its address (stable, not secret; the address is stored too).
    static func key(_ url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// An http(s) address as `follow --twtxt` keeps it (at most 2,000 bytes, a host, no control
    /// characters), or `nil` for anything else: a local file is followed only by naming it here.
    public static func webAddress(_ source: String) -> String? {
        let lowered = source.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), source.utf8.count <= 2000,
            let url = URL(string: source), url.host?.isEmpty == false,
            TextRules.forbiddenCharacter(in: source, multiline: false) == nil
        else { return nil }
        return url.absoluteString
    }

    /// The file a fetched copy of the feed at `url` is cached in.
    public static func cacheName(_ url: String) -> String { key(url) + ".txt" }

    /// The signed-in user's feeds, by nick. Documents that are not a feed are left out.
    public func follows() async throws -> [TwtxtFollow] {
        let me = try await auth.requireUid()
        let documents = try await Self.followsQuery(of: me, in: store).getDocuments()
        // A damaged document is left out rather than failing every feed --following.
        return documents.compactMap { try? $0.data(as: TwtxtFollow.self) }.sorted {
            ($0.nick.lowercased(), $0.url) < ($1.nick.lowercased(), $1.url)
        }
    }

    /// The documents of `uid`'s followed feeds, as ``follows()`` reads them.
    private static func followsQuery(of uid: String, in store: any DocumentStore) -> Query {
        store.collection(Collections.twtxtFollowing(of: uid)).query.limit(to: maximumFollows)
    }

    /// Says that the signed-in account's ``followsToRead()`` comes next: on a server, its follows
    /// are read with the session check, in the same round trip.
    public func prefetchFollows() {
        guard store.readsAreRoundTrips else { return }
        let store = store
        auth.prefetchWithNextCheck { uid in await store.prefetch(Self.followsQuery(of: uid, in: store)) }
    }

    /// The feeds `feed --following` reads, and those it skips: a document whose address fails
    /// ``problem(withURL:)``, or a local file this device's user did not follow here (a follow
    /// someone merged into the store must never make this device read a file they chose).
    public func followsToRead() async throws -> (readable: [TwtxtFollow], skipped: [SkippedTwtxtFollow]) {
        let me = try await auth.requireUid()
        var readable: [TwtxtFollow] = []
        var skipped: [SkippedTwtxtFollow] = []
        for follow in try await follows() {
            if let problem = Self.problem(withURL: follow.url) {
                skipped.append(SkippedTwtxtFollow(url: follow.url, reason: problem))
            } else if follow.url.lowercased().hasPrefix("file://"),
                try follow.device == nil || follow.device != deviceKey.proof(of: follow.url, for: me, creating: false)
            {
                skipped.append(
                    SkippedTwtxtFollow(url: follow.url, reason: "it is a local file not followed on this device"))
            } else {
                readable.append(follow)
            }
        }
        return (readable, skipped)
    }

    /// Follows the feed at `url` as `nick`.
    /// - Returns: whether it was not followed before.
    /// - Throws: ``TwtxtError/tooManyFeeds``, ``AuthError/notSignedIn``.
    @discardableResult
    public func follow(url: String, nick: String) async throws -> Bool {
        let me = try await auth.requireUid()
        let collection = store.collection(Collections.twtxtFollowing(of: me))
        let path = collection.document(Self.key(url))
        if let problem = Self.problem(withURL: url) { throw TwtxtError.badSource(url, reason: problem) }
        // A local file is followed with this device's proof: read only here, and only as chosen here.
        let proof =
            url.lowercased().hasPrefix("file://") ? try deviceKey.proof(of: url, for: me, creating: true) : nil
        return try await store.runTransaction { transaction in
            if let existing = try await transaction.getDocument(path) {
                // Two addresses with one key (FNV-1a is no secret, nor collision-free): the one
                // followed first keeps it, and this one is refused rather than taken for it.
                guard existing.data["url"]?.stringValue == url else {
                    throw TwtxtError.badSource(
                        url, reason: "its key is another followed feed's; unfollow that one first")
                }
                // Following again on this device proves a local follow made elsewhere or before.
                guard let proof, existing.data["device"]?.stringValue != proof else { return false }
                var fields = existing.data
                fields["device"] = .string(proof)
                transaction.setData(fields, at: path)
                return true
            }
            guard
                try await transaction.getDocuments(collection.query.limit(to: Self.maximumFollows)).count
                    < Self.maximumFollows
            else { throw TwtxtError.tooManyFeeds(Self.maximumFollows) }
            var fields: JSONObject = [
                "url": .string(url), "nick": .string(nick),
                "followed": .string(Timestamp.string(from: transaction.time)),
            ]
            if let proof { fields["device"] = .string(proof) }
            transaction.setData(fields, at: path)
            return true
        }
    }

    /// Stops following the feed at `url`.
    /// - Returns: whether it was followed.
    @discardableResult
    public func unfollow(url: String) async throws -> Bool {
        let me = try await auth.requireUid()
        let path = store.collection(Collections.twtxtFollowing(of: me)).document(Self.key(url))
        return try await store.runTransaction { transaction in
            guard let existing = try await transaction.getDocument(path), existing.data["url"]?.stringValue == url
            else { return false }
            transaction.deleteDocument(path)
            return true
        }
    }
}

/// What can go wrong with twtxt feeds.
public enum TwtxtError: Error, Equatable, LocalizedError {
    /// The address is neither http(s) nor a readable local file.
    case badSource(String, reason: String)
    /// The feed could not be fetched or read.
    case unreachable(String, reason: String)
    /// The feed has not one entry tweetcli can read.
    case notAFeed(String, skipped: Int)
    case tooManyFeeds(Int)

    public var errorDescription: String? {
        switch self {
        case .badSource(let source, let reason): return "\(source) is not a twtxt feed to follow: \(reason)"
        case .unreachable(let url, let reason): return "cannot fetch the twtxt feed \(url): \(reason)"
        case .notAFeed(let url, let skipped):
            return "\(url) is not a twtxt feed: none of its \(skipped) lines is a time, a tab and a text"
        case .tooManyFeeds(let maximum): return "you follow \(maximum) twtxt feeds already, the most tweetcli reads"
        }
    }
}
