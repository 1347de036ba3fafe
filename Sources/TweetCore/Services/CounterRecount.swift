import TweetStore

/// Counts counters again from what they count, and writes those that differ: what
/// `doctor --repair` does when ``StoreAudit`` finds a counter that disagrees, and what a merge does
/// for the counters its documents touch (a like it adds to a tweet the store has). It reads a page
/// of 256 documents at a time, so its memory stays flat at any size.
struct CounterRecount {
    let store: any DocumentStore

    /// The targets whose counters some documents touch: tweets, users and search terms.
    struct Targets {
        var tweets: Set<String> = []
        var users: Set<String> = []
        var terms: Set<String> = []

        /// Those of `documents`: each counter's document and each marker's target.
        init(of documents: [(DocumentPath, JSONObject)]) {
            for (path, data) in documents {
                let parts = path.collection.split(separator: "/").map(String.init)
                switch (parts.first, parts.last) {
                case (Collections.tweets?, _):
                    tweets.insert(path.documentID)
                    users.formUnion([data["uid"]?.stringValue].compactMap { $0 })
                    tweets.formUnion([data["replyToId"]?.stringValue, data["quoteId"]?.stringValue].compactMap { $0 })
                case (Collections.retweets?, _): tweets.formUnion([data["tweetId"]?.stringValue].compactMap { $0 })
                case (Collections.users?, Collections.userLikes?): tweets.insert(path.documentID)
                case (Collections.userStats?, _): users.insert(path.documentID)
                case ("following"?, _),
                    ("followers"?, _) where parts.count == 3:
                    users.insert(parts[1])
                case (SearchIndex.terms?, _): terms.insert(parts.count == 3 ? parts[1] : path.documentID)
                default: continue
                }
            }
        }

        init() {}
    }

    /// Every counter of the store that was wrong, set right.
    /// - Returns: a sentence for each kind of counter mended, with how many.
    func recount() async throws -> [String] {
        var report: [String] = []
        var mended = 0
        try await forEach(Collections.tweets) { if try await recountTweet($0) { mended += 1 } }
        if mended > 0 { report.append("counted again the likes, retweets, replies and quotes of \(mended) tweet(s)") }
        mended = 0
        try await forEach(Collections.userStats) { if try await recountUser($0) { mended += 1 } }
        if mended > 0 { report.append("counted again the tweets and follows of \(mended) user(s)") }
        mended = 0
        try await forEach(SearchIndex.terms) { if try await recountTerm($0) { mended += 1 } }
        if mended > 0 { report.append("counted again the tweets of \(mended) search term(s)") }
        return report
    }

    /// What hangs on tweets that are gone (a repair that set a damaged line aside can lose a tweet
    /// and keep its likes), as deleting the tweet would have left it: its likes and retweets
    /// removed, its replies marked `replyToDeleted` and its quotes `quoteDeleted`. Counting again cannot mend these, since no
    /// tweet is left to hold the count.
    /// - Returns: a sentence for each kind of document changed, with how many.
    func settleOrphans() async throws -> [String] {
        var (likes, retweets, replies, quotes) = (0, 0, 0, 0)
        let tweets = store.collection(Collections.tweets)
        func missing(_ ids: [String]) async throws -> Set<String> {
            let found = try await store.getDocuments(ids.map { tweets.document($0) })
            let present = Set(found.map(\.documentID))
            return Set(ids.filter { !present.contains($0) })
        }
        try await forEach(Collections.tweets) { tweet in
            for (link, mark) in [("replyToId", "replyToDeleted"), ("quoteId", "quoteDeleted")] {
                guard let target = tweet.data[link]?.stringValue, tweet.data[mark] != .bool(true),
                    try await !missing([target]).isEmpty
                else { continue }
                let path = tweet.path
                try await store.runTransaction { $0.updateData([mark: .value(.bool(true))], at: path) }
                if link == "replyToId" { replies += 1 } else { quotes += 1 }
            }
        }
        try await forEach(Collections.retweets) { retweet in
            guard let id = retweet.data["tweetId"]?.stringValue, try await !missing([id]).isEmpty else { return }
            let path = retweet.path
            let marker = retweet.data["uid"]?.stringValue.map {
                DocumentPath(collection: Collections.retweeted(by: $0), documentID: id)
            }
            try await store.runTransaction { transaction in
                transaction.deleteDocument(path)
                if let marker { transaction.deleteDocument(marker) }
            }
            retweets += 1
        }
        var query = store.collectionGroup(Collections.userLikes).limit(to: 256)
        while true {
            let page = try await query.getDocuments()
            let gone = try await missing(page.map(\.documentID))
            for like in page where gone.contains(like.documentID) {
                let path = like.path
                try await store.runTransaction { $0.deleteDocument(path) }
                likes += 1
            }
            guard page.count == 256, let last = page.last else { break }
            query = store.collectionGroup(Collections.userLikes).limit(to: 256).start(after: last)
        }
        var report: [String] = []
        if likes > 0 { report.append("removed \(likes) like(s) of tweets that are gone") }
        if retweets > 0 { report.append("removed \(retweets) retweet(s) of tweets that are gone") }
        if replies > 0 { report.append("marked \(replies) reply(ies) to tweets that are gone") }
        if quotes > 0 { report.append("marked \(quotes) quote(s) of tweets that are gone") }
        return report
    }

    /// The counters of `targets` only.
    func recount(_ targets: Targets) async throws {
        for id in targets.tweets.sorted() {
            guard let tweet = try await store.getDocument(store.collection(Collections.tweets).document(id)) else {
                continue
            }
            _ = try await recountTweet(tweet)
        }
        for uid in targets.users.sorted() {
            guard let stats = try await store.getDocument(StatsCounter.path(of: uid)) else { continue }
            _ = try await recountUser(stats)
        }
        for term in targets.terms.sorted() {
            let path = DocumentPath(collection: SearchIndex.terms, documentID: term)
            guard let document = try await store.getDocument(path) else { continue }
            _ = try await recountTerm(document)
        }
    }

    private func recountTweet(_ tweet: DocumentSnapshot) async throws -> Bool {
        let id = tweet.documentID
        let replies = store.collection(Collections.tweets).whereField("replyToId", isEqualTo: .string(id))
        let likes = store.collectionGroup(Collections.userLikes).whereField("tweetId", isEqualTo: .string(id))
        let retweets = store.collection(Collections.retweets).whereField("tweetId", isEqualTo: .string(id))
        let quotes = store.collection(Collections.tweets).whereField("quoteId", isEqualTo: .string(id))
        return try await set(tweet.path) { transaction in
            [
                ("likes", try await transaction.getDocuments(likes).count),
                ("retweets", try await transaction.getDocuments(retweets).count),
                (
                    "replyCount",
                    try await transaction.getDocuments(replies).filter { $0.data["replyToDeleted"] != .bool(true) }
                        .count
                ),
                (
                    "quotes",
                    try await transaction.getDocuments(quotes).filter { $0.data["quoteDeleted"] != .bool(true) }.count
                ),
            ]
        }
    }

    private func recountUser(_ stats: DocumentSnapshot) async throws -> Bool {
        let uid = stats.documentID
        let tweets = store.collection(Collections.tweets).whereField("uid", isEqualTo: .string(uid))
        let following = store.collection(Collections.following(of: uid)).query
        let followers = store.collection(Collections.followers(of: uid)).query
        return try await set(stats.path) { transaction in
            [
                ("tweets", try await transaction.getDocuments(tweets).count),
                ("following", try await transaction.getDocuments(following).count),
                ("followers", try await transaction.getDocuments(followers).count),
            ]
        }
    }

    private func recountTerm(_ term: DocumentSnapshot) async throws -> Bool {
        let buckets = store.collection("\(SearchIndex.terms)/\(term.documentID)/\(SearchIndex.buckets)").query
        return try await set(term.path) { transaction in
            [
                (
                    "tweets",
                    try await transaction.getDocuments(buckets).reduce(0) {
                        $0 + ($1.data["ids"]?.arrayValue?.count ?? 0)
                    }
                )
            ]
        }
    }

    /// Each document of `collection`, a page at a time.
    private func forEach(_ collection: String, _ body: (DocumentSnapshot) async throws -> Void) async throws {
        var query = store.collection(collection).query.limit(to: 256)
        while true {
            let page = try await query.getDocuments()
            for document in page { try await body(document) }
            guard page.count == 256, let last = page.last else { return }
            query = store.collection(collection).query.limit(to: 256).start(after: last)
        }
    }

    /// Counts `document`'s counters in one transaction with their writes, so a like that comes in
    /// between is counted once, and writes those that differ.
    /// - Returns: whether any did.
    private func set(
        _ path: DocumentPath, counting counts: @escaping @Sendable (Transaction) async throws -> [(String, Int)]
    ) async throws -> Bool {
        try await store.runTransaction { transaction in
            guard let document = try await transaction.getDocument(path) else { return false }
            var changes: [String: FieldValue] = [:]
            for (field, count) in try await counts(transaction)
            where document.data[field]?.integerValue ?? 0 != Int64(count) {
                changes[field] = .value(.integer(Int64(count)))
            }
            guard !changes.isEmpty else { return false }
            transaction.updateData(changes, at: path)
            return true
        }
    }
}
