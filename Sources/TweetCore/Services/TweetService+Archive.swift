import FoundationEssentials
import TweetStore
import TweetSystem
import TwitterArchive
import TwitterText

/// What importing a Twitter archive did.
public struct ArchiveImportReport: Codable, Equatable, Sendable {
    /// The tweets added, replies among them.
    public var tweets = 0
    public var replies = 0
    /// Tweets longer than 280 weighted characters, added whole.
    public var overLimit = 0
    /// Tweets whose control characters (which tweetcli never stores) were replaced.
    public var cleaned = 0
    /// Likes added.
    public var likes = 0
    /// What was left out, and why.
    public var skipped = Skipped()
    /// Accounts followed and followers, which the archive names by ID only: counted, not imported.
    public var following = 0
    public var followers = 0
    /// The profile fields filled from the archive; those already set here, which differ from the
    /// archive's and were kept; and those it had that tweetcli refused, with why.
    public var profile: [String] = []
    public var profileKept: [String] = []
    public var profileRefused: [String: String] = [:]

    public struct Skipped: Codable, Equatable, Sendable {
        /// Tweets this account imported before.
        public var alreadyImported = 0
        /// Tweets whose ID another account's import holds.
        public var importedByAnother = 0
        /// Tweets with no text, or more than tweetcli stores.
        public var unstorable = 0
        /// Likes already in the store, and likes of tweets that are not.
        public var likesAlreadyThere = 0
        public var likedTweetsNotHere = 0

        public var total: Int {
            alreadyImported + importedByAnother + unstorable + likesAlreadyThere + likedTweetsNotHere
        }
    }
}

extension TweetService {
    /// Tweets (or likes) per transaction of an archive import.
    public static let archiveBatch = 2000

    /// The most bytes an imported caption may have: a Twitter note of 25,000 characters, with room.
    public static let maximumImportedCaptionBytes = 128 << 10

    /// The ID an archived tweet gets: its time, then its Twitter ID. The time is the one its
    /// Twitter ID holds, to the millisecond, when that agrees with `created` (Twitter writes
    /// created_at from it, to the second); else `created`, so that the tweet's place among the
    /// IDs is its place in time, as every list and the search index need.
    static func importedID(twitterID: UInt64, created: Date?) -> String? {
        if let time = TwitterArchive.snowflakeTime(twitterID),
            created.map({ abs($0.timeIntervalSince1970 - Double(time) / 1000) <= 2 }) ?? true
        {
            return IDGenerator.imported(twitterID: twitterID, at: time)
        }
        guard let created else { return nil }
        let milliseconds = UInt64(max(0, created.timeIntervalSince1970 * 1000))
        return IDGenerator.imported(twitterID: twitterID, at: milliseconds)
    }

    /// Imports `archive`'s tweets and likes as the signed-in user, in transactions of a few thousand
    /// tweets, oldest first. Every tweet's ID comes from its Twitter ID, so a rerun (of an import
    /// that stopped, or of the same archive later) adds only what is missing, never a tweet twice.
    /// Replies to tweets in the store become replies (and count on them); timestamps are the
    /// archive's; nobody is notified of history. `progress` hears tweets and likes done, of all.
    /// - Throws: ``AuthError/notSignedIn``, or the store's errors (each transaction is whole).
    public func importArchive(
        _ archive: TwitterArchive, batchSize: Int = TweetService.archiveBatch,
        progress: (_ done: Int, _ of: Int) -> Void = { _, _ in }
    ) async throws -> ArchiveImportReport {
        let batchSize = max(1, batchSize)
        let me = try await auth.requireUid()
        var report = ArchiveImportReport()
        report.following = archive.following
        report.followers = archive.followers
        // Every archived tweet's ID, for replies and likes among them.
        var idOf: [UInt64: String] = [:]
        idOf.reserveCapacity(archive.tweets.count)
        for tweet in archive.tweets {
            if let id = Self.importedID(twitterID: tweet.twitterID, created: tweet.created) {
                idOf[tweet.twitterID] = id
            }
        }
        // In the order of their IDs, which is the search index's and the feeds': an archive's
        // created_at need not agree with the time in its Twitter IDs.
        let tweets = archive.tweets.sorted { first, second in
            switch (idOf[first.twitterID], idOf[second.twitterID]) {
            case (let one?, let other?): return ByteOrder.precedes(one, other)
            case (nil, let other): return other != nil
            case (_?, nil): return false
            }
        }
        let total = tweets.count + archive.likes.count
        var done = 0
        var start = 0
        while start < tweets.count {
            let batch = tweets[start..<min(start + batchSize, tweets.count)]
            let prepared = batch.compactMap { tweet -> PreparedTweet? in
                guard let prepared = PreparedTweet(tweet, id: idOf[tweet.twitterID]) else {
                    report.skipped.unstorable += 1
                    return nil
                }
                return prepared
            }
            let counts = try await importTweets(prepared, as: me, idOf: idOf)
            report.add(counts)
            start += batch.count
            done += batch.count
            progress(done, total)
        }
        start = 0
        while start < archive.likes.count {
            let batch = Array(archive.likes[start..<min(start + batchSize, archive.likes.count)])
            let counts = try await importLikes(batch, as: me, idOf: idOf)
            report.likes += counts.likes
            report.skipped.likesAlreadyThere += counts.skipped.likesAlreadyThere
            report.skipped.likedTweetsNotHere += counts.skipped.likedTweetsNotHere
            start += batch.count
            done += batch.count
            progress(done, total)
        }
        return report
    }

    /// An archived tweet made ready to store: its caption checked, its entities found.
    struct PreparedTweet {
        var tweet: TwitterArchive.ArchivedTweet
        var id: String
        var caption: String
        var entities: TweetEntities
        var overLimit: Bool
        var cleaned: Bool

        /// `nil` for a tweet tweetcli cannot store: no text, or more bytes than it keeps.
        init?(_ tweet: TwitterArchive.ArchivedTweet, id: String?) {
            guard let id else { return nil }
            var caption = tweet.text.replacingEvery("\r\n", with: "\n").trimmed()
            // What the composer refuses (controls, bidirectional overrides) is replaced, not stored.
            cleaned = false
            if TextRules.forbiddenCharacter(in: caption, multiline: true) != nil {
                var scalars = String.UnicodeScalarView()
                for scalar in caption.unicodeScalars {
                    let forbidden = TextRules.forbiddenCharacter(in: String(scalar), multiline: true) != nil
                    scalars.append(
                        forbidden ? (scalar == "\u{2028}" || scalar == "\u{2029}" ? "\n" : "\u{FFFD}") : scalar)
                }
                caption = String(scalars)
                cleaned = true
            }
            guard !caption.isEmpty, caption.utf8.count <= TweetService.maximumImportedCaptionBytes else { return nil }
            self.tweet = tweet
            self.id = id
            self.caption = caption
            let parsed = TweetText.parse(caption)
            overLimit = parsed.weightedLength > TweetService.maximumCaptionLength
            entities = TweetText.entities(in: caption)
        }
    }

    /// One transaction: the tweets of `batch` that the store does not have, with the reply counts
    /// of the tweets they answer, their search terms, trend counts and the author's tweet count.
    private func importTweets(_ batch: [PreparedTweet], as me: String, idOf: [UInt64: String]) async throws
        -> ArchiveImportReport
    {
        let tweets = store.collection(Collections.tweets)
        let store = store
        return try await store.runTransaction { transaction in
            var report = ArchiveImportReport()
            var added: [String: JSONObject] = [:]
            var order: [String] = []
            var postings: [String: [String]] = [:]
            var hashtags: [String: [(tag: String, tweets: Int64)]] = [:]
            var parentCounts: [String: Int64] = [:]
            // A protected account's hashtags are not counted in trends, as its posts' are not.
            let isProtected =
                try await transaction.getDocument(UserService.userPath(me))?.data["protected"] == .bool(true)
            for prepared in batch {
                let path = tweets.document(prepared.id)
                if added[prepared.id] != nil {
                    report.skipped.alreadyImported += 1
                    continue
                }
                if let existing = try await transaction.getDocument(path) {
                    if existing.data["uid"]?.stringValue == me {
                        report.skipped.alreadyImported += 1
                    } else {
                        report.skipped.importedByAnother += 1
                    }
                    continue
                }
                var source = TweetSource(
                    twitter: String(prepared.tweet.twitterID), favorites: prepared.tweet.favorites,
                    retweets: prepared.tweet.retweets, overLimit: prepared.overLimit ? true : nil)
                var replyTo: String?
                var owner: String?
                if let parent = prepared.tweet.replyTo {
                    let parentID = idOf[parent] ?? Self.importedID(twitterID: parent, created: nil)
                    if let parentID, added[parentID] != nil {
                        (replyTo, owner) = (parentID, me)
                    } else if let parentID,
                        let snapshot = try await transaction.getDocument(tweets.document(parentID)),
                        snapshot.data["source"]?.objectValue?["twitter"]?.stringValue == String(parent)
                    {
                        (replyTo, owner) = (parentID, snapshot.data["uid"]?.stringValue)
                    } else {
                        source.inReplyTo = String(parent)
                    }
                }
                let record = TweetRecord(
                    id: prepared.id, uid: me, caption: prepared.caption, likes: 0, timestamp: prepared.tweet.created,
                    replyToId: replyTo, entities: prepared.entities, source: source)
                var fields = record.fields
                if let owner { fields["replyToUid"] = .string(owner) }
                if isProtected { fields["untrended"] = .bool(true) }
                if let replyTo {
                    report.replies += 1
                    parentCounts[replyTo, default: 0] += 1
                }
                added[prepared.id] = fields
                order.append(prepared.id)
                for term in SearchTerms.terms(caption: prepared.caption, entities: prepared.entities) {
                    postings[term, default: []].append(prepared.id)
                }
                var counted: Set<String> = []
                for tag in prepared.entities.hashtags
                where !isProtected && counted.insert(SearchTerms.fold(tag)).inserted {
                    hashtags[SearchIndex.hour(prepared.tweet.created), default: []].append((tag, 1))
                }
                report.tweets += 1
                if prepared.overLimit { report.overLimit += 1 }
                if prepared.cleaned { report.cleaned += 1 }
            }
            // Replies to tweets of this batch count on them as they are written; others are updated.
            for (parent, count) in parentCounts {
                if var fields = added[parent] {
                    fields["replyCount"] = .integer((fields["replyCount"]?.integerValue ?? 0) + count)
                    added[parent] = fields
                } else {
                    transaction.updateData(["replyCount": .incrementCount(count)], at: tweets.document(parent))
                }
            }
            for id in order { transaction.setData(added[id]!, at: tweets.document(id)) }
            for (term, ids) in postings {
                try await SearchIndex.addMissing(ids, term: term, in: transaction, store: store)
            }
            for (hour, tags) in hashtags {
                try await SearchIndex.countImportedHashtags(tags, hour: hour, in: transaction)
            }
            if report.tweets > 0 {
                try await StatsCounter.add(report.tweets, to: \.tweets, of: me, in: transaction, store: store)
            }
            return report
        }
    }

    /// One transaction: likes of tweets in the store that `me` does not like yet. A liked
    /// tweet is found by the ID its import gave it, and is the one only if its source says so.
    private func importLikes(_ likes: [UInt64], as me: String, idOf: [UInt64: String]) async throws
        -> ArchiveImportReport
    {
        let tweets = store.collection(Collections.tweets)
        let mine = store.collection(Collections.likes(of: me))
        return try await store.runTransaction { transaction in
            var report = ArchiveImportReport()
            for twitterID in likes {
                guard let id = idOf[twitterID] ?? Self.importedID(twitterID: twitterID, created: nil),
                    let tweet = try await transaction.getDocument(tweets.document(id)),
                    tweet.data["source"]?.objectValue?["twitter"]?.stringValue == String(twitterID)
                else {
                    report.skipped.likedTweetsNotHere += 1
                    continue
                }
                guard try await transaction.getDocument(mine.document(id)) == nil else {
                    report.skipped.likesAlreadyThere += 1
                    continue
                }
                transaction.setData(
                    ["timestamp": .string(Timestamp.string(from: transaction.time)), "tweetId": .string(id)],
                    at: mine.document(id))
                transaction.updateData(["likes": .incrementCount(1)], at: tweet.path)
                report.likes += 1
            }
            return report
        }
    }
}

extension ArchiveImportReport {
    /// Adds what one batch of tweets did.
    mutating func add(_ batch: ArchiveImportReport) {
        tweets += batch.tweets
        replies += batch.replies
        overLimit += batch.overLimit
        cleaned += batch.cleaned
        skipped.alreadyImported += batch.skipped.alreadyImported
        skipped.importedByAnother += batch.skipped.importedByAnother
    }
}
