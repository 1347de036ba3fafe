import FoundationEssentials
import TweetStore
import TwitterText

/// Blocks and mutes, as Twitter has them. A block ends follows both ways and keeps the two
/// accounts apart: neither sees the other's tweets, and the blocked one cannot follow, reply,
/// quote, like, retweet or notify. A mute only hides, and only from the one who mutes; the muted
/// account is never told.
public final class SafetyService: Sendable {
    let store: any DocumentStore
    let auth: AuthService
    let users: UserService

    public init(store: any DocumentStore, auth: AuthService, users: UserService) {
        self.store = store
        self.auth = auth
        self.users = users
    }

    /// The signed-in user's filters; none when signed out.
    public func viewerFilters() async throws -> ViewerFilters {
        guard let me = try await auth.currentUid() else { return ViewerFilters() }
        return ViewerFilters(fields: try await store.getDocument(ViewerFilters.path(of: me))?.data)
    }

    // MARK: Blocks

    /// The signed-in user blocks `uid`: the block is kept on both sides, and the follows between
    /// them end, with their counters, in the same transaction.
    /// - Returns: Whether anything changed (`false` when `uid` was blocked already).
    /// - Throws: ``UserError/notFound(_:)``, ``SafetyError/cannotBlockSelf``,
    ///   ``SafetyError/tooMany(_:limit:)``.
    @discardableResult
    public func block(uid: String) async throws -> Bool {
        let me = try await auth.requireUid()
        // Whatever happens next, the filters the session check read may be out of date.
        auth.forgetCheckedDocuments()
        guard me != uid else { throw SafetyError.cannotBlockSelf }
        let store = store
        return try await store.runTransaction { transaction in
            guard try await transaction.getDocument(DocumentPath(collection: Collections.users, documentID: uid)) != nil
            else { throw UserError.notFound(uid) }
            var mine = ViewerFilters(fields: try await transaction.getDocument(ViewerFilters.path(of: me))?.data)
            guard mine.blocking[uid] == nil else { return false }
            guard mine.blocking.count < ViewerFilters.maximumAccounts else {
                throw SafetyError.tooMany("blocked accounts", limit: ViewerFilters.maximumAccounts)
            }
            var theirs = ViewerFilters(fields: try await transaction.getDocument(ViewerFilters.path(of: uid))?.data)
            mine.blocking[uid] = transaction.time
            theirs.blockedBy[me] = transaction.time
            Self.write(mine, of: me, in: transaction)
            Self.write(theirs, of: uid, in: transaction)
            try await UserService.endFollows(between: me, and: uid, in: transaction, store: store)
            return true
        }
    }

    /// The signed-in user unblocks `uid`. Follows that the block ended stay ended.
    /// - Returns: Whether anything changed (`false` when `uid` was not blocked).
    @discardableResult
    public func unblock(uid: String) async throws -> Bool {
        let me = try await auth.requireUid()
        // Whatever happens next, the filters the session check read may be out of date.
        auth.forgetCheckedDocuments()
        return try await store.runTransaction { transaction in
            var mine = ViewerFilters(fields: try await transaction.getDocument(ViewerFilters.path(of: me))?.data)
            guard mine.blocking.removeValue(forKey: uid) != nil else { return false }
            var theirs = ViewerFilters(fields: try await transaction.getDocument(ViewerFilters.path(of: uid))?.data)
            theirs.blockedBy.removeValue(forKey: me)
            Self.write(mine, of: me, in: transaction)
            Self.write(theirs, of: uid, in: transaction)
            return true
        }
    }

    // MARK: Mutes

    /// What a mute names: an account, or words and hashtags as a search matches them.
    public enum MuteTarget: Sendable, Equatable {
        case user(String)
        case words(String)
    }

    /// The signed-in user mutes `target`, until `duration` seconds from now or for good (`nil`).
    /// Muting again replaces the time.
    /// - Returns: Whether anything changed.
    /// - Throws: ``UserError/notFound(_:)``, ``SafetyError``, ``SearchError`` for words with nothing
    ///   to match.
    @discardableResult
    public func mute(_ target: MuteTarget, for duration: TimeInterval? = nil) async throws -> Bool {
        let me = try await auth.requireUid()
        // Whatever happens next, the filters the session check read may be out of date.
        auth.forgetCheckedDocuments()
        let key = try Self.key(of: target, me: me)
        return try await store.runTransaction { transaction in
            var mine = ViewerFilters(fields: try await transaction.getDocument(ViewerFilters.path(of: me))?.data)
            let until = duration.map { transaction.time.addingTimeInterval($0) }
            switch target {
            case .user(let uid):
                guard
                    try await transaction.getDocument(DocumentPath(collection: Collections.users, documentID: uid))
                        != nil
                else { throw UserError.notFound(uid) }
                if let old = mine.mutedUsers[uid], old.isActive(at: transaction.time), old.until == until {
                    return false
                }
                guard mine.mutedUsers[uid] != nil || mine.mutedUsers.count < ViewerFilters.maximumAccounts else {
                    throw SafetyError.tooMany("muted accounts", limit: ViewerFilters.maximumAccounts)
                }
                mine.mutedUsers[uid] = .init(since: transaction.time, until: until)
            case .words(let text):
                if let old = mine.mutedTerms[key], old.isActive(at: transaction.time), old.until == until {
                    return false
                }
                guard mine.mutedTerms[key] != nil || mine.mutedTerms.count < ViewerFilters.maximumTerms else {
                    throw SafetyError.tooMany("muted words", limit: ViewerFilters.maximumTerms)
                }
                mine.mutedTerms[key] = .init(since: transaction.time, until: until, text: text)
            }
            Self.write(mine, of: me, in: transaction)
            return true
        }
    }

    /// The signed-in user unmutes `target`.
    /// - Returns: Whether anything changed (`false` when it was not muted).
    @discardableResult
    public func unmute(_ target: MuteTarget) async throws -> Bool {
        let me = try await auth.requireUid()
        // Whatever happens next, the filters the session check read may be out of date.
        auth.forgetCheckedDocuments()
        let key = try Self.key(of: target, me: me)
        return try await store.runTransaction { transaction in
            var mine = ViewerFilters(fields: try await transaction.getDocument(ViewerFilters.path(of: me))?.data)
            let removed: Bool
            switch target {
            case .user(let uid): removed = mine.mutedUsers.removeValue(forKey: uid) != nil
            case .words: removed = mine.mutedTerms.removeValue(forKey: key) != nil
            }
            guard removed else { return false }
            Self.write(mine, of: me, in: transaction)
            return true
        }
    }

    /// The key a mute is kept under: the uid, or the words' search terms joined by spaces.
    static func key(of target: MuteTarget, me: String) throws -> String {
        switch target {
        case .user(let uid):
            guard uid != me else { throw SafetyError.cannotMuteSelf }
            return uid
        case .words(let text):
            let query = try SearchQuery(text)
            guard query.author == nil else { throw SafetyError.mutedAuthorFilter }
            return query.terms.joined(separator: " ")
        }
    }

    // MARK: What a block refuses

    /// Checks, inside `transaction`, that `actor` may reach `owner` (follow them, reply to, quote,
    /// like, retweet or bookmark their tweet): neither blocks the other. Reads the actor's own
    /// filters, which hold both directions.
    /// - Returns: The actor's filters, for further checks in the same transaction.
    /// - Throws: ``SafetyError/youBlocked(username:)`` or ``SafetyError/blockedYou(username:)``.
    @discardableResult
    static func requireReachable(_ owner: String, by actor: String, in transaction: Transaction) async throws
        -> ViewerFilters
    {
        let filters = ViewerFilters(fields: try await transaction.getDocument(ViewerFilters.path(of: actor))?.data)
        guard owner != actor, filters.isBlocked(owner) else { return filters }
        // Only now is the name read: the error says who, and the check costs one read otherwise.
        let user = try await transaction.getDocument(DocumentPath(collection: Collections.users, documentID: owner))
        throw filters.blockError(owner, username: user?.data["username"]?.stringValue ?? owner)
    }

    // MARK: Lists

    /// A blocked or muted account, with when and (for a mute) until when; `user` is `nil` when the
    /// account is gone.
    public struct ListedAccount: Sendable, Equatable {
        public var uid: String
        public var user: User?
        public var since: Date
        public var until: Date?
    }

    /// The accounts the signed-in user blocks, the newest block first.
    public func blockedAccounts() async throws -> [ListedAccount] {
        let filters = try await viewerFilters()
        let entries = filters.blocking.all.map { ($0.key, $0.value, Date?.none) }
        return try await listed(entries)
    }

    /// The signed-in user's active mutes: accounts (the newest first), then words.
    public func mutes(now: Date = Date()) async throws -> (
        accounts: [ListedAccount], words: [(String, ViewerFilters.Mute)]
    ) {
        let filters = try await viewerFilters()
        let accounts = filters.mutedUsers.all.filter { $0.value.isActive(at: now) }.map {
            ($0.key, $0.value.since, $0.value.until)
        }
        let words = filters.mutedTerms.filter { $0.value.isActive(at: now) }
            .map { ($0.value.text ?? $0.key, $0.value) }
            .sorted { $0.1.since != $1.1.since ? $0.1.since > $1.1.since : $0.0 < $1.0 }
        return (try await listed(accounts), words)
    }

    private func listed(_ entries: [(String, Date, Date?)]) async throws -> [ListedAccount] {
        let found = try await users.fetchUsers(withUids: entries.map(\.0))
        return entries.map { ListedAccount(uid: $0.0, user: found[$0.0], since: $0.1, until: $0.2) }
            .sorted { $0.since != $1.since ? $0.since > $1.since : $0.uid < $1.uid }
    }

    private static func write(_ filters: ViewerFilters, of uid: String, in transaction: Transaction) {
        let path = ViewerFilters.path(of: uid)
        if let fields = filters.fields {
            transaction.setData(fields, at: path)
        } else {
            transaction.deleteDocument(path)
        }
    }
}

/// What can be wrong with a block or a mute, or what a block refuses.
public enum SafetyError: Error, Equatable, LocalizedError {
    case cannotBlockSelf
    case cannotMuteSelf
    /// `from:` in a muted phrase: a mute of an account is `mute @user`.
    case mutedAuthorFilter
    /// Past the most blocks or mutes one account may keep.
    case tooMany(String, limit: Int)
    /// The signed-in user blocks `username`: what they tried needs an unblock first.
    case youBlocked(username: String)
    /// `username` blocks the signed-in user.
    case blockedYou(username: String)

    public var errorDescription: String? {
        switch self {
        case .cannotBlockSelf: "you cannot block yourself"
        case .cannotMuteSelf: "you cannot mute yourself"
        case .mutedAuthorFilter: "a muted word cannot hold from:; mute an account with: mute @username"
        case .tooMany(let what, let limit): "you have \(limit) \(what) already, the most there can be"
        case .youBlocked(let username): "you blocked @\(username); unblock them first"
        case .blockedYou(let username): "@\(username) blocked you"
        }
    }
}
