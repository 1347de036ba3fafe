import FoundationEssentials
import TweetStore

/// A user's mark on something (a like, a retweet, a bookmark, a follow), set or cleared in one
/// transaction with everything that changes with it: the thing must exist; setting a mark that is
/// there, or clearing one that is not, writes nothing; and the owner of the thing is notified when
/// it is set, and the notification withdrawn when it is cleared.
struct Toggle: Sendable {
    /// Who sets or clears the mark: the signed-in user.
    let actor: String
    /// The document marked: a tweet, or the user followed.
    let target: DocumentPath
    /// The error when there is no `target`.
    let notFound: any Error & Sendable
    /// The document whose presence is the mark (`users/{uid}/user-likes/{tweetId}`…).
    let marker: DocumentPath
    /// What the owner of `target` is told, if anything: about a tweet, its author; else the
    /// user `target` is.
    var notification: (kind: ActivityNotification.Kind, tweetID: String?)?
    /// Whether the mark shares the tweet with others (a retweet), which a protected account's
    /// tweets refuse even to its followers.
    var shares = false

    /// Who owns `target`: the user it is, or the author of the tweet it is.
    private func ownerUid(of target: DocumentSnapshot) -> String? {
        target.path.collection == Collections.users ? target.documentID : target.data["uid"]?.stringValue
    }

    private func owner(of target: DocumentSnapshot) -> String {
        notification?.tweetID == nil ? target.documentID : target.data["uid"]?.stringValue ?? ""
    }

    /// What ``set(_:in:change:)`` reads once `target` is read: when setting, the actor's filters
    /// and the owner's account and the actor's follow of it; the owner's notification state and
    /// the notification itself.
    private func reads(after target: DocumentSnapshot, on: Bool, in store: any DocumentStore) -> [DocumentPath] {
        var paths: [DocumentPath] = []
        if on, let owner = ownerUid(of: target) {
            paths += [
                ViewerFilters.path(of: actor), UserService.userPath(owner), UserService.followingPath(of: actor, owner),
            ]
        }
        if let notification {
            var batch = NotificationBatch()
            batch.notify(owner(of: target), notification.kind, from: actor, tweetID: notification.tweetID)
            paths += batch.reads(in: store)
        }
        return paths
    }

    /// Sets the mark (`on`) or clears it, running `change` in the same transaction when the mark
    /// changes.
    /// - Parameter change: the writes beside the marker's own, given the transaction, the target,
    ///   and the marker as it was (absent when setting).
    /// - Returns: Whether the mark changed.
    /// - Throws: ``notFound`` when there is no target, or what the store throws.
    @discardableResult
    func set(
        _ on: Bool, in store: any DocumentStore,
        change: @Sendable (Transaction, DocumentSnapshot, DocumentSnapshot?) async throws -> Void
    ) async throws -> Bool {
        let toggle = self
        return try await store.runTransaction { transaction in
            // What is marked and the mark in one read; then, once its owner is known, what the
            // checks and the notification read, in another.
            try await transaction.readAhead([toggle.target, toggle.marker])
            guard let target = try await transaction.getDocument(toggle.target) else { throw toggle.notFound }
            let mark = try await transaction.getDocument(toggle.marker)
            guard (mark == nil) == on else { return false }
            // (On a server: here, where each read is its own, a protected account's follow is read
            // only when it decides.)
            if store.readsAreRoundTrips {
                try await transaction.readAhead(toggle.reads(after: target, on: on, in: store))
            }
            // Setting a mark reaches the owner of the thing marked, which a block forbids; clearing
            // one is always allowed.
            if on, let owner = toggle.ownerUid(of: target) {
                try await SafetyService.requireReachable(owner, by: toggle.actor, in: transaction)
                // A protected account's tweet is marked only by those who may see it, and shared by no one.
                let user = try await transaction.getDocument(UserService.userPath(owner))
                // An account being deleted takes nothing new.
                if UserService.isLeaving(user) { throw toggle.notFound }
                if toggle.shares, let user, user.data["protected"] == .bool(true) {
                    throw ProtectionError.cannotShare(username: user.data["username"]?.stringValue ?? owner)
                }
                try await UserService.requireVisible(user, to: toggle.actor, in: transaction)
            }
            try await change(transaction, target, mark)
            if let notification = toggle.notification {
                var batch = NotificationBatch()
                if on {
                    batch.notify(
                        toggle.owner(of: target), notification.kind, from: toggle.actor, tweetID: notification.tweetID)
                } else {
                    batch.withdraw(
                        toggle.owner(of: target), notification.kind, from: toggle.actor, tweetID: notification.tweetID)
                }
                try await batch.apply(in: transaction, store: store)
            }
            return true
        }
    }
}
