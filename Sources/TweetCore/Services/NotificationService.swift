import FoundationEssentials
import TweetStore

/// Something another user did that concerns you (the course's bell): a like, retweet or quote of
/// your tweet, a reply to you, a mention of you, a follow, or a request to follow your protected
/// account.
public struct ActivityNotification: Codable, Equatable, Sendable, Identifiable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case like, retweet, quote, reply, mention, follow
        /// A request to follow a protected account, until it is approved, denied or withdrawn.
        case request
    }

    /// The notification's key (`like-{uid}-{tweetId}`, `reply-{tweetId}`, `follow-{uid}`), which
    /// `--before` takes.
    public var id: String
    public var type: Kind
    /// Who did it, joined by the service; `nil` if that account is gone.
    public var from: User?
    public var fromUid: String
    /// For a like or retweet, your tweet; for a reply, quote or mention, theirs; `nil` for a follow.
    public var tweet: Tweet?
    public var tweetId: String?
    public var timestamp: Date
    /// Whether it is at or before the newest notification already seen.
    public var read: Bool

    public init(
        id: String, type: Kind, from: User?, fromUid: String, tweet: Tweet?, tweetId: String?, timestamp: Date,
        read: Bool
    ) {
        self.id = id
        self.type = type
        self.from = from
        self.fromUid = fromUid
        self.tweet = tweet
        self.tweetId = tweetId
        self.timestamp = timestamp
        self.read = read
    }

    private enum CodingKeys: String, CodingKey { case id, type, from, fromUid, tweet, tweetId, timestamp, read }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(from, forKey: .from)
        try container.encode(fromUid, forKey: .fromUid)
        try container.encode(tweet, forKey: .tweet)
        try container.encode(tweetId, forKey: .tweetId)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(read, forKey: .read)
    }

    /// The document ID of a notification: one per actor, kind and tweet, so liking twice notifies
    /// once and unliking finds the one to withdraw.
    package static func key(_ kind: Kind, from uid: String, tweetID: String?) -> String {
        switch kind {
        case .like, .retweet: "\(kind.rawValue)-\(uid)-\(tweetID ?? "")"
        case .follow, .request: "\(kind.rawValue)-\(uid)"
        case .reply, .quote, .mention: "\(kind.rawValue)-\(tweetID ?? "")"
        }
    }
}

/// The notifications one transaction writes and withdraws, applied together so that each
/// recipient's unread count changes once, by the right amount.
package struct NotificationBatch {
    private struct Change {
        var recipient: String
        var kind: ActivityNotification.Kind
        var from: String
        var tweetID: String?
        var add: Bool
    }

    private var changes: [Change] = []

    /// Notifies `recipient` that `from` did `kind` (nobody is notified of their own actions).
    mutating func notify(_ recipient: String, _ kind: ActivityNotification.Kind, from: String, tweetID: String?) {
        guard recipient != from else { return }
        changes.append(Change(recipient: recipient, kind: kind, from: from, tweetID: tweetID, add: true))
    }

    /// Withdraws the notification `notify` wrote for the same arguments, if it is there.
    mutating func withdraw(_ recipient: String, _ kind: ActivityNotification.Kind, from: String, tweetID: String?) {
        guard recipient != from else { return }
        changes.append(Change(recipient: recipient, kind: kind, from: from, tweetID: tweetID, add: false))
    }

    package static func statePath(of uid: String) -> DocumentPath {
        DocumentPath(collection: Collections.notificationState, documentID: uid)
    }

    /// The unread count and the newest seen time of a state document.
    static func state(_ fields: JSONObject?) -> (unread: Int, seen: Date?) {
        let unread = Int(fields?["unread"]?.integerValue ?? 0)
        return (max(0, unread), fields?["seen"]?.stringValue.flatMap(Timestamp.date(from:)))
    }

    /// What ``apply(in:store:)`` reads: each recipient's state and each changed notification.
    func reads(in store: any DocumentStore) -> [DocumentPath] {
        changes.flatMap { change in
            [
                Self.statePath(of: change.recipient),
                store.collection(Collections.notifications(of: change.recipient)).document(
                    ActivityNotification.key(change.kind, from: change.from, tweetID: change.tweetID)),
            ]
        }
    }

    /// Writes the changes in `transaction`, and each recipient's new unread count.
    func apply(in transaction: Transaction, store: any DocumentStore) async throws {
        // All it reads, in one read.
        try await transaction.readAhead(reads(in: store))
        var byRecipient: [String: [Change]] = [:]
        var order: [String] = []
        for change in changes {
            if byRecipient[change.recipient] == nil { order.append(change.recipient) }
            byRecipient[change.recipient, default: []].append(change)
        }
        let stamp = JSONValue.string(Timestamp.string(from: transaction.time))
        for recipient in order {
            let statePath = Self.statePath(of: recipient)
            let stateFields = try await transaction.getDocument(statePath)?.data
            var (unread, seen) = Self.state(stateFields)
            var present: [String: Bool] = [:]  // What this batch has left at each key so far.
            let notifications = store.collection(Collections.notifications(of: recipient))
            for change in byRecipient[recipient] ?? [] {
                let key = ActivityNotification.key(change.kind, from: change.from, tweetID: change.tweetID)
                let path = notifications.document(key)
                let existing = try await transaction.getDocument(path)
                let isThere = present[key] ?? (existing != nil)
                if change.add {
                    guard !isThere else { continue }
                    transaction.setData(
                        [
                            "type": .string(change.kind.rawValue), "from": .string(change.from),
                            "tweetId": change.tweetID.map { .string($0) } ?? .null, "timestamp": stamp,
                        ], at: path)
                    unread += 1
                    present[key] = true
                } else {
                    guard isThere else { continue }
                    transaction.deleteDocument(path)
                    present[key] = false
                    // Only an unread one lowers the count; one this batch wrote is unread too.
                    let time = existing?.data["timestamp"]?.stringValue.flatMap(Timestamp.date(from:))
                    if existing == nil || seen == nil || time.map({ $0 > seen! }) ?? true {
                        unread = max(0, unread - 1)
                    }
                }
            }
            var fields = stateFields ?? [:]
            fields["unread"] = .integer(Int64(unread))
            if fields["seen"] == nil { fields["seen"] = seen.map { .string(Timestamp.string(from: $0)) } ?? .null }
            transaction.setData(fields, at: statePath)
        }
    }
}

/// The signed-in user's notifications: listing them, newest first, and the marker of what they saw.
public final class NotificationService: Sendable {
    let store: any DocumentStore
    let auth: AuthService
    let users: UserService
    let tweets: TweetService

    public init(store: any DocumentStore, auth: AuthService, users: UserService, tweets: TweetService) {
        self.store = store
        self.auth = auth
        self.users = users
        self.tweets = tweets
    }

    /// How many notifications the signed-in user has not seen: one batched read of their state
    /// document and their filters. Those their blocks and mutes hide are not counted: with any
    /// filter, the unread ones are read to count them (when there are at most
    /// ``countedUnreadLimit``; past that, the badge only says there are many), deciding from the
    /// documents what the listing decides from its join, without joining them.
    public func unreadCount() async throws -> Int {
        let me = try await auth.requireUid()
        let statePath = NotificationBatch.statePath(of: me)
        // The state as the session check read it just now, when it says nothing is unread: what
        // this command did since can only have taken notifications away (nobody notifies
        // themselves), so it still holds. Any other count is read again, unless this process has
        // written nothing since the check (a listing): then the state is as the store has it.
        if let checkedState = auth.checked(statePath, of: me), NotificationBatch.state(checkedState).unread == 0 {
            return 0
        }
        let checked = auth.checkedFilters(of: me)
        let current = auth.checkedSinceNoWrite(statePath, of: me)
        let found =
            current != nil && checked != nil
            ? []
            : try await store.getDocuments(
                (current == nil ? [statePath] : []) + (checked == nil ? [ViewerFilters.path(of: me)] : []))
        let state = NotificationBatch.state(current ?? found.first { $0.path == statePath }?.data)
        guard state.unread > 0, state.unread <= Self.countedUnreadLimit else { return state.unread }
        let filter = RowFilter(
            ViewerFilters(fields: checked ?? found.first { $0.path == ViewerFilters.path(of: me) }?.data), now: Date(),
            appliesMutes: true)
        guard !filter.isEmpty else { return state.unread }
        return try await notifications(
            of: me, limit: state.unread, before: nil, unreadOnly: true, state: state, filter: filter, joined: false
        ).count
    }

    /// The most unread notifications counted one by one when filters may hide some.
    static let countedUnreadLimit = 100

    /// The signed-in user's notifications, newest first.
    /// - Parameters:
    ///   - unreadOnly: only those newer than the newest seen.
    ///   - before: the ID of the last notification of the previous page.
    public func fetchNotifications(limit: Int = 20, before: String? = nil, unreadOnly: Bool = false) async throws
        -> [ActivityNotification]
    {
        let me = try await auth.requireUid()
        let statePath = NotificationBatch.statePath(of: me)
        // As in ``unreadCount()``: the checked state stands when nothing was unread, or when this
        // process has written nothing since.
        let state: (unread: Int, seen: Date?)
        if let checked = auth.checked(statePath, of: me), NotificationBatch.state(checked).unread == 0 {
            state = NotificationBatch.state(checked)
        } else if let current = auth.checkedSinceNoWrite(statePath, of: me) {
            state = NotificationBatch.state(current)
        } else {
            state = NotificationBatch.state(try await store.getDocument(statePath)?.data)
        }
        if unreadOnly && state.unread == 0 && before == nil { return [] }
        return try await notifications(
            of: me, limit: limit, before: before, unreadOnly: unreadOnly, state: state,
            filter: try await tweets.rowFilter(appliesMutes: true), joined: true)
    }

    /// `uid`'s notifications, newest first, so the unread ones come first and the first read one
    /// ends an unread listing.
    private static func newestFirst(of uid: String, limit: Int, in store: any DocumentStore) -> Query {
        store.collection(Collections.notifications(of: uid)).order(by: "timestamp", descending: true).limit(to: limit)
    }

    /// Says that the signed-in account's first page of ``fetchNotifications(limit:before:unreadOnly:)``
    /// comes next: on a server, its first batch goes with the session check, in the same round
    /// trip (the size a viewer without filters reads; one with filters reads more, then).
    public func prefetchNotifications(limit: Int = 20) {
        guard store.readsAreRoundTrips else { return }
        let store = store
        auth.prefetchWithNextCheck { uid in
            await store.prefetch(
                Self.newestFirst(of: uid, limit: limit, in: store).limit(to: limit),
                withDocumentsIn: Collections.tweets,
                namedBy: "tweetId")
        }
    }

    /// ``fetchNotifications(limit:before:unreadOnly:)`` with the state and filter read; not
    /// `joined`, the notifications shown are found from the documents of their tweets and authors
    /// alone, without the people and tweets a listing shows (to count them).
    private func notifications(
        of me: String, limit: Int, before: String?, unreadOnly: Bool, state: (unread: Int, seen: Date?),
        filter: RowFilter, joined: Bool
    ) async throws -> [ActivityNotification] {
        let collection = store.collection(Collections.notifications(of: me))
        let query = Self.newestFirst(of: me, limit: limit, in: store)
        var paged = query
        if let before {
            guard let cursor = try await store.getDocument(collection.document(before)) else {
                throw TweetError.notificationNotFound(before)
            }
            paged = query.start(after: cursor)
        }
        // Read in batches, newest first; those the viewer's blocks and mutes hide are read past,
        // deciding from the notification and its tweet's document, before any join. What the
        // page needs of the rest is joined (or, to count, checked against protected accounts),
        // which can leave out more, and then the rest of the batch is taken, or more read.
        var found: [ActivityNotification] = []
        var pending: [(notification: ActivityNotification, tweet: DocumentSnapshot?)] = []
        var (rowsRead, rowsShown, exhausted) = (0, 0, false)
        let tweetsCollection = store.collection(Collections.tweets)
        while found.count < limit {
            let missing = limit - found.count
            while pending.count < missing, !exhausted {
                // An unread listing (or count) asks for all the unread ones at once already.
                let size =
                    unreadOnly
                    ? limit
                    : TweetService.readSize(
                        needed: missing - pending.count, limit: limit, filtered: !filter.isEmpty, read: rowsRead,
                        shown: rowsShown)
                // A listing's batch comes with its tweets, in one read; a count reads only the
                // tweets that decide, after it.
                let (batch, withTweets) =
                    joined
                    ? try await store.runQuery(
                        paged.limit(to: size), withDocumentsIn: Collections.tweets, namedBy: "tweetId")
                    : (try await paged.limit(to: size).getDocuments(), [])
                rowsRead += batch.count
                exhausted = batch.count < size
                if let last = batch.last { paged = query.start(after: last) }
                var page: [ActivityNotification] = []
                for snapshot in batch {
                    let data = snapshot.data
                    guard let type = data["type"]?.stringValue.flatMap(ActivityNotification.Kind.init(rawValue:)),
                        let from = data["from"]?.stringValue,
                        let time = data["timestamp"]?.stringValue.flatMap(Timestamp.date(from:))
                    else {
                        throw StoreError.undecodable(
                            path: snapshot.path.description, reason: "it is not a notification")
                    }
                    let read = state.seen.map { time <= $0 } ?? false
                    if unreadOnly && read {
                        exhausted = true
                        break
                    }
                    if filter.hidesAuthor(from) { continue }
                    page.append(
                        ActivityNotification(
                            id: snapshot.documentID, type: type, from: nil, fromUid: from, tweet: nil,
                            tweetId: data["tweetId"]?.stringValue, timestamp: time, read: read))
                }
                // The tweets a listing shows, or only those that decide, for a count.
                let ids = Set(page.filter { joined || Self.needsItsTweet($0) }.compactMap(\.tweetId))
                let read =
                    joined || ids.isEmpty
                    ? withTweets : try await store.getDocuments(ids.map { tweetsCollection.document($0) })
                let byID = Dictionary(read.map { ($0.documentID, $0) }, uniquingKeysWith: { first, _ in first })
                for notification in page {
                    let tweet = notification.tweetId.flatMap { byID[$0] }
                    // Their reply, quote or mention: gone, or with a muted word or a hidden author.
                    if Self.needsItsTweet(notification), tweet.map(filter.hides(tweet:)) ?? true { continue }
                    pending.append((notification, tweet))
                    rowsShown += 1
                }
            }
            guard !pending.isEmpty else { break }
            let taken = Array(pending.prefix(missing))
            pending.removeFirst(taken.count)
            found += try await joined ? join(taken) : shown(taken, viewer: me)
        }
        return found
    }

    /// Whether a notification is shown only with its tweet: someone's reply, quote or mention, which
    /// a muted word in it, a hidden author or a protected account the viewer may not see hides.
    private static func needsItsTweet(_ notification: ActivityNotification) -> Bool {
        notification.type != .like && notification.type != .retweet && notification.tweetId != nil
    }

    /// Notifications with who did each and their tweets (already read), with the tweets' authors,
    /// in one batched read; those whose tweet the join leaves out (a protected account's the viewer
    /// may not see) are left out when they are shown only with it.
    private func join(_ taken: [(notification: ActivityNotification, tweet: DocumentSnapshot?)]) async throws
        -> [ActivityNotification]
    {
        var unique: [String: DocumentSnapshot] = [:]
        for case let (_, tweet?) in taken { unique[tweet.documentID] = tweet }
        let (joined, people) = try await tweets.hydrate(
            Array(unique.values), alsoUsers: taken.map(\.notification.fromUid))
        let shown = Dictionary(joined.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return taken.compactMap { notification, _ in
            var notification = notification
            notification.from = people[notification.fromUid]
            notification.tweet = notification.tweetId.flatMap { shown[$0] }
            if Self.needsItsTweet(notification), notification.tweet == nil { return nil }
            return notification
        }
    }

    /// Those of `taken` that ``join(_:)`` keeps, found from the documents of their authors alone:
    /// the same rule, without reading what is only shown.
    private func shown(_ taken: [(notification: ActivityNotification, tweet: DocumentSnapshot?)], viewer: String)
        async throws -> [ActivityNotification]
    {
        let authors = try await users.fetchUsers(
            withUids: Set(taken.compactMap { $0.tweet?.data["uid"]?.stringValue }))
        let hidden = try await users.hiddenProtected(authors.values, viewer: viewer)
        return taken.compactMap { notification, tweet in
            guard Self.needsItsTweet(notification) else { return notification }
            return tweet?.data["uid"]?.stringValue.map(hidden.contains) == false ? notification : nil
        }
    }

    /// Moves the marker to notification `newest` (the newest one shown), if it is newer than the
    /// marker: those at or before it count as read. Its time is read from the store, not trusted
    /// from the caller. `nil` moves it to the newest notification there is.
    public func markSeen(upTo newest: String?) async throws {
        let me = try await auth.requireUid()
        let statePath = NotificationBatch.statePath(of: me)
        let notifications = store.collection(Collections.notifications(of: me))
        // The state the session check read is about to be out of date.
        auth.forgetCheckedDocuments()
        try await store.runTransaction { transaction in
            let target: DocumentSnapshot?
            if let newest {
                target = try await transaction.getDocument(notifications.document(newest))
            } else {
                target = try await transaction.getDocuments(
                    notifications.order(by: "timestamp", descending: true).limit(to: 1)
                )
                .first
            }
            guard let time = target?.data["timestamp"]?.stringValue.flatMap(Timestamp.date(from:)) else { return }
            let fields = try await transaction.getDocument(statePath)?.data
            let (unread, seen) = NotificationBatch.state(fields)
            guard seen.map({ time > $0 }) ?? true else { return }
            // Those newer than the one shown stay unread (at most the ones that came in since).
            let newer = try await transaction.getDocuments(
                notifications.order(by: "timestamp", descending: true).limit(to: unread + 1)
            ).filter { snapshot in
                snapshot.data["timestamp"]?.stringValue.flatMap(Timestamp.date(from:)).map { $0 > time } ?? false
            }.count
            var updated = fields ?? [:]
            updated["unread"] = .integer(Int64(newer))
            updated["seen"] = .string(Timestamp.string(from: time))
            transaction.setData(updated, at: statePath)
        }
    }
}
