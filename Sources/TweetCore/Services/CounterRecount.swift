import TweetStore

/// Counts every counter of a store again from what it counts, and writes those that differ: what
/// `doctor --repair` does when ``StoreAudit`` finds a counter that disagrees. It reads a page of
/// 256 documents at a time, so its memory stays flat at any size.
struct CounterRecount {
    let store: any DocumentStore

    /// Every counter that was wrong, set right.
    /// - Returns: a sentence for each kind of counter mended, with how many.
    func recount() async throws -> [String] {
        var report: [String] = []
        var mended = 0
        try await forEach(Collections.tweets) { tweet in
            let id = tweet.documentID
            let replies = try await store.collection(Collections.tweets)
                .whereField("replyToId", isEqualTo: .string(id)).getDocuments()
                .filter { $0.data["replyToDeleted"] != .bool(true) }.count
            let counts: [(String, Int)] = [
                (
                    "likes",
                    try await store.collectionGroup(Collections.userLikes)
                        .whereField("tweetId", isEqualTo: .string(id)).count()
                ),
                (
                    "retweets",
                    try await store.collection(Collections.retweets)
                        .whereField("tweetId", isEqualTo: .string(id)).count()
                ),
                ("replyCount", replies),
            ]
            if try await set(counts, at: tweet) { mended += 1 }
        }
        if mended > 0 { report.append("counted again the likes, retweets and replies of \(mended) tweet(s)") }
        mended = 0
        try await forEach(Collections.userStats) { stats in
            let uid = stats.documentID
            let counts: [(String, Int)] = [
                (
                    "tweets",
                    try await store.collection(Collections.tweets)
                        .whereField("uid", isEqualTo: .string(uid)).count()
                ),
                ("following", try await store.collection(Collections.following(of: uid)).query.count()),
                ("followers", try await store.collection(Collections.followers(of: uid)).query.count()),
            ]
            if try await set(counts, at: stats) { mended += 1 }
        }
        if mended > 0 { report.append("counted again the tweets and follows of \(mended) user(s)") }
        mended = 0
        try await forEach(SearchIndex.terms) { term in
            var ids = 0
            for bucket in try await store.collection(
                "\(SearchIndex.terms)/\(term.documentID)/\(SearchIndex.buckets)"
            ).query.getDocuments() {
                ids += bucket.data["ids"]?.arrayValue?.count ?? 0
            }
            if try await set([("tweets", ids)], at: term) { mended += 1 }
        }
        if mended > 0 { report.append("counted again the tweets of \(mended) search term(s)") }
        return report
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

    /// Writes the counts of `document` that differ from `counts`, in one transaction.
    /// - Returns: whether any did.
    private func set(_ counts: [(String, Int)], at document: DocumentSnapshot) async throws -> Bool {
        var changes: [String: FieldValue] = [:]
        for (field, count) in counts where document.data[field]?.integerValue != Int64(count) {
            changes[field] = .value(.integer(Int64(count)))
        }
        guard !changes.isEmpty else { return false }
        let path = document.path
        let update = changes
        try await store.runTransaction { $0.updateData(update, at: path) }
        return true
    }
}
