import FoundationEssentials
import TweetStore
import TweetSystem

/// The services of one store, wired together: what every view model takes.
public struct AppServices: Sendable {
    public let store: any DocumentStore
    public let auth: AuthService
    public let users: UserService
    public let tweets: TweetService
    public let notifications: NotificationService
    /// The twtxt feeds the signed-in user follows.
    public let twtxt: TwtxtService
    /// Blocks and mutes.
    public let safety: SafetyService

    /// Wires services over `store`.
    public init(store: any DocumentStore, auth: AuthService, ids: IDGenerator = .random) {
        self.store = store
        self.auth = auth
        users = UserService(store: store, auth: auth)
        tweets = TweetService(store: store, auth: auth, users: users, ids: ids)
        notifications = NotificationService(store: store, auth: auth, users: users, tweets: tweets)
        twtxt = TwtxtService(store: store, auth: auth)
        safety = SafetyService(store: store, auth: auth, users: users)
    }

    /// Runs `body`, which only reads, as one view model's action: the signed-in user resolved once
    /// (``AuthService/withViewer(_:)``), and every read from one state of the store
    /// (``DocumentStore/withConsistentReads(_:)``).
    public func reading(_ body: () async throws -> Void) async throws {
        try await store.withConsistentReads { try await auth.withViewer(body) }
    }

    /// The indexes the services' queries need, as Firestore's `firestore.indexes.json` lists them.
    public static let indexes: [IndexDefinition] = [
        IndexDefinition(Collections.tweets, ["timestamp"], tagging: "uid"),  // the feed; the following feed of many
        IndexDefinition(Collections.tweets, ["uid", "timestamp"]),  // the following feed
        IndexDefinition(Collections.tweets, ["uid", "replyToId?", "timestamp"]),  // the Tweets and Replies tabs
        IndexDefinition(Collections.tweets, ["replyToId", "timestamp"]),  // a tweet's replies
        IndexDefinition(Collections.tweets, ["quoteId", "timestamp"]),  // a tweet's quotes
        IndexDefinition(Collections.userLikes, ["timestamp"]),  // the Likes tab
        IndexDefinition(Collections.userLikes, ["tweetId"], scope: .collectionGroup),  // a deleted tweet's likes
        IndexDefinition(Collections.retweets, ["timestamp"], tagging: "uid"),  // a following feed of many users
        IndexDefinition(Collections.retweets, ["uid", "timestamp"]),  // timelines with retweets
        IndexDefinition(Collections.retweets, ["tweetId", "timestamp"]),  // a tweet's retweets
        IndexDefinition(Collections.bookmarks, ["timestamp"]),  // the Bookmarks list
        IndexDefinition(Collections.bookmarks, ["tweetId"], scope: .collectionGroup),  // a deleted tweet's bookmarks
        IndexDefinition(Collections.notifications, ["timestamp"]),  // the bell
        IndexDefinition(Collections.followRequests, ["timestamp"]),  // a protected account's requests
        IndexDefinition(Collections.followRequests, ["uid"], scope: .collectionGroup),  // a leaving account's requests
        IndexDefinition(SearchIndex.buckets, ["start"]),  // search: a term's tweets, newest first
        IndexDefinition(Collections.users, ["username"]),  // sign-in, @username
        IndexDefinition(Collections.users, ["email"]),  // sign-in, unique emails
    ]

    /// One session file per store: `<state>/sessions/<hash of the store's path>.json`.
    public static func sessionPath(forStore directory: String, stateDirectory: String) -> String {
        statePath(forStore: directory, stateDirectory: stateDirectory, folder: "sessions", suffix: ".json")
    }

    /// One file per store in `folder` of the state directory: `<state>/<folder>/<hash><suffix>`,
    /// named as the session file is, so that two stores never share one.
    public static func statePath(forStore directory: String, stateDirectory: String, folder: String, suffix: String)
        -> String
    {
        // FNV-1a names the file; it only has to be stable, not secret.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in directory.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let name = String(hash, radix: 16)
        return PathName.join(
            PathName.join(stateDirectory, folder), String(repeating: "0", count: 16 - name.count) + name + suffix)
    }
}

/// Where tweetcli keeps things by default, from the XDG base directory variables.
public enum AppPaths {
    /// `--store`, else `TWEETCLI_STORE`, else `$XDG_DATA_HOME/tweetcli`, else `~/.local/share/tweetcli`.
    public static func storeDirectory(option: String?, environment: [String: String]) -> String {
        if let option, !option.isEmpty { return option }
        if let path = environment["TWEETCLI_STORE"], !path.isEmpty { return path }
        return PathName.join(base("XDG_DATA_HOME", fallback: ".local/share", environment), "tweetcli")
    }

    /// `$XDG_STATE_HOME/tweetcli`, else `~/.local/state/tweetcli`.
    public static func stateDirectory(environment: [String: String]) -> String {
        PathName.join(base("XDG_STATE_HOME", fallback: ".local/state", environment), "tweetcli")
    }

    /// `$XDG_CACHE_HOME/tweetcli`, else `~/.cache/tweetcli`: fetched twtxt feeds.
    public static func cacheDirectory(environment: [String: String]) -> String {
        PathName.join(base("XDG_CACHE_HOME", fallback: ".cache", environment), "tweetcli")
    }

    private static func base(_ variable: String, fallback: String, _ environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return PathName.join(home, fallback)
    }
}
