import FoundationEssentials
import TweetStore

/// Where the signed-in user stands with another account: following it, waiting for a protected
/// account to answer a request, or neither.
public enum FollowStatus: String, Codable, Sendable {
    case none, requested, following
}

/// What `follow` or `unfollow` did: the status before and after.
public struct FollowChange: Equatable, Sendable {
    public var before: FollowStatus
    public var after: FollowStatus

    /// Whether anything changed (following twice does not).
    public var changed: Bool { before != after }
}

/// A request to follow the signed-in user's protected account.
public struct FollowRequest: Equatable, Sendable {
    public var uid: String
    /// The account that asked; `nil` when it is gone.
    public var user: User?
    public var time: Date
}

/// Protected accounts, as Twitter has them: only the account and its approved followers see its
/// tweets, a follow becomes a request the owner approves or denies, and its tweets cannot be
/// retweeted or quoted.
extension UserService {
    // MARK: Following

    /// The signed-in user follows `uid`; when `uid` is protected, asks to instead, which notifies
    /// them. Asking or following twice changes nothing.
    /// - Throws: ``UserError/notFound(_:)``, ``UserError/cannotFollowSelf``, ``SafetyError``.
    @discardableResult
    public func follow(uid: String) async throws -> FollowChange {
        let me = try await auth.requireUid()
        guard me != uid else { throw UserError.cannotFollowSelf }
        let store = store
        return try await store.runTransaction { transaction in
            guard let target = try await transaction.getDocument(Self.userPath(uid)), !Self.isLeaving(target) else {
                throw UserError.notFound(uid)
            }
            if try await transaction.getDocument(Self.followingPath(of: me, uid)) != nil {
                return FollowChange(before: .following, after: .following)
            }
            try await SafetyService.requireReachable(uid, by: me, in: transaction)
            let request = Self.requestPath(to: uid, from: me)
            let pending = try await transaction.getDocument(request) != nil
            guard target.data["protected"] == .bool(true) else {
                // Public now: a request left from when it was protected is taken as the follow.
                if pending { transaction.deleteDocument(request) }
                try await Self.writeFollow(me, follows: uid, notifying: true, in: transaction, store: store)
                return FollowChange(before: pending ? .requested : .none, after: .following)
            }
            guard !pending else { return FollowChange(before: .requested, after: .requested) }
            // The requester's uid is kept too: deleting their account finds their requests by it.
            transaction.setData(
                ["timestamp": .string(Timestamp.string(from: transaction.time)), "uid": .string(me)], at: request)
            var notifications = NotificationBatch()
            notifications.notify(uid, .request, from: me, tweetID: nil)
            try await notifications.apply(in: transaction, store: store)
            return FollowChange(before: .none, after: .requested)
        }
    }

    /// The signed-in user stops following `uid`, or withdraws their request to follow it.
    @discardableResult
    public func unfollow(uid: String) async throws -> FollowChange {
        let me = try await auth.requireUid()
        guard me != uid else { throw UserError.cannotFollowSelf }
        let store = store
        return try await store.runTransaction { transaction in
            guard try await transaction.getDocument(Self.userPath(uid)) != nil else { throw UserError.notFound(uid) }
            if try await transaction.getDocument(Self.followingPath(of: me, uid)) != nil {
                try await Self.removeFollow(me, follows: uid, in: transaction, store: store)
                return FollowChange(before: .following, after: .none)
            }
            guard try await Self.removeRequest(to: uid, from: me, in: transaction, store: store) else {
                return FollowChange(before: .none, after: .none)
            }
            return FollowChange(before: .requested, after: .none)
        }
    }

    /// Where the signed-in user stands with `uid`.
    public func followStatus(of uid: String) async throws -> FollowStatus {
        guard let me = try await auth.currentUid(), me != uid else { return .none }
        let found = try await store.getDocuments([Self.followingPath(of: me, uid), Self.requestPath(to: uid, from: me)])
        if found.contains(where: { $0.path.collection == Collections.following(of: me) }) { return .following }
        return found.isEmpty ? .none : .requested
    }

    // MARK: Requests

    /// The requests to follow the signed-in user, the newest first.
    /// - Parameter before: the uid of the last request of the previous page.
    public func followRequests(limit: Int = 20, before: String? = nil) async throws -> [FollowRequest] {
        let me = try await auth.requireUid()
        let requests = store.collection(Collections.followRequests(of: me))
        var query = requests.order(by: "timestamp", descending: true).limit(to: limit)
        if let before {
            guard let cursor = try await store.getDocument(requests.document(before)) else {
                throw ProtectionError.noRequest(before)
            }
            query = query.start(after: cursor)
        }
        let page = try await query.getDocuments()
        let found = try await fetchUsers(withUids: page.map(\.documentID))
        return page.map { request in
            FollowRequest(
                uid: request.documentID, user: found[request.documentID],
                time: request.data["timestamp"]?.stringValue.flatMap(Timestamp.date(from:)) ?? .distantPast)
        }
    }

    /// Approves `uid`'s request to follow the signed-in user: they follow now.
    /// - Throws: ``ProtectionError/noRequest(_:)`` when they did not ask.
    public func approveRequest(from uid: String) async throws {
        let me = try await auth.requireUid()
        let store = store
        try await store.runTransaction { transaction in
            guard try await Self.removeRequest(to: me, from: uid, in: transaction, store: store) else {
                throw ProtectionError.noRequest(uid)
            }
            // The account may be gone since it asked, or going: then there is no one to follow.
            guard let user = try await transaction.getDocument(Self.userPath(uid)), !Self.isLeaving(user) else {
                return
            }
            if try await transaction.getDocument(Self.followingPath(of: uid, me)) == nil {
                // The owner approved it: telling them that someone followed would say it twice.
                try await Self.writeFollow(uid, follows: me, notifying: false, in: transaction, store: store)
            }
        }
    }

    /// Denies `uid`'s request to follow the signed-in user; they are not told.
    /// - Throws: ``ProtectionError/noRequest(_:)`` when they did not ask.
    public func denyRequest(from uid: String) async throws {
        let me = try await auth.requireUid()
        let store = store
        try await store.runTransaction { transaction in
            guard try await Self.removeRequest(to: me, from: uid, in: transaction, store: store) else {
                throw ProtectionError.noRequest(uid)
            }
        }
    }

    /// Makes the signed-in user's account protected, or public. Made public, every request waiting
    /// is approved, as Twitter does, a bounded batch per transaction: an interruption leaves the
    /// rest waiting, and running it again approves them.
    /// - Returns: Whether the flag changed.
    @discardableResult
    public func setProtected(_ on: Bool) async throws -> Bool {
        let me = try await auth.requireUid()
        let path = Self.userPath(me)
        let store = store
        let changed = try await store.runTransaction { transaction in
            guard let user = try await transaction.getDocument(path) else { throw UserError.notFound(me) }
            guard (user.data["protected"] == .bool(true)) != on else { return false }
            transaction.updateData(["protected": .value(.bool(on))], at: path)
            return true
        }
        guard !on else { return changed }
        let requests = store.collection(Collections.followRequests(of: me))
        while true {
            let approved = try await store.runTransaction { transaction in
                // The flag is read again: protected once more since, the rest wait for an answer.
                guard try await transaction.getDocument(path)?.data["protected"] != .bool(true) else { return 0 }
                let batch = try await transaction.getDocuments(
                    requests.order(by: "timestamp").limit(to: Self.requestsApprovedAtOnce))
                for request in batch {
                    let uid = request.documentID
                    _ = try await Self.removeRequest(to: me, from: uid, in: transaction, store: store)
                    guard let user = try await transaction.getDocument(Self.userPath(uid)), !Self.isLeaving(user),
                        try await transaction.getDocument(Self.followingPath(of: uid, me)) == nil
                    else { continue }
                    try await Self.writeFollow(uid, follows: me, notifying: false, in: transaction, store: store)
                }
                return batch.count
            }
            if approved < Self.requestsApprovedAtOnce { return changed }
        }
    }

    static let requestsApprovedAtOnce = 200

    // MARK: The documents

    /// Whether a user document is of an account being deleted (``AccountDeletion``): nothing new
    /// reaches it.
    static func isLeaving(_ user: DocumentSnapshot?) -> Bool {
        user?.data["leaving"] == .bool(true)
    }

    static func userPath(_ uid: String) -> DocumentPath {
        DocumentPath(collection: Collections.users, documentID: uid)
    }

    /// `following/{follower}/user-following/{followed}`.
    static func followingPath(of follower: String, _ followed: String) -> DocumentPath {
        DocumentPath(collection: Collections.following(of: follower), documentID: followed)
    }

    /// `users/{owner}/follow-requests/{requester}`.
    static func requestPath(to owner: String, from requester: String) -> DocumentPath {
        DocumentPath(collection: Collections.followRequests(of: owner), documentID: requester)
    }

    /// Writes `follower`'s follow of `followed` in `transaction`: both documents, both counters,
    /// the following list and, when `notifying`, the followed user's notification.
    static func writeFollow(
        _ follower: String, follows followed: String, notifying: Bool, in transaction: Transaction,
        store: any DocumentStore
    ) async throws {
        let stamp = JSONValue.string(Timestamp.string(from: transaction.time))
        transaction.setData(["timestamp": stamp], at: followingPath(of: follower, followed))
        transaction.setData(["timestamp": stamp], at: followerPath(of: followed, by: follower))
        let stats = try await StatsCounter.add(1, to: \.following, of: follower, in: transaction, store: store)
        try await StatsCounter.add(1, to: \.followers, of: followed, in: transaction, store: store)
        try await FollowingList.record(follower, follows: followed, true, stats: stats, in: transaction, store: store)
        if notifying {
            var notifications = NotificationBatch()
            notifications.notify(followed, .follow, from: follower, tweetID: nil)
            try await notifications.apply(in: transaction, store: store)
        }
    }

    /// Removes `follower`'s follow of `followed` in `transaction`, with what ``writeFollow`` wrote.
    static func removeFollow(
        _ follower: String, follows followed: String, in transaction: Transaction, store: any DocumentStore
    ) async throws {
        transaction.deleteDocument(followingPath(of: follower, followed))
        transaction.deleteDocument(followerPath(of: followed, by: follower))
        let stats = try await StatsCounter.add(-1, to: \.following, of: follower, in: transaction, store: store)
        try await StatsCounter.add(-1, to: \.followers, of: followed, in: transaction, store: store)
        try await FollowingList.record(follower, follows: followed, false, stats: stats, in: transaction, store: store)
        var notifications = NotificationBatch()
        notifications.withdraw(followed, .follow, from: follower, tweetID: nil)
        try await notifications.apply(in: transaction, store: store)
    }

    /// Removes `requester`'s request to follow `owner`, and its notification, if there is one.
    /// - Returns: Whether there was one.
    static func removeRequest(
        to owner: String, from requester: String, in transaction: Transaction, store: any DocumentStore
    ) async throws -> Bool {
        let path = requestPath(to: owner, from: requester)
        guard try await transaction.getDocument(path) != nil else { return false }
        transaction.deleteDocument(path)
        var notifications = NotificationBatch()
        notifications.withdraw(owner, .request, from: requester, tweetID: nil)
        try await notifications.apply(in: transaction, store: store)
        return true
    }

    // MARK: Who sees what

    /// Of `authors`, those whose tweets `viewer` may not see: protected accounts that are not the
    /// viewer and that the viewer does not follow (signed out, every protected account). Public
    /// authors cost nothing; the follows of protected ones are read in one batch.
    func hiddenProtected(_ authors: some Sequence<User>, viewer: String?) async throws -> Set<String> {
        let protected = Set(authors.lazy.filter { $0.isProtected && $0.id != viewer }.map(\.id))
        guard !protected.isEmpty else { return [] }
        guard let viewer else { return protected }
        let followed = try await store.getDocuments(protected.map { Self.followingPath(of: viewer, $0) })
        return protected.subtracting(followed.map(\.documentID))
    }

    /// Checks, inside `transaction`, that `actor` may see the tweets of `owner` (whose user
    /// document is `user`): a public account, the actor themselves, or one the actor follows.
    /// - Throws: ``ProtectionError/protected(username:)``.
    static func requireVisible(_ user: DocumentSnapshot?, to actor: String, in transaction: Transaction) async throws {
        guard let user, user.data["protected"] == .bool(true), user.documentID != actor else { return }
        guard try await transaction.getDocument(followingPath(of: actor, user.documentID)) == nil else { return }
        throw ProtectionError.protected(username: user.data["username"]?.stringValue ?? user.documentID)
    }
}

/// What a protected account refuses, or what is wrong with a request to follow one.
public enum ProtectionError: Error, Equatable, LocalizedError {
    /// `username` is protected, and the signed-in user is not an approved follower.
    case protected(username: String)
    /// Tweets of a protected account cannot be retweeted or quoted, by anyone.
    case cannotShare(username: String)
    /// The account named has no request waiting to follow the signed-in user.
    case noRequest(String)

    public var errorDescription: String? {
        switch self {
        case .protected(let username):
            "@\(username)'s tweets are protected; only the followers @\(username) approves see them"
        case .cannotShare(let username):
            "@\(username)'s tweets are protected, so they cannot be retweeted or quoted"
        case .noRequest(let name): "\(name) has not asked to follow you"
        }
    }
}
