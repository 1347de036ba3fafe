import FoundationEssentials
import TweetStore

/// A conversation around one tweet: what it replies to, up to the root, and the replies below it.
public struct Conversation: Codable, Equatable, Sendable {
    /// The tweets it replies to, the root first.
    public var ancestors: [Tweet]
    /// The ID of the first tweet up the chain that was deleted, where the ancestors stop.
    public var deletedAncestor: String?
    public var tweet: Tweet
    /// Its replies and theirs, in conversation order (each reply followed by its own), with `depth`.
    public var replies: [Tweet]
    /// Whether there are more replies than the limit let in.
    public var hasMoreReplies: Bool
    /// How many tweets the chain has above the first of ``ancestors``, which holds the nearest
    /// ``TweetService/maximumAncestors``; counted up to ``TweetService/maximumCountedAbove``.
    public var ancestorsAbove = 0
    /// Whether there are more than ``ancestorsAbove`` (the count stopped at its limit).
    public var ancestorsAboveIsLowerBound = false

    private enum CodingKeys: String, CodingKey {
        case ancestors, deletedAncestor, tweet, replies, hasMoreReplies, ancestorsAbove, ancestorsAboveIsLowerBound
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ancestors, forKey: .ancestors)
        try container.encodeIfPresent(deletedAncestor, forKey: .deletedAncestor)
        try container.encode(tweet, forKey: .tweet)
        try container.encode(replies, forKey: .replies)
        try container.encode(hasMoreReplies, forKey: .hasMoreReplies)
        try container.encode(ancestorsAbove, forKey: .ancestorsAbove)
        if ancestorsAboveIsLowerBound { try container.encode(true, forKey: .ancestorsAboveIsLowerBound) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ancestors = try container.decode([Tweet].self, forKey: .ancestors)
        deletedAncestor = try container.decodeIfPresent(String.self, forKey: .deletedAncestor)
        tweet = try container.decode(Tweet.self, forKey: .tweet)
        replies = try container.decode([Tweet].self, forKey: .replies)
        hasMoreReplies = try container.decodeIfPresent(Bool.self, forKey: .hasMoreReplies) ?? false
        ancestorsAbove = try container.decodeIfPresent(Int.self, forKey: .ancestorsAbove) ?? 0
        ancestorsAboveIsLowerBound =
            try container.decodeIfPresent(Bool.self, forKey: .ancestorsAboveIsLowerBound) ?? false
    }

    init(ancestors: [Tweet], deletedAncestor: String?, tweet: Tweet, replies: [Tweet], hasMoreReplies: Bool) {
        self.ancestors = ancestors
        self.deletedAncestor = deletedAncestor
        self.tweet = tweet
        self.replies = replies
        self.hasMoreReplies = hasMoreReplies
    }
}

extension TweetService {
    private var retweetsCollection: CollectionReference { store.collection(Collections.retweets) }
    private var tweetsCollection: CollectionReference { store.collection(Collections.tweets) }

    // MARK: Retweets

    /// The signed-in user retweets tweet `id`: once, however often asked; the tweet's count and its
    /// author's notification change in the same transaction.
    @discardableResult
    public func retweet(id: String) async throws -> MarkedTweet {
        let toggle = try await retweetToggle(id: id)
        let retweet = retweetsCollection.document(RetweetKey.documentID(ids, at: Date()))
        let changed = try await toggle.set(true, in: store) { transaction, tweet, _ in
            let stamp = JSONValue.string(Timestamp.string(from: transaction.time))
            transaction.setData(
                ["uid": .string(toggle.actor), "tweetId": .string(id), "timestamp": stamp], at: retweet)
            transaction.setData(["retweetId": .string(retweet.documentID), "timestamp": stamp], at: toggle.marker)
            transaction.updateData(["retweets": .incrementCount(1)], at: tweet.path)
        }
        return MarkedTweet(tweet: try await fetchTweet(withID: id), changed: changed)
    }

    /// The signed-in user takes back their retweet of `id`; nothing changes if there was none.
    @discardableResult
    public func unretweet(id: String) async throws -> MarkedTweet {
        let toggle = try await retweetToggle(id: id)
        let retweets = retweetsCollection
        let changed = try await toggle.set(false, in: store) { transaction, tweet, mark in
            transaction.deleteDocument(toggle.marker)
            if let retweet = mark?.data["retweetId"]?.stringValue {
                transaction.deleteDocument(retweets.document(retweet))
            }
            transaction.updateData(["retweets": .incrementCount(-1)], at: tweet.path)
        }
        return MarkedTweet(tweet: try await fetchTweet(withID: id, keepsHidden: true), changed: changed)
    }

    /// The signed-in user's retweet of tweet `id`, marked by `users/{uid}/retweeted/{id}`, which
    /// notifies its author.
    private func retweetToggle(id: String) async throws -> Toggle {
        let me = try await auth.requireUid()
        return Toggle(
            actor: me, target: tweetsCollection.document(id), notFound: TweetError.notFound(id),
            marker: store.collection(Collections.retweeted(by: me)).document(id), notification: (.retweet, id),
            shares: true)
    }

    // MARK: Bookmarks

    /// Saves tweet `id` to the signed-in user's bookmarks (private to them); saving twice keeps one.
    @discardableResult
    public func bookmark(id: String) async throws -> MarkedTweet {
        let bookmark = try await bookmarkToggle(id: id)
        let changed = try await bookmark.set(true, in: store) { transaction, _, _ in
            let stamp = JSONValue.string(Timestamp.string(from: transaction.time))
            transaction.setData(["tweetId": .string(id), "timestamp": stamp], at: bookmark.marker)
        }
        return MarkedTweet(tweet: try await fetchTweet(withID: id), changed: changed)
    }

    /// Removes tweet `id` from the signed-in user's bookmarks, if it is there.
    @discardableResult
    public func unbookmark(id: String) async throws -> MarkedTweet {
        let bookmark = try await bookmarkToggle(id: id)
        let changed = try await bookmark.set(false, in: store) { transaction, _, _ in
            transaction.deleteDocument(bookmark.marker)
        }
        return MarkedTweet(tweet: try await fetchTweet(withID: id, keepsHidden: true), changed: changed)
    }

    /// The signed-in user's bookmark of tweet `id`: private, so nobody is notified.
    private func bookmarkToggle(id: String) async throws -> Toggle {
        let me = try await auth.requireUid()
        return Toggle(
            actor: me, target: tweetsCollection.document(id), notFound: TweetError.notFound(id),
            marker: store.collection(Collections.bookmarks(of: me)).document(id))
    }

    /// The signed-in user's bookmarks, the newest bookmarked first.
    /// - Parameter before: the ID of the last tweet of the previous page.
    public func fetchBookmarks(limit: Int = 20, before: String? = nil) async throws -> [Tweet] {
        let me = try await auth.requireUid()
        let bookmarks = store.collection(Collections.bookmarks(of: me))
        var query = Self.bookmarkMarkers(of: me, limit: limit, in: store)
        if let before {
            guard let cursor = try await store.getDocument(bookmarks.document(before)) else {
                throw TweetError.notFound(before)
            }
            query = query.start(after: cursor)
        }
        // deleteTweet removes a tweet's bookmarks in the same transaction, so every one has its tweet.
        return try await markedTweets(query, limit: limit, filter: try await rowFilter(appliesMutes: false))
    }

    /// Says that the first page of `uid`'s profile tab `tab` comes next: on a server, its first
    /// read, and what says whether the viewer may see the account, go with the next read (the
    /// account's own documents). The first reads are those of a viewer without filters; one whose
    /// filters make them larger reads them then.
    public func prefetchProfileTab(_ tab: TweetFilter, uid: String, limit: Int) async throws {
        guard store.readsAreRoundTrips else { return }
        let me = try await auth.currentUid()
        await prefetchProfileTab(
            tab, uid: uid, reads: filterReads(Self.accountPaths(uid, viewer: me), viewer: me).all, limit: limit)
    }

    /// ``prefetchProfileTab(_:uid:limit:)`` ahead of the session check, for the account `viewer`
    /// the session names: the check reads their filters, so the tab will not.
    func prefetchProfileTab(_ tab: TweetFilter, uid: String, viewer: String, limit: Int) async {
        guard store.readsAreRoundTrips else { return }
        await prefetchProfileTab(tab, uid: uid, reads: Self.accountPaths(uid, viewer: viewer), limit: limit)
    }

    /// The tab's first read, with `reads`: what says whether the viewer may see the account.
    private func prefetchProfileTab(_ tab: TweetFilter, uid: String, reads: [DocumentPath], limit: Int) async {
        if !reads.isEmpty { await store.prefetch(documentsAt: reads) }
        switch tab {
        case .tweets:
            let (tweets, retweets) = accountTimeline(of: uid)
            await store.prefetch(mergedQuery: [Self.newestFirst(tweets), Self.newestFirst(retweets)], limit: limit)
        case .replies, .media:
            await store.prefetch(Self.pageOrder(accountTweets(of: uid, tab: tab), limit: limit).limit(to: limit))
        case .likes:
            await store.prefetch(
                Self.markerPage(likedFirstPage(of: uid, limit: limit)), withDocumentsNamedByIDsIn: Collections.tweets)
        }
    }

    /// `query` newest first, as a timeline merges it.
    private static func newestFirst(_ query: Query) -> Query {
        query.order(by: "timestamp", descending: true)
    }

    /// Says that ``fetchFollowingTweets(limit:before:)``'s first page comes next, as a viewer
    /// without filters reads it: on a server, it goes with the session check, by the uid the
    /// session names and with the list of whom that account follows filled in on the server.
    public func prefetchFollowingTweets(limit: Int = 20) {
        guard store.readsAreRoundTrips else { return }
        let (store, tweets, retweets) = (store, tweetsCollection.query, retweetsCollection.query)
        auth.prefetchWithNextCheck { me in
            await store.prefetch(dependingOnList: "uids", at: FollowingList.path(of: me)) { followed in
                let values: [JSONValue] = [.string(followed), .string(me)]
                await store.prefetch(
                    mergedQuery: [
                        Self.newestFirst(tweets.whereField("uid", in: values)),
                        Self.newestFirst(retweets.whereField("uid", in: values)),
                    ], limit: limit)
            }
        }
    }

    /// Says that the signed-in account's first page of bookmarks comes next: on a server, its
    /// markers are read with the session check, in the same round trip.
    public func prefetchBookmarks(limit: Int = 20) {
        guard store.readsAreRoundTrips else { return }
        let store = store
        auth.prefetchWithNextCheck { uid in
            await store.prefetch(
                Self.bookmarkMarkers(of: uid, limit: limit, in: store), withDocumentsNamedByIDsIn: Collections.tweets)
        }
    }

    /// The first page of `uid`'s bookmarks as ``markedTweets(_:limit:filter:)`` reads it.
    private static func bookmarkMarkers(of uid: String, limit: Int, in store: any DocumentStore) -> Query {
        markerPage(
            store.collection(Collections.bookmarks(of: uid)).order(by: "timestamp", descending: true)
                .limit(to: limit))
    }

    /// A page of markers, as ``markedTweets(_:limit:filter:)`` reads them: their times only.
    private static func markerPage(_ markers: Query) -> Query {
        markers.select(["timestamp"])
    }

    /// The tweets that markers (likes, bookmarks) name, in the markers' order: `markers` is their
    /// query, ordered by time and limited to `limit`. Tweets the filter hides are read past, a
    /// page of markers at a time, as are those of protected accounts the viewer may not see; a
    /// marker whose tweet is gone is left out.
    func markedTweets(_ markers: Query, limit: Int, filter: RowFilter) async throws -> [Tweet] {
        var query = Self.markerPage(markers)
        var kept: [Tweet] = []
        while true {
            // The markers and their tweets in one read.
            let (page, found) = try await store.runQuery(query, withDocumentsNamedByIDsIn: Collections.tweets)
            let byID = Dictionary(found.map { ($0.documentID, $0) }, uniquingKeysWith: { first, _ in first })
            let shown = page.compactMap { marker in
                byID[marker.documentID].flatMap { filter.hides(tweet: $0) ? nil : $0 }
            }
            kept += try await hydrate(shown, filter: filter).prefix(limit - kept.count)
            guard kept.count < limit, page.count == limit, let last = page.last else { break }
            query = query.start(after: last)
        }
        return kept
    }

    // MARK: Timelines with retweets

    /// One timeline's items: tweets, and retweets placed at the time of the retweet.
    private struct Item {
        var snapshot: DocumentSnapshot
        var isRetweet: Bool
        var time: Date
        var tweetID: String
    }

    /// Tweets and retweets merged newest first. A tweet appears once: at its newest retweet by one of
    /// `retweeters`, or as itself when none of them retweeted it. At the same millisecond a tweet
    /// comes before a retweet. `before` is a row's ``Tweet/cursor``.
    func timeline(
        tweets tweetQuery: Query, retweets retweetQuery: Query, retweeters: Set<String>, limit: Int, before: String?,
        filter: RowFilter
    )
        async throws -> [Tweet]
    {
        // A row for a tweet is skipped when a newer row for it exists: on this page it was shown
        // already; on an earlier one it is newer than the cursor, so only that window is asked.
        var cursorTime: Date?
        var cursorRetweet: String?  // the cursor's retweet ID, when the page before ended on a retweet
        var tweets = Self.newestFirst(tweetQuery)
        var retweets = Self.newestFirst(retweetQuery)
        if let before {
            if RetweetKey.isRetweet(before) {
                guard let cursor = try await store.getDocument(retweetsCollection.document(before)) else {
                    throw TweetError.notFound(before)
                }
                retweets = retweets.start(after: cursor)
                cursorTime = Self.time(cursor)
                cursorRetweet = cursor.documentID
                // Tweets at the retweet's millisecond came before it.
                tweets = tweets.start(after: Self.marker(in: Collections.tweets, at: cursor, id: " "))
            } else {
                guard let cursor = try await store.getDocument(tweetsCollection.document(before)) else {
                    throw TweetError.notFound(before)
                }
                tweets = tweets.start(after: cursor)
                cursorTime = Self.time(cursor)
                retweets = retweets.start(after: Self.marker(in: Collections.retweets, at: cursor, id: "~"))
            }
        }
        var shown: Set<String> = []
        // The retweeted tweets read so far: a filter needs them in the loop, to read past a
        // retweet of a hidden tweet; the page's join needs them after it.
        var originals: [String: DocumentSnapshot] = [:]
        var page: [Tweet] = []
        var exhausted = false
        // Rows read and rows kept so far, which size each read after the first.
        var rowsRead = 0
        var rowsKept = 0
        // Rows a protected account hides are found only by the join: a page short of them is
        // filled by reading on, as the filter's hidden rows are.
        while page.count < limit, !exhausted {
            var items: [Item] = []
            // Both queries' rows newest first, read side by side (a tweet before a retweet at the
            // same millisecond): each only as far as the page takes it. Rows skipped below are
            // replaced by more, read after the last row of each query.
            while page.count + items.count < limit {
                // Rows read past are replaced by as many as the share kept so far says the page
                // needs: each merged query has a cost of its own (a following feed's is its many
                // authors; one after the first also finds its cursor in every segment's index),
                // which reading a row at a time would pay for every hidden row, while reading a
                // whole page each time would read and join rows never shown. A viewer's filters
                // hide a share only reading tells: see ``readSize(needed:limit:filtered:read:shown:)``.
                let missing = limit - page.count - items.count
                let wanted =
                    filter.isEmpty
                    ? (rowsKept == 0 ? limit : min(limit, (missing * rowsRead + rowsKept - 1) / rowsKept))
                    : Self.readSize(needed: missing, limit: limit, filtered: true, read: rowsRead, shown: rowsKept)
                let rows = try await store.runMergedQuery([tweets, retweets], limit: wanted)
                rowsRead += rows.count
                if !filter.isEmpty, rows.contains(where: { $0.query == 1 }) {
                    let unread = Set(
                        rows.filter { $0.query == 1 }.compactMap { $0.snapshot.data["tweetId"]?.stringValue }
                            .filter { originals[$0] == nil })
                    for original in try await store.getDocuments(unread.map { tweetsCollection.document($0) }) {
                        originals[original.documentID] = original
                    }
                }
                for (query, snapshot) in rows {
                    // The rows after a full page are read again by the next one, which starts after
                    // the last row shown.
                    if page.count + items.count == limit { break }
                    let isRetweet = query == 1
                    if isRetweet {
                        retweets = retweets.start(after: snapshot)
                    } else {
                        tweets = tweets.start(after: snapshot)
                    }
                    guard let time = Self.time(snapshot),
                        let tweetID = isRetweet ? snapshot.data["tweetId"]?.stringValue : snapshot.documentID
                    else {
                        // A row without a time (or a retweet without its tweet) cannot be placed: name it.
                        throw StoreError.undecodable(
                            path: snapshot.path.description,
                            reason: "its \"timestamp\" or \"tweetId\" is missing or wrong")
                    }
                    if !filter.isEmpty,
                        isRetweet
                            ? filter.hidesAuthor(snapshot.data["uid"]?.stringValue)
                                || originals[tweetID].map(filter.hides(tweet:)) == true
                            : filter.hides(tweet: snapshot)
                    {
                        continue
                    }
                    let item = Item(snapshot: snapshot, isRetweet: isRetweet, time: time, tweetID: tweetID)
                    guard !shown.contains(item.tweetID) else { continue }
                    if let cursorTime,
                        try await hasRetweet(of: item, by: retweeters, shownBy: (cursorTime, cursorRetweet))
                    {
                        continue
                    }
                    shown.insert(item.tweetID)
                    items.append(item)
                    rowsKept += 1
                }
                if rows.count < wanted {  // both ran out
                    exhausted = true
                    break
                }
            }
            page += try await join(items, originals: originals, filter: filter)
        }
        return Array(page.prefix(limit))
    }

    /// The tweets of a timeline's items, and the retweeters: the retweeted tweets' documents, then
    /// authors, retweeters and the viewer's likes and retweets in one batched read each. An item
    /// whose tweet is gone, or whose tweet or retweeter a protected account keeps from the viewer,
    /// is left out.
    private func join(_ items: [Item], originals: [String: DocumentSnapshot], filter: RowFilter) async throws
        -> [Tweet]
    {
        let retweetedIDs = Set(items.filter(\.isRetweet).map(\.tweetID))
        let unread = retweetedIDs.filter { originals[$0] == nil }
        let retweetedDocuments =
            retweetedIDs.compactMap { originals[$0] }
            + (unread.isEmpty ? [] : try await store.getDocuments(unread.map { tweetsCollection.document($0) }))
        let retweeters = items.filter(\.isRetweet).compactMap { $0.snapshot.data["uid"]?.stringValue }
        let (joined, people) = try await hydrate(
            items.filter { !$0.isRetweet }.map(\.snapshot) + retweetedDocuments, alsoUsers: retweeters,
            filter: filter)
        let hiddenRetweeters = try await users.hiddenProtected(
            Set(retweeters).compactMap { people[$0] }, viewer: try await auth.currentUid())
        let byID = Dictionary(joined.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return items.compactMap { item in
            guard var tweet = byID[item.tweetID] else { return nil }  // deleted with its retweets, or hidden
            guard item.isRetweet else { return tweet }
            let retweeter = item.snapshot.data["uid"]?.stringValue
            if let retweeter, hiddenRetweeters.contains(retweeter) { return nil }
            tweet.retweetedBy = retweeter.flatMap { people[$0] }
            tweet.retweetedAt = item.time
            tweet.retweetID = item.snapshot.documentID
            return tweet
        }
    }

    /// Whether one of `retweeters` retweeted the item's tweet in a row an earlier page showed: after
    /// the cursor's time, or, when the cursor is a retweet, at its time with an ID at or above its
    /// own (the page's order within a millisecond). A few retweeters are looked up by key; many,
    /// through the tweet's retweets newest first.
    private func hasRetweet(of item: Item, by retweeters: Set<String>, shownBy cursor: (time: Date, retweet: String?))
        async throws -> Bool
    {
        if !item.isRetweet, (item.snapshot.data["retweets"]?.integerValue ?? 0) == 0 { return false }
        func wasShown(_ time: Date?, _ retweetID: String?) -> Bool {
            guard let time else { return false }
            if time > cursor.time { return true }
            guard time == cursor.time, let mark = cursor.retweet, let retweetID else { return false }
            return !ByteOrder.precedes(retweetID, mark)
        }
        if retweeters.count <= Self.retweetersLookedUpByKey {
            let paths = retweeters.map { store.collection(Collections.retweeted(by: $0)).document(item.tweetID) }
            return try await store.getDocuments(paths).contains {
                wasShown(Self.time($0), $0.data["retweetId"]?.stringValue)
            }
        }
        var query = retweetsCollection.whereField("tweetId", isEqualTo: .string(item.tweetID))
            .order(by: "timestamp", descending: true).limit(to: 64)
        while true {
            let batch = try await query.getDocuments()
            for retweet in batch {
                guard wasShown(Self.time(retweet), retweet.documentID) || Self.time(retweet) == cursor.time else {
                    return false  // older than every row shown: so are the rest
                }
                if let uid = retweet.data["uid"]?.stringValue, retweeters.contains(uid),
                    wasShown(Self.time(retweet), retweet.documentID)
                {
                    return true
                }
            }
            guard batch.count == 64, let last = batch.last else { return false }
            query = query.start(after: last)
        }
    }

    static let retweetersLookedUpByKey = 64

    private static func time(_ snapshot: DocumentSnapshot) -> Date? {
        snapshot.data["timestamp"]?.stringValue.flatMap(Timestamp.date(from:))
    }

    /// A cursor in `collection` at `other`'s time: with ID " " it excludes that collection's
    /// documents of the same millisecond, with "~" it includes them (IDs are letters, digits and `_`).
    private static func marker(in collection: String, at other: DocumentSnapshot, id: String) -> DocumentSnapshot {
        DocumentSnapshot(
            path: DocumentPath(collection: collection, documentID: id),
            data: ["timestamp": other.data["timestamp"] ?? .null])
    }

    // MARK: Conversations

    /// Says that ``fetchThread(id:limit:)`` of `id` comes next: on a server, the tweet and its
    /// first replies go in the round trip of the next read (the session check).
    public func prefetchThread(id: String, limit: Int = 20) async {
        guard store.readsAreRoundTrips else { return }
        await store.prefetch(documentsAt: [tweetsCollection.document(id)])
        await store.prefetch(repliesQuery(to: id, limit: limit + 1))
    }

    /// The first `limit` replies to tweet `id`, oldest first.
    private func repliesQuery(to id: String, limit: Int) -> Query {
        tweetsCollection.whereField("replyToId", isEqualTo: .string(id)).order(by: "timestamp").limit(to: limit)
    }

    /// Tweet `id` in its conversation: the tweets it replies to up to the root, then its replies and
    /// theirs, depth first, each one's replies oldest first, at most `limit` of them.
    /// - Throws: ``TweetError/notFound(_:)``.
    public func fetchThread(id: String, limit: Int = 20) async throws -> Conversation {
        guard let snapshot = try await store.getDocument(tweetsCollection.document(id)) else {
            throw TweetError.notFound(id)
        }
        let filter = try await rowFilter(appliesMutes: true)
        if let author = snapshot.data["uid"]?.stringValue, filter.filters.isBlocked(author) {
            try await requireReachable(author)
        }
        // Up the chain; a cycle (only a damaged store has one) or a very deep chain stops the walk.
        var chain: [DocumentSnapshot] = []
        var deletedAncestor: String?
        var visited: Set<String> = [id]
        var parent = snapshot.data["replyToId"]?.stringValue
        while let parentID = parent, visited.insert(parentID).inserted, chain.count < Self.maximumAncestors {
            guard let found = try await store.getDocument(tweetsCollection.document(parentID)) else {
                deletedAncestor = parentID
                break
            }
            // A hidden ancestor is left out of the chain shown, and the walk goes on past it.
            if filter.isEmpty || !filter.hides(tweet: found) { chain.append(found) }
            parent = found.data["replyToId"]?.stringValue
        }
        // The walk stopped at its limit with a parent still to read: count what is above, so the
        // thread can say so, reading on as far as a bounded count goes.
        var above = 0
        var aboveIsLowerBound = false
        if chain.count == Self.maximumAncestors, var next = parent {
            // A long count: first, that the viewer may see the tweet at all.
            _ = try await joined(snapshot, filter: filter)
            while above < Self.maximumCountedAbove {
                guard let found = try await store.getDocument(tweetsCollection.document(next)) else { break }
                above += 1
                guard let up = found.data["replyToId"]?.stringValue, visited.insert(up).inserted else { break }
                next = up
            }
            aboveIsLowerBound = above == Self.maximumCountedAbove
        }
        // Down: depth first, so each reply is followed by its own replies.
        var replies: [(DocumentSnapshot, Int)] = []
        var hasMore = false
        var stack: [(DocumentSnapshot, Int)] = [(snapshot, 0)]
        while let (node, depth) = stack.popLast() {
            // A hidden reply is not shown, nor are the replies under it.
            if node.documentID != id, !filter.isEmpty, filter.hides(tweet: node) { continue }
            if node.documentID != id {
                guard replies.count < limit else {
                    hasMore = true
                    break
                }
                replies.append((node, depth))
            }
            // Tweets written before reply counts were kept are asked too.
            if let count = node.data["replyCount"]?.integerValue, count == 0 { continue }
            guard visited.insert(node.documentID).inserted || node.documentID == id else { continue }
            let children = try await repliesQuery(to: node.documentID, limit: limit - replies.count + 1).getDocuments()
            stack += children.reversed().map { ($0, depth + 1) }
        }
        // All joined at once. Ancestors and replies of protected accounts the viewer may not see
        // are left out by the join; the tweet itself so left out is an error that says why.
        let depths = Dictionary(replies.map { ($0.0.documentID, $0.1) }, uniquingKeysWith: { first, _ in first })
        let ancestors = chain.reversed().map(\.documentID)
        let (joined, people) = try await hydrate(
            [snapshot] + chain.reversed() + replies.map(\.0), alsoUsers: [], filter: filter)
        guard let tweet = joined.first(where: { $0.id == id }) else {
            let uid = snapshot.data["uid"]?.stringValue ?? ""
            throw ProtectionError.protected(username: people[uid]?.username ?? uid)
        }
        let byID = Dictionary(joined.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var conversation = Conversation(
            ancestors: ancestors.compactMap { byID[$0] }, deletedAncestor: deletedAncestor, tweet: tweet,
            replies: replies.compactMap { byID[$0.0.documentID] }, hasMoreReplies: hasMore)
        for index in conversation.replies.indices {
            conversation.replies[index].depth = depths[conversation.replies[index].id] ?? 1
        }
        (conversation.ancestorsAbove, conversation.ancestorsAboveIsLowerBound) = (above, aboveIsLowerBound)
        return conversation
    }

    /// How far up a reply chain a thread reads.
    public static let maximumAncestors = 100
    /// How many tweets above those a thread counts, one read each, before it says "more than".
    public static let maximumCountedAbove = 10_000
}
