import FoundationEssentials
import TweetStore

/// What deleting an account removed.
public struct AccountDeletionReport: Codable, Equatable, Sendable {
    public var tweets = 0
    public var retweets = 0
    public var likes = 0
    public var bookmarks = 0
    /// Follows either way, and requests to follow either way.
    public var follows = 0
    public var notifications = 0

    public init() {}
}

/// Leaving, as Twitter's account deactivation ends: the signed-in account and everything it made
/// or did are removed, and every counter and notification elsewhere is corrected as if each thing
/// had been taken back by hand.
///
/// It runs as many small transactions, each of which leaves the store consistent: the account is
/// first marked as leaving (nobody can follow, like, reply to or mention it from then on), then its
/// tweets, retweets, likes, bookmarks, follows, requests, blocks and notifications go a batch at a
/// time, and last the account itself, its password and its sessions. Interrupted, the account is
/// still there with what is left, and running it again goes on from there.
public struct AccountDeletion: Sendable {
    /// What is being removed, for a progress line.
    public enum Step: String, Sendable {
        case tweets, retweets, likes, bookmarks, follows, notifications, account
    }

    let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    private var store: any DocumentStore { services.store }

    /// Deletes the signed-in account, given its password.
    /// - Parameter progress: told each step and how many things it removed so far.
    /// - Throws: ``AuthError/wrongPassword`` (and nothing is changed), or what the store throws.
    public func run(password: String, progress: (@Sendable (Step, Int) -> Void)? = nil) async throws
        -> AccountDeletionReport
    {
        let me = try await services.auth.requireUid()
        try await services.auth.verifyPassword(password)
        let userPath = UserService.userPath(me)
        try await store.runTransaction { transaction in
            guard try await transaction.getDocument(userPath) != nil else { throw UserError.notFound(me) }
            transaction.updateData(["leaving": .value(.bool(true))], at: userPath)
        }
        var report = AccountDeletionReport()
        let tweets = store.collection(Collections.tweets)
        // Each of these lists what is left a batch at a time, and takes it back as its command
        // would: what one batch took is gone from the next list.
        report.tweets = try await drain(
            tweets.whereField("uid", isEqualTo: .string(me)).select([]), step: .tweets, progress: progress
        ) { try await services.tweets.deleteTweet(id: $0.documentID, leaving: true) }
        report.retweets = try await drain(
            store.collection(Collections.retweeted(by: me)).query.select([]), step: .retweets, progress: progress
        ) { marker in
            do {
                try await services.tweets.unretweet(id: marker.documentID)
            } catch TweetError.notFound {
                // A mark on a tweet that is gone (only a damaged store has one): nothing to correct.
                try await store.runTransaction { $0.deleteDocument(marker.path) }
            }
        }
        report.likes = try await drain(
            store.collection(Collections.likes(of: me)).query.select([]), step: .likes, progress: progress
        ) { marker in
            do {
                try await services.tweets.unlikeTweet(id: marker.documentID)
            } catch TweetError.notFound {
                // A mark on a tweet that is gone (only a damaged store has one): nothing to correct.
                try await store.runTransaction { $0.deleteDocument(marker.path) }
            }
        }
        report.bookmarks = try await drainInBatches(
            store.collection(Collections.bookmarks(of: me)).query.select([]), step: .bookmarks, progress: progress)
        report.follows = try await removeFollows(of: me, progress: progress)
        try await removeBlocks(of: me)
        report.notifications = try await drainInBatches(
            store.collection(Collections.notifications(of: me)).query.select([]), step: .notifications,
            progress: progress)
        _ = try await drainInBatches(
            store.collection(Collections.twtxtFollowing(of: me)).query.select([]), step: .notifications,
            progress: nil)
        progress?(.account, 0)
        try await removeAccount(me)
        // A server that keeps the accounts ends the account's role and its devices'.
        if let server = store as? any AccountServer, try await server.keepsAccounts() {
            try await server.closeAccount()
        }
        // This device's session of it, which the store no longer knows.
        _ = try await services.auth.signOut()
        return report
    }

    /// Lists `query` a batch at a time and runs `remove` on each document, until none is left.
    /// - Returns: How many were removed.
    private func drain(
        _ query: Query, step: Step, progress: (@Sendable (Step, Int) -> Void)?,
        _ remove: (DocumentSnapshot) async throws -> Void
    ) async throws -> Int {
        var removed = 0
        while true {
            let batch = try await query.limit(to: Self.batchSize).getDocuments()
            for document in batch {
                try await remove(document)
                removed += 1
            }
            progress?(step, removed)
            if batch.count < Self.batchSize { return removed }
        }
    }

    /// Deletes what `query` lists, nothing hanging on it, a batch per transaction.
    private func drainInBatches(_ query: Query, step: Step, progress: (@Sendable (Step, Int) -> Void)?)
        async throws -> Int
    {
        var removed = 0
        while true {
            let count = try await store.runTransaction { transaction in
                let batch = try await transaction.getDocuments(query.limit(to: Self.batchSize))
                for document in batch { transaction.deleteDocument(document.path) }
                return batch.count
            }
            removed += count
            progress?(step, removed)
            if count < Self.batchSize { return removed }
        }
    }

    static let batchSize = 200

    /// Ends every follow of `me` either way and every request to follow either way, each with its
    /// counters and notifications.
    private func removeFollows(of me: String, progress: (@Sendable (Step, Int) -> Void)?) async throws -> Int {
        let store = store
        var removed = 0
        let kinds: [(Query, @Sendable (DocumentSnapshot, Transaction) async throws -> Void)] = [
            // Whom `me` follows.
            (
                store.collection(Collections.following(of: me)).query.select([]),
                { follow, transaction in
                    try await UserService.removeFollow(me, follows: follow.documentID, in: transaction, store: store)
                }
            ),
            // Who follows `me`.
            (
                store.collection(Collections.followers(of: me)).query.select([]),
                { follower, transaction in
                    try await UserService.removeFollow(follower.documentID, follows: me, in: transaction, store: store)
                }
            ),
            // Who asked to follow `me`.
            (
                store.collection(Collections.followRequests(of: me)).query.select([]),
                { request, transaction in
                    _ = try await UserService.removeRequest(
                        to: me, from: request.documentID, in: transaction, store: store)
                }
            ),
            // Whom `me` asked to follow: the owner is the request's parent.
            (
                store.collectionGroup(Collections.followRequests).whereField("uid", isEqualTo: .string(me)).select([]),
                { request, transaction in
                    let owner = request.path.collection.split(separator: "/").dropFirst().first.map(String.init) ?? ""
                    _ = try await UserService.removeRequest(to: owner, from: me, in: transaction, store: store)
                }
            ),
        ]
        for (query, remove) in kinds {
            while true {
                let count = try await store.runTransaction { transaction in
                    let batch = try await transaction.getDocuments(query.limit(to: Self.batchSize))
                    for document in batch { try await remove(document, transaction) }
                    return batch.count
                }
                removed += count
                progress?(.follows, removed)
                if count < Self.batchSize { break }
            }
        }
        return removed
    }

    /// Takes `me` out of the filters of the accounts it blocks and that block it.
    private func removeBlocks(of me: String) async throws {
        try await store.runTransaction { transaction in
            let mine = ViewerFilters(fields: try await transaction.getDocument(ViewerFilters.path(of: me))?.data)
            for other in Set(mine.blocking.keys).union(mine.blockedBy.keys) {
                let path = ViewerFilters.path(of: other)
                var theirs = ViewerFilters(fields: try await transaction.getDocument(path)?.data)
                theirs.blocking.removeValue(forKey: me)
                theirs.blockedBy.removeValue(forKey: me)
                if let fields = theirs.fields {
                    transaction.setData(fields, at: path)
                } else {
                    transaction.deleteDocument(path)
                }
            }
        }
    }

    /// The last transaction: the account's own documents, its password and every session, once
    /// nothing else of it is left (a tweet posted from another device meanwhile is deleted first).
    private func removeAccount(_ me: String) async throws {
        let tweets = store.collection(Collections.tweets).whereField("uid", isEqualTo: .string(me)).select([])
        let sessions = store.collection(Collections.sessions).whereField("uid", isEqualTo: .string(me)).select([])
        while true {
            let done = try await store.runTransaction { transaction in
                guard try await transaction.getDocuments(tweets.limit(to: 1)).isEmpty else { return false }
                for path in [
                    UserService.userPath(me), DocumentPath(collection: Collections.credentials, documentID: me),
                    StatsCounter.path(of: me), FollowingList.path(of: me), ViewerFilters.path(of: me),
                    NotificationBatch.statePath(of: me),
                ] {
                    transaction.deleteDocument(path)
                }
                for session in try await transaction.getDocuments(sessions) { transaction.deleteDocument(session.path) }
                return true
            }
            if done { return }
            for tweet in try await tweets.limit(to: Self.batchSize).getDocuments() {
                try await services.tweets.deleteTweet(id: tweet.documentID, leaving: true)
            }
        }
    }
}
