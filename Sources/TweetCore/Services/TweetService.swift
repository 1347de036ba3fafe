import FoundationEssentials
import Synchronization
import TweetStore
import TweetSystem
import TwitterText

/// Tweets, replies and likes (the course's `TweetService`), with its bugs fixed: the store orders
/// and limits every page, authors are joined with one batched read per page, likes are transactions,
/// and a damaged document is an error that names it.
public final class TweetService: Sendable {
    /// The longest caption, in characters.
    public static let maximumCaptionLength = 280

    let store: any DocumentStore
    let auth: AuthService
    let users: UserService
    let ids: IDGenerator
    /// Whether pages are joined with their IDs' short forms (``prefetchShortIDs()``), and the
    /// forms read so, for ``shortIDs(_:)`` to take.
    let shortForms = Mutex<(wanted: Bool, known: [String: String])>((false, [:]))

    public init(store: any DocumentStore, auth: AuthService, users: UserService, ids: IDGenerator = .random) {
        self.store = store
        self.auth = auth
        self.users = users
        self.ids = ids
    }

    private var tweets: CollectionReference { store.collection(Collections.tweets) }

    // MARK: Reading

    /// The newest tweets of everyone (the course's `fetchTweets`).
    /// - Parameters:
    ///   - limit: the page size.
    ///   - before: the ID of the last tweet of the previous page, to read the next one.
    public func fetchTweets(limit: Int = 20, before: String? = nil) async throws -> [Tweet] {
        try await page(tweets.query, limit: limit, before: before, appliesMutes: true)
    }

    /// Says that ``fetchTweets(limit:before:)``'s first page comes next: on a server, its first
    /// read goes in the round trip of the next read (the session check), which it waits on only
    /// when the viewer's filters make that read larger (see ``DocumentStore/prefetch(_:)``).
    public func prefetchTweets(limit: Int = 20) async {
        guard store.readsAreRoundTrips else { return }
        let first = Self.readSize(needed: limit, limit: limit, filtered: false, read: 0, shown: 0)
        await store.prefetch(Self.pageOrder(tweets.query, limit: limit).limit(to: first))
    }

    /// The newest tweets of the users the signed-in user follows, and their own.
    /// With their retweets: a tweet several of them retweeted appears once, at its newest retweet.
    public func fetchFollowingTweets(limit: Int = 20, before: String? = nil) async throws -> [Tweet] {
        let me = try await auth.requireUid()
        let uids = try await users.followingUids(of: me) + [me]
        let values = uids.map { JSONValue.string($0) }
        return try await timeline(
            tweets: tweets.query.whereField("uid", in: values),
            retweets: store.collection(Collections.retweets).whereField("uid", in: values),
            retweeters: Set(uids), limit: limit, before: before, filter: try await rowFilter(appliesMutes: true))
    }

    /// The newest tweets of `uid` that are not replies, and their retweets (the profile's Tweets tab).
    /// - Throws: ``ProtectionError/protected(username:)`` when `uid` is protected and the
    ///   signed-in user is not an approved follower (as do the Replies and Likes tabs).
    public func fetchTweets(forUid uid: String, limit: Int = 20, before: String? = nil) async throws -> [Tweet] {
        let (tweets, retweets) = accountTimeline(of: uid)
        return try await timeline(
            tweets: tweets, retweets: retweets, retweeters: [uid], limit: limit, before: before,
            filter: try await accountFilter(uid))
    }

    /// The tweets (not replies) and retweets of `uid`, which the Tweets tab merges.
    func accountTimeline(of uid: String) -> (tweets: Query, retweets: Query) {
        (
            tweets.whereField("uid", isEqualTo: .string(uid)).whereField("replyToId", isEqualTo: .null),
            store.collection(Collections.retweets).whereField("uid", isEqualTo: .string(uid))
        )
    }

    /// The newest replies of `uid` (the profile's Replies tab).
    public func fetchReplies(forUid uid: String, limit: Int = 20, before: String? = nil) async throws -> [Tweet] {
        try await page(
            accountTweets(of: uid, tab: .replies), limit: limit, before: before, appliesMutes: false, account: uid)
    }

    /// The newest tweets and replies of `uid` that have photos (the profile's Media tab). The
    /// query reads `uid`'s tweets newest first and keeps those with photos.
    public func fetchMedia(forUid uid: String, limit: Int = 20, before: String? = nil) async throws -> [Tweet] {
        try await page(
            accountTweets(of: uid, tab: .media), limit: limit, before: before, appliesMutes: false, account: uid)
    }

    /// The tweets of `uid` the Replies or the Media tab lists.
    func accountTweets(of uid: String, tab: TweetFilter) -> Query {
        let own = tweets.whereField("uid", isEqualTo: .string(uid))
        return tab == .media
            ? own.whereField("images", isNotEqualTo: .null) : own.whereField("replyToId", isNotEqualTo: .null)
    }

    /// The replies to one tweet, oldest first (a thread).
    public func fetchReplies(toTweet id: String, limit: Int = 20) async throws -> [Tweet] {
        let records = try await tweets.whereField("replyToId", isEqualTo: .string(id))
            .order(by: "timestamp").limit(to: limit).getDocuments()
        return try await hydrate(records)
    }

    /// The tweets `uid` likes, the newest like first (the profile's Likes tab).
    public func fetchLikedTweets(forUid uid: String, limit: Int = 20, before: String? = nil) async throws -> [Tweet] {
        let likes = store.collection(Collections.likes(of: uid))
        var query = likedFirstPage(of: uid, limit: limit)
        if let before {
            guard let cursor = try await store.getDocument(likes.document(before)) else {
                throw TweetError.notFound(before)
            }
            query = query.start(after: cursor)
        }
        // deleteTweet removes a tweet's likes in the same transaction, so every like has its tweet.
        return try await markedTweets(query, limit: limit, filter: try await accountFilter(uid))
    }

    /// The first `limit` of `uid`'s likes, the newest first.
    func likedFirstPage(of uid: String, limit: Int) -> Query {
        store.collection(Collections.likes(of: uid)).order(by: "timestamp", descending: true).limit(to: limit)
    }

    /// One tweet, with its author.
    /// - Throws: ``TweetError/notFound(_:)``, ``ProtectionError/protected(username:)`` for a
    ///   protected account's tweet the signed-in user may not see.
    public func fetchTweet(withID id: String) async throws -> Tweet {
        try await fetchTweet(withID: id, keepsHidden: false)
    }

    /// ``fetchTweet(withID:)``; with `keepsHidden`, a protected account's tweet too: the one a
    /// signed-in user just took their like, retweet or bookmark back from.
    func fetchTweet(withID id: String, keepsHidden: Bool) async throws -> Tweet {
        let path = tweets.document(id)
        if store.readsAreRoundTrips {
            // The join needs the session checked: on a server, the tweet goes in that round trip.
            // A session that cannot be checked is the join's to report, once the tweet is found.
            await store.prefetch(documentsAt: [path])
            _ = try? await auth.currentUid()
        }
        guard let snapshot = try await store.getDocument(path) else { throw TweetError.notFound(id) }
        return try await joined(snapshot, keepsHidden: keepsHidden)
    }

    /// One tweet document joined (see ``hydrate(_:alsoUsers:filter:keepsHidden:)``).
    /// - Throws: ``ProtectionError/protected(username:)`` when the join leaves it out.
    func joined(_ snapshot: DocumentSnapshot, filter: RowFilter? = nil, keepsHidden: Bool = false) async throws
        -> Tweet
    {
        let (found, people) = try await hydrate([snapshot], alsoUsers: [], filter: filter, keepsHidden: keepsHidden)
        guard let tweet = found.first else {
            let uid = snapshot.data["uid"]?.stringValue ?? ""
            throw ProtectionError.protected(username: people[uid]?.username ?? uid)
        }
        return tweet
    }

    /// One of the signed-in user's own tweets, as it must be to be deleted.
    /// - Throws: ``TweetError/notFound(_:)``, ``TweetError/notOwner(_:)``.
    public func fetchOwnTweet(withID id: String) async throws -> Tweet {
        let me = try await auth.requireUid()
        let tweet = try await fetchTweet(withID: id)
        guard tweet.uid == me else { throw TweetError.notOwner(id) }
        return tweet
    }

    /// Whether the signed-in user likes tweet `id`.
    public func didLike(tweetID id: String) async throws -> Bool {
        let me = try await auth.requireUid()
        return try await store.getDocument(store.collection(Collections.likes(of: me)).document(id)) != nil
    }

    // MARK: Writing

    /// Posts a tweet as the signed-in user, stamped with the store's clock, with no likes yet. In the
    /// same transaction the tweet it replies to counts one more reply, the tweet it quotes one more
    /// quote, and their authors and every user it mentions are notified.
    /// - Parameters:
    ///   - caption: the text; surrounding whitespace is kept out.
    ///   - replyTo: the ID of the tweet this one answers.
    ///   - quote: the ID of the tweet this one quotes.
    /// - Throws: ``AuthError/notSignedIn``, ``TweetError/emptyCaption``, ``TweetError/captionTooLong(length:limit:)``,
    ///   ``TweetError/notFound(_:)`` for a missing `replyTo` or `quote`.
    public func uploadTweet(
        caption: String, replyTo: String? = nil, quote: String? = nil, photos: [PhotoUpload] = []
    ) async throws -> Tweet {
        let uid = try await auth.requireUid()
        let preview = try Self.validated(caption)
        let caption = preview.caption
        guard photos.count <= TweetImage.maximumPerTweet else { throw TweetError.tooManyImages(photos.count) }
        var attached: [TweetImage] = []
        for photo in photos { attached.append(TweetImage(photo.image, alt: try TweetImage.checkedAlt(photo.alt))) }
        // The photos first, each durable before the tweet that names it can commit. One whose
        // tweet then fails is named by nothing, and removed later.
        for photo in photos {
            try await store.putBlob(photo.image.bytes, address: photo.image.sha256)
            if let thumbnail = photo.image.thumbnail, let address = photo.image.thumbnailSHA256 {
                try await store.putBlob(thumbnail, address: address)
            }
        }
        let images = attached.isEmpty ? nil : attached
        let tweets = tweets
        let ids = ids
        let author = store.collection(Collections.users).document(uid)
        let parent = replyTo.map { tweets.document($0) }
        let quoted = quote.map { tweets.document($0) }
        let users = store.collection(Collections.users)
        var names: [String] = []
        for name in preview.entities.mentions.map({ $0.lowercased() }) where !names.contains(name) {
            names.append(name)
        }
        let mentioned = names
        let store = store
        let (path, record) = try await store.runTransaction { transaction in
            guard let me = try await transaction.getDocument(author) else { throw AuthError.notSignedIn }
            guard !UserService.isLeaving(me) else { throw UserError.leaving }
            let isProtected = me.data["protected"] == .bool(true)
            // A protected account's tweet reaches only its approved followers: nobody else is
            // notified of it.
            func mayNotify(_ recipient: String) async throws -> Bool {
                guard isProtected, recipient != uid else { return true }
                return try await transaction.getDocument(UserService.followingPath(of: recipient, uid)) != nil
            }
            // The ID from the commit's own time, which only grows: IDs, and so the search index's
            // buckets, stay in posting order even when posters wait for one another.
            let path = tweets.document(ids.next(at: transaction.time))
            let filters = ViewerFilters(fields: try await transaction.getDocument(ViewerFilters.path(of: uid))?.data)
            var notifications = NotificationBatch()
            var notified: Set<String> = [uid]
            var owners: JSONObject = [:]  // replyToUid, quoteUid: kept so deleting withdraws their notifications
            let links = [
                (parent, "replyCount", "replyToUid", ActivityNotification.Kind.reply),
                (quoted, "quotes", "quoteUid", .quote),
            ]
            for (target, field, ownerField, kind) in links {
                guard let target else { continue }
                guard let snapshot = try await transaction.getDocument(target) else {
                    throw TweetError.notFound(target.documentID)
                }
                if let owner = snapshot.data["uid"]?.stringValue, owner != uid {
                    if filters.isBlocked(owner) {
                        try await SafetyService.requireReachable(owner, by: uid, in: transaction)
                    }
                    // A protected account's tweet is answered only by those who may see it, and
                    // quoted by no one.
                    let user = try await transaction.getDocument(UserService.userPath(owner))
                    // An account being deleted takes no new replies or quotes.
                    if UserService.isLeaving(user) { throw TweetError.notFound(target.documentID) }
                    if kind == .quote, let user, user.data["protected"] == .bool(true) {
                        throw ProtectionError.cannotShare(username: user.data["username"]?.stringValue ?? owner)
                    }
                    try await UserService.requireVisible(user, to: uid, in: transaction)
                } else if kind == .quote, isProtected {
                    throw ProtectionError.cannotShare(username: me.data["username"]?.stringValue ?? uid)
                }
                if field == "replyCount", snapshot.data[field] == nil {
                    // A tweet from before reply counts were kept: its replies are counted once.
                    let replies = try await transaction.getDocuments(
                        tweets.whereField("replyToId", isEqualTo: .string(target.documentID))
                    ).count
                    transaction.updateData([field: .value(.integer(Int64(replies)))], at: target)
                }
                transaction.updateData([field: .incrementCount(1)], at: target)
                if let owner = snapshot.data["uid"]?.stringValue {
                    if try await mayNotify(owner) {
                        notifications.notify(owner, kind, from: uid, tweetID: path.documentID)
                    }
                    notified.insert(owner)
                    owners[ownerField] = .string(owner)
                }
            }
            // Each mentioned user once, if they exist and were not notified of a reply or quote already.
            for name in mentioned.prefix(Self.maximumNotifiedMentions) {
                let query = users.whereField("username", isEqualTo: .string(name)).limit(to: 1)
                // A mention between two accounts that a block keeps apart notifies no one.
                guard let user = try await transaction.getDocuments(query).first, !UserService.isLeaving(user),
                    !filters.isBlocked(user.documentID),
                    notified.insert(user.documentID).inserted, try await mayNotify(user.documentID)
                else { continue }
                notifications.notify(user.documentID, .mention, from: uid, tweetID: path.documentID)
            }
            let record = TweetRecord(
                id: path.documentID, uid: uid, caption: caption, likes: 0, timestamp: transaction.time,
                replyToId: replyTo, entities: preview.entities, quoteId: quote, images: images)
            // A protected account's hashtags are not counted in trends, which everyone sees; the
            // tweet says so, so that deleting it takes nothing off them.
            if isProtected { owners["untrended"] = .bool(true) }
            let fields = record.fields.merging(owners) { $1 }
            transaction.setData(fields, at: path)
            try await SearchIndex.add(
                tweetID: path.documentID, time: transaction.time, caption: caption, entities: preview.entities,
                countsTrends: !isProtected, in: transaction)
            try await StatsCounter.add(1, to: \.tweets, of: uid, in: transaction, store: store)
            try await notifications.apply(in: transaction, store: store)
            return (path, fields)
        }
        return try await hydrate([DocumentSnapshot(path: path, data: record)])[0]
    }

    /// The most users one tweet's mentions notify.
    static let maximumNotifiedMentions = 10

    /// How a caption counts by Twitter's rules (twitter-text v3), without posting it.
    public static func preview(_ caption: String) -> CaptionPreview {
        let (trimmed, parsed) = measured(caption)
        return CaptionPreview(
            caption: trimmed, weightedLength: parsed.weightedLength, limit: maximumCaptionLength,
            isValid: parsed.isValid, entities: TweetText.entities(in: trimmed))
    }

    /// The caption as it is kept, and its count by Twitter's rules.
    private static func measured(_ caption: String) -> (String, ParsedTweet) {
        // CR LF (a file written on Windows) is one line break, as a lone LF is.
        let trimmed = caption.replacingEvery("\r\n", with: "\n").trimmed()
        return (trimmed, TweetText.parse(trimmed))
    }

    /// Checks a caption by Twitter's rules and returns it trimmed.
    /// - Throws: ``TweetError/emptyCaption``, ``TweetError/captionTooLong(length:limit:)`` with the
    ///   weighted length, or ``TweetError/invalidCharacters``.
    public static func validatedCaption(_ caption: String) throws -> String {
        try validated(caption).caption
    }

    /// The most bytes a caption may have: a weighted count can be gamed (an emoji sequence of any
    /// length weighs 2, a link of any length 23), so the bytes are capped too, well above any real
    /// tweet (140 of the longest emoji sequences take about 5,700 bytes).
    public static let maximumCaptionBytes = 16_384

    private static func validated(_ caption: String) throws -> CaptionPreview {
        let trimmed = try checkedCaption(caption)
        return preview(trimmed)
    }

    /// ``validatedCaption(_:)`` without finding the caption's entities, which its checks do not
    /// need: what `import` checks a million captions with.
    static func checkedCaption(_ caption: String) throws -> String {
        // The size first, before the weighted count reads a text of any length.
        try TextRules.checkSize(caption, field: "caption", maximumBytes: maximumCaptionBytes)
        let (trimmed, parsed) = measured(caption)
        guard !trimmed.isEmpty else { throw TweetError.emptyCaption }
        try TextRules.check(trimmed, field: "caption", multiline: true, maximumBytes: maximumCaptionBytes)
        guard parsed.weightedLength <= maximumCaptionLength else {
            throw TweetError.captionTooLong(length: parsed.weightedLength, limit: maximumCaptionLength)
        }
        guard parsed.isValid else { throw TweetError.invalidCharacters }
        return trimmed
    }

    /// The signed-in user likes tweet `id`: the count and the `user-likes` document change together,
    /// and liking twice counts once.
    @discardableResult
    public func likeTweet(id: String) async throws -> MarkedTweet {
        let like = try await likeToggle(id: id)
        let changed = try await like.set(true, in: store) { transaction, tweet, _ in
            let stamp = JSONValue.string(Timestamp.string(from: transaction.time))
            transaction.setData(["timestamp": stamp, "tweetId": .string(id)], at: like.marker)
            transaction.updateData(["likes": .incrementCount(1)], at: tweet.path)
        }
        return MarkedTweet(tweet: try await fetchTweet(withID: id), changed: changed)
    }

    /// The signed-in user stops liking tweet `id`; unliking a tweet not liked changes nothing,
    /// and the count never goes below 0.
    @discardableResult
    public func unlikeTweet(id: String) async throws -> MarkedTweet {
        let like = try await likeToggle(id: id)
        let changed = try await like.set(false, in: store) { transaction, tweet, _ in
            transaction.deleteDocument(like.marker)
            transaction.updateData(["likes": .incrementCount(-1)], at: tweet.path)
        }
        return MarkedTweet(tweet: try await fetchTweet(withID: id, keepsHidden: true), changed: changed)
    }

    /// The signed-in user's like of tweet `id`, which notifies its author.
    private func likeToggle(id: String) async throws -> Toggle {
        let me = try await auth.requireUid()
        return Toggle(
            actor: me, target: tweets.document(id), notFound: TweetError.notFound(id),
            marker: store.collection(Collections.likes(of: me)).document(id), notification: (.like, id))
    }

    /// Deletes one of the signed-in user's tweets, in one transaction with everything that hangs on
    /// it: its likes, retweets and bookmarks, the notifications it caused and those about it, and
    /// the reply and quote counts of the tweets it answered or quoted.
    /// - Throws: ``TweetError/notFound(_:)``, ``TweetError/notOwner(_:)``.
    public func deleteTweet(id: String) async throws {
        try await deleteTweet(id: id, leaving: false)
    }

    /// ``deleteTweet(id:)``; `leaving`, as part of deleting its author's account
    /// (``AccountDeletion``), which leaves no trace of the author on the replies either.
    func deleteTweet(id: String, leaving: Bool) async throws {
        let me = try await auth.requireUid()
        let tweet = tweets.document(id)
        let likes = store.collectionGroup(Collections.userLikes).whereField("tweetId", isEqualTo: .string(id))
        let retweets = store.collection(Collections.retweets).whereField("tweetId", isEqualTo: .string(id))
        let bookmarks = store.collectionGroup(Collections.bookmarks).whereField("tweetId", isEqualTo: .string(id))
        let users = store.collection(Collections.users)
        let store = store
        try await store.runTransaction { transaction in
            guard let snapshot = try await transaction.getDocument(tweet) else { throw TweetError.notFound(id) }
            guard snapshot.data["uid"]?.stringValue == me else { throw TweetError.notOwner(id) }
            var notifications = NotificationBatch()
            transaction.deleteDocument(tweet)
            for like in try await transaction.getDocuments(likes) {
                transaction.deleteDocument(like.path)
                // users/{liker}/user-likes/{id}
                let liker = like.path.collection.split(separator: "/").dropFirst().first.map(String.init) ?? ""
                notifications.withdraw(me, .like, from: liker, tweetID: id)
            }
            for retweet in try await transaction.getDocuments(retweets) {
                transaction.deleteDocument(retweet.path)
                guard let retweeter = retweet.data["uid"]?.stringValue else { continue }
                transaction.deleteDocument(
                    DocumentPath(collection: Collections.retweeted(by: retweeter), documentID: id))
                notifications.withdraw(me, .retweet, from: retweeter, tweetID: id)
            }
            for bookmark in try await transaction.getDocuments(bookmarks) { transaction.deleteDocument(bookmark.path) }
            // Its replies and quotes say it is gone, without reading it each time they are shown,
            // and so that what counts them (an import, doctor) leaves them out. They keep its
            // author's uid, to withdraw the author's notification when they go, unless the author
            // is leaving: then the notifications go first, and so does the uid. (A missing reply
            // count, from before replies were counted, is looked through; a tweet quoted before
            // quotes were counted is marked by doctor's repair instead.)
            let answers: [(link: String, mark: String, owner: String, kind: ActivityNotification.Kind, any: Bool)] = [
                ("replyToId", "replyToDeleted", "replyToUid", .reply, snapshot.data["replyCount"]?.integerValue != 0),
                ("quoteId", "quoteDeleted", "quoteUid", .quote, (snapshot.data["quotes"]?.integerValue ?? 0) > 0),
            ]
            for (link, mark, owner, kind, any) in answers where any {
                for answer in try await transaction.getDocuments(self.tweets.whereField(link, isEqualTo: .string(id))) {
                    var changes: [String: FieldValue] = [mark: .value(.bool(true))]
                    if leaving {
                        changes[owner] = .delete
                        if let author = answer.data["uid"]?.stringValue {
                            notifications.withdraw(me, kind, from: author, tweetID: answer.documentID)
                        }
                    }
                    transaction.updateData(changes, at: answer.path)
                }
            }
            // What this tweet caused: a reply, a quote, mentions.
            let links = [
                ("replyToId", "replyCount", "replyToUid", ActivityNotification.Kind.reply),
                ("quoteId", "quotes", "quoteUid", .quote),
            ]
            for (field, counter, ownerField, kind) in links {
                guard let target = snapshot.data[field]?.stringValue else { continue }
                let path = self.tweets.document(target)
                let other = try await transaction.getDocument(path)  // nil when deleted before this one
                if let other, other.data[counter]?.integerValue != nil {
                    transaction.updateData([counter: .incrementCount(-1)], at: path)
                }
                // The author it notified, kept on the tweet (or read from the tweet it answered).
                if let owner = snapshot.data[ownerField]?.stringValue ?? other?.data["uid"]?.stringValue {
                    notifications.withdraw(owner, kind, from: me, tweetID: id)
                }
            }
            let mentions =
                snapshot.data["entities"]?.objectValue?["mentions"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for name in mentions.prefix(Self.maximumNotifiedMentions) {
                let query = users.whereField("username", isEqualTo: .string(name.lowercased())).limit(to: 1)
                guard let user = try await transaction.getDocuments(query).first else { continue }
                notifications.withdraw(user.documentID, .mention, from: me, tweetID: id)
            }
            let record = try DocumentSnapshot(path: tweet, data: snapshot.data).data(as: TweetRecord.self)
            try await SearchIndex.remove(
                tweetID: id, time: record.timestamp, caption: record.caption,
                entities: record.entities ?? TweetText.entities(in: record.caption),
                countedInTrends: snapshot.data["untrended"] != .bool(true), in: transaction, store: store)
            try await StatsCounter.add(-1, to: \.tweets, of: me, in: transaction, store: store)
            try await notifications.apply(in: transaction, store: store)
        }
    }

    // MARK: Pages

    /// A listing's query as ``page(_:limit:before:appliesMutes:account:)`` reads it.
    static func pageOrder(_ query: Query, limit: Int) -> Query {
        query.order(by: "timestamp", descending: true).limit(to: limit)
    }

    /// Runs `query` newest first from after tweet `before`, and joins the page.
    /// With `account`, the page is of that account's tweets, which must be visible to the viewer.
    private func page(_ query: Query, limit: Int, before: String?, appliesMutes: Bool, account: String? = nil)
        async throws -> [Tweet]
    {
        var query = Self.pageOrder(query, limit: limit)
        // The cursor, the viewer's filters and whether they may see the account in one read.
        let me = try await auth.currentUid()
        let cursorPath = before.map { tweets.document($0) }
        let (filter, found) = try await rowFilter(
            appliesMutes: appliesMutes,
            alongside: [cursorPath].compactMap { $0 } + (account.map { Self.accountPaths($0, viewer: me) } ?? []))
        if let account { try Self.requireVisible(account, among: found, viewer: me) }
        if let before {
            guard let cursor = found.first(where: { $0.path == cursorPath }) else { throw TweetError.notFound(before) }
            query = query.start(after: cursor)
        }
        // Rows the filter or a protected account hides are read past until the page is full or
        // the tweets end. The rows the filter lets through are joined once there are enough of
        // them (a protected account's, which only the join finds, are read past after it).
        var kept: [Tweet] = []
        var pending: [DocumentSnapshot] = []  // read, not hidden by the filter, not joined yet
        var (rowsRead, rowsShown, exhausted) = (0, 0, false)
        while kept.count < limit {
            let missing = limit - kept.count
            while pending.count < missing, !exhausted {
                let size = Self.readSize(
                    needed: missing - pending.count, limit: limit, filtered: !filter.isEmpty, read: rowsRead,
                    shown: rowsShown)
                let batch = try await query.limit(to: size).getDocuments()
                let shown = filter.isEmpty ? batch : batch.filter { !filter.hides(tweet: $0) }
                (rowsRead, rowsShown) = (rowsRead + batch.count, rowsShown + shown.count)
                pending += shown
                exhausted = batch.count < size
                if let last = batch.last { query = query.start(after: last) }
            }
            guard !pending.isEmpty else { break }
            let joined = Array(pending.prefix(missing))
            pending.removeFirst(joined.count)
            kept += try await hydrate(joined, filter: filter)
        }
        return kept
    }

    /// How many rows a listing reads next when it needs `needed` more: a page without a filter;
    /// with one, which hides a share only reading tells, twice as many as the share shown so far
    /// says it needs, at least half a page, and two pages at first, since each read after the
    /// first also finds its cursor in every segment's index, which costs more than a few rows too
    /// many.
    static func readSize(needed: Int, limit: Int, filtered: Bool, read: Int, shown: Int) -> Int {
        guard filtered else { return limit }
        guard shown > 0 else { return 2 * limit }
        return min(2 * limit, max(needed, (limit + 1) / 2, (2 * needed * read + shown - 1) / shown))
    }

    /// The viewer's filter for one account's tabs (blocks only), read in one batch with what says
    /// whether they may see that account.
    /// - Throws: ``ProtectionError/protected(username:)``.
    func accountFilter(_ uid: String) async throws -> RowFilter {
        let me = try await auth.currentUid()
        let (filter, found) = try await rowFilter(appliesMutes: false, alongside: Self.accountPaths(uid, viewer: me))
        try Self.requireVisible(uid, among: found, viewer: me)
        return filter
    }

    /// What says whether `viewer` may see `uid`'s tweets: the account, and the viewer's follow of it.
    static func accountPaths(_ uid: String, viewer: String?) -> [DocumentPath] {
        guard viewer != uid else { return [] }
        return [UserService.userPath(uid)] + [viewer.map { UserService.followingPath(of: $0, uid) }].compactMap { $0 }
    }

    /// Throws when `documents` (read from ``accountPaths(_:viewer:)``) say that `uid` is protected
    /// and `viewer` is neither them nor an approved follower.
    static func requireVisible(_ uid: String, among documents: [DocumentSnapshot], viewer: String?) throws {
        guard viewer != uid, let user = documents.first(where: { $0.path == UserService.userPath(uid) }),
            user.data["protected"] == .bool(true)
        else { return }
        if let viewer, documents.contains(where: { $0.path == UserService.followingPath(of: viewer, uid) }) { return }
        throw ProtectionError.protected(username: user.data["username"]?.stringValue ?? uid)
    }

    /// Throws the block between the signed-in user and `uid`, if there is one, as
    /// ``SafetyError`` says it: for a tweet or profile asked for by name.
    func requireReachable(_ uid: String) async throws {
        guard let me = try await auth.currentUid(), me != uid else { return }
        let filters = ViewerFilters(fields: try await store.getDocument(ViewerFilters.path(of: me))?.data)
        guard filters.isBlocked(uid) else { return }
        let user = try await store.getDocument(DocumentPath(collection: Collections.users, documentID: uid))
        throw filters.blockError(uid, username: user?.data["username"]?.stringValue ?? uid)
    }

    /// The signed-in user's filters for a listing: with `appliesMutes`, muted accounts and words
    /// hide rows too (feeds, searches, threads, notifications); else only blocks do (a profile's
    /// tabs, bookmarks). Signed out, nothing is hidden.
    func rowFilter(appliesMutes: Bool) async throws -> RowFilter {
        try await rowFilter(appliesMutes: appliesMutes, alongside: []).filter
    }

    /// ``rowFilter(appliesMutes:)`` and the documents at `paths`, in one batched read: those of
    /// `paths` that exist, in their order.
    func rowFilter(appliesMutes: Bool, alongside paths: [DocumentPath]) async throws -> (
        filter: RowFilter, documents: [DocumentSnapshot]
    ) {
        let me = try await auth.currentUid()
        let (all, own, checked) = filterReads(paths, viewer: me)
        let found = all.isEmpty ? [] : try await store.getDocuments(all)
        let filters = ViewerFilters(fields: checked ?? found.first { $0.path == own }?.data)
        return (RowFilter(filters, now: Date(), appliesMutes: appliesMutes), found.filter { $0.path != own })
    }

    /// What ``rowFilter(appliesMutes:alongside:)`` reads for `viewer`: `paths`, then their own
    /// filters (`own`) unless the session check read them (`checked`).
    func filterReads(_ paths: [DocumentPath], viewer: String?) -> (
        all: [DocumentPath], own: DocumentPath?, checked: JSONObject??
    ) {
        let checked = viewer.flatMap { auth.checkedFilters(of: $0) }
        let own = checked == nil ? viewer.map { ViewerFilters.path(of: $0) } : nil
        return (paths + [own].compactMap { $0 }, own, checked)
    }

    /// Decodes a page of tweet documents and joins their authors, the tweets they reply to and
    /// quote (with those authors), and the signed-in user's likes and retweets: one batched read
    /// each, never one read per tweet. Tweets of protected accounts the viewer may not see are left
    /// out, and a quoted one is shown as unavailable (see ``hydrate(_:alsoUsers:filter:keepsHidden:)``).
    func hydrate(_ snapshots: [DocumentSnapshot], filter: RowFilter? = nil) async throws -> [Tweet] {
        try await hydrate(snapshots, alsoUsers: [], filter: filter).tweets
    }

    /// ``hydrate(_:)``, fetching the users `alsoUsers` names in the same batch as the authors.
    /// The tweet a reply answers is read only for a reply written before its author's uid was kept
    /// with it (`replyToUid`); a deleted one is marked on its replies (`replyToDeleted`), as a
    /// deleted quoted tweet is on its quotes (`quoteDeleted`), and neither is read.
    ///
    /// Every listing joins here, so this is where a protected account's tweets are kept from those
    /// it has not approved: they are left out (unless `keepsHidden`, for a tweet the viewer acts on
    /// by ID and is told about), and a quoted one, or one whose author `filter` hides, is shown as
    /// unavailable.
    func hydrate(
        _ snapshots: [DocumentSnapshot], alsoUsers: [String], filter: RowFilter? = nil, keepsHidden: Bool = false
    ) async throws -> (tweets: [Tweet], users: [String: User]) {
        var page: [Tweet] = []
        var replyOwners: [String: String] = [:]  // tweet ID → its parent's author, as stored
        var deletedParents: Set<String> = []
        var deletedQuoted: Set<String> = []  // tweets whose quoted tweet is marked deleted
        for snapshot in snapshots {
            page.append(try snapshot.data(as: TweetRecord.self).tweet)
            if let owner = snapshot.data["replyToUid"]?.stringValue { replyOwners[snapshot.documentID] = owner }
            if snapshot.data["replyToDeleted"] == .bool(true) { deletedParents.insert(snapshot.documentID) }
            if snapshot.data["quoteDeleted"] == .bool(true) { deletedQuoted.insert(snapshot.documentID) }
        }
        guard !page.isEmpty else { return ([], try await users.fetchUsers(withUids: alsoUsers)) }
        let related = Set(
            page.filter { replyOwners[$0.id] == nil && !deletedParents.contains($0.id) }.compactMap(\.replyToId)
                + page.filter { !deletedQuoted.contains($0.id) }.compactMap(\.quoteId))
        var others: [String: Tweet] = [:]
        if !related.isEmpty {
            for snapshot in try await store.getDocuments(related.map { tweets.document($0) }) {
                others[snapshot.documentID] = try snapshot.data(as: TweetRecord.self).tweet
            }
        }
        // The authors and the viewer's likes and retweets of the page, in one batched read, with
        // the short forms of its IDs when rows will show them.
        let me = try await auth.currentUid()
        let likes = me.map { store.collection(Collections.likes(of: $0)) }
        let mine = me.map { store.collection(Collections.retweeted(by: $0)) }
        let marks = [likes, mine].compactMap { $0 }.flatMap { collection in page.map { collection.document($0.id) } }
        // (The rows show each tweet's ID and its quoted tweet's, as ``shortIDs(_:)`` is asked.)
        let shown = page.map(\.id) + page.compactMap { $0.quoteId.flatMap { others[$0]?.id } }
        let shortening = shortForms.withLock { $0.wanted } ? Self.shortenable(shown) : []
        let (authors, existing, lengths) = try await users.fetchUsers(
            withUids: page.map(\.uid) + others.values.map(\.uid) + replyOwners.values + alsoUsers, alongside: marks,
            shortening: shortening)
        keepShortForms(of: shortening, lengths: lengths)
        let hidden = try await users.hiddenProtected(
            Set(page.map(\.uid) + page.compactMap { $0.quoteId.flatMap { others[$0]?.uid } }).compactMap {
                authors[$0]
            }, viewer: me)
        func marked(in collection: CollectionReference?) -> Set<String>? {
            collection.map { collection in Set(page.map(\.id).filter { existing.contains(collection.document($0)) }) }
        }
        let (liked, retweeted) = (marked(in: likes), marked(in: mine))
        for index in page.indices {
            page[index].user = authors[page[index].uid]
            page[index].didLike = liked.map { $0.contains(page[index].id) }
            page[index].didRetweet = retweeted.map { $0.contains(page[index].id) }
            if let parent = page[index].replyToId {
                let id = page[index].id
                if deletedParents.contains(id) {
                    page[index].replyTo = .init(id: parent, username: nil, deleted: true)
                } else if let owner = replyOwners[id] {
                    page[index].replyTo = .init(id: parent, username: authors[owner]?.username)
                } else {
                    page[index].replyTo =
                        others[parent].map { .init(id: parent, username: authors[$0.uid]?.username) }
                        ?? .init(id: parent, username: nil, deleted: true)
                }
            }
            if let quote = page[index].quoteId {
                if var quoted = others[quote] {
                    if hidden.contains(quoted.uid) || filter?.hidesAuthor(quoted.uid) == true {
                        page[index].quoted = .unavailable(id: quote)
                    } else {
                        quoted.user = authors[quoted.uid]
                        page[index].quoted = .tweet(quoted)
                    }
                } else {
                    page[index].quoted = .deleted(id: quote)
                }
            }
        }
        guard !keepsHidden, !hidden.isEmpty else { return (page, authors) }
        return (page.filter { !hidden.contains($0.uid) }, authors)
    }

    /// The tweets with these IDs that exist, joined, by ID.
    func fetchTweets(withIDs ids: [String]) async throws -> [String: Tweet] {
        try await fetchTweets(withIDs: ids, alsoUsers: []).tweets
    }

    /// ``fetchTweets(withIDs:)``, with the users `alsoUsers` names read in the same batch as the
    /// authors.
    func fetchTweets(withIDs ids: [String], alsoUsers: [String]) async throws -> (
        tweets: [String: Tweet], users: [String: User]
    ) {
        let snapshots = ids.isEmpty ? [] : try await store.getDocuments(Set(ids).map { tweets.document($0) })
        let (found, users) = try await hydrate(snapshots, alsoUsers: alsoUsers)
        return (Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }), users)
    }
}

extension TweetService {
    /// Every tweet of `uid`, replies too, oldest first, handed to `body` a page at a time (without
    /// their authors or the viewer's marks: an archive of one account's own words).
    public func forEachTweet(ofUid uid: String, pageSize: Int = 1000, _ body: ([Tweet]) throws -> Void) async throws {
        let query = tweets.whereField("uid", isEqualTo: .string(uid)).order(by: "timestamp").limit(to: pageSize)
        var page = try await query.getDocuments()
        while !page.isEmpty {
            try body(try page.map { try $0.data(as: TweetRecord.self).tweet })
            guard page.count == pageSize, let last = page.last else { return }
            page = try await query.start(after: last).getDocuments()
        }
    }
}
