import TweetStore

/// Keeps `user-stats/{uid}` (following, followers, tweets) in step with the documents they count,
/// inside the transactions that change them, so a profile reads one document instead of counting.
///
/// A store written before the counters existed has no stats document: the first change counts
/// once, inside the transaction, and writes the document; reads count until then.
package enum StatsCounter {
    package static func path(of uid: String) -> DocumentPath {
        DocumentPath(collection: Collections.userStats, documentID: uid)
    }

    /// The fields of a stats document.
    package static func fields(_ stats: UserStats) -> JSONObject {
        [
            "following": .integer(Int64(stats.following)), "followers": .integer(Int64(stats.followers)),
            "tweets": .integer(Int64(stats.tweets)),
        ]
    }

    static func stats(from fields: JSONObject) -> UserStats? {
        guard let following = fields["following"]?.integerValue, let followers = fields["followers"]?.integerValue,
            let tweets = fields["tweets"]?.integerValue
        else { return nil }
        // The store is not trusted: a count below zero (a damaged or hostile document) reads as 0.
        return UserStats(
            following: Int(max(0, following)), followers: Int(max(0, followers)), tweets: Int(max(0, tweets)))
    }

    /// Adds `delta` to one counter of `uid` in `transaction`.
    /// - Returns: the stats document as the transaction read it (before the change), `nil` for none.
    @discardableResult
    static func add(
        _ delta: Int, to keyPath: WritableKeyPath<UserStats, Int>, of uid: String, in transaction: Transaction,
        store: any DocumentStore
    ) async throws -> JSONObject? {
        try await add([(delta, keyPath)], of: uid, in: transaction, store: store)
    }

    /// Adds each delta to its counter of `uid` in `transaction`, in one write: a transaction's
    /// reads do not see its own writes, so one user's counters change in one call.
    /// - Returns: the stats document as the transaction read it (before the change), `nil` for none.
    @discardableResult
    static func add(
        _ deltas: [(Int, WritableKeyPath<UserStats, Int>)], of uid: String, in transaction: Transaction,
        store: any DocumentStore
    ) async throws -> JSONObject? {
        let path = path(of: uid)
        let snapshot = try await transaction.getDocument(path)
        var counts: UserStats
        if let snapshot, let saved = stats(from: snapshot.data) {
            counts = saved
        } else {
            counts = try await count(uid, store: store) { try await transaction.getDocuments($0).count }
        }
        for (delta, keyPath) in deltas {
            // A count the store holds is not trusted to leave room: it stays at the largest there is.
            let (sum, overflow) = counts[keyPath: keyPath].addingReportingOverflow(delta)
            counts[keyPath: keyPath] = overflow ? (delta > 0 ? .max : 0) : max(0, sum)
        }
        // The document's other fields (``FollowingList/mark``) stay.
        transaction.setData((snapshot?.data ?? [:]).merging(fields(counts)) { _, new in new }, at: path)
        return snapshot?.data
    }

    /// The queries whose counts are `uid`'s following, followers and tweets, in that order.
    static func countingQueries(_ uid: String, store: any DocumentStore) -> [Query] {
        [
            store.collection(Collections.following(of: uid)).query,
            store.collection(Collections.followers(of: uid)).query,
            store.collection(Collections.tweets).whereField("uid", isEqualTo: .string(uid)),
        ]
    }

    /// Counts the documents behind `uid`'s stats with `count` (a transaction's or the store's).
    static func count(_ uid: String, store: any DocumentStore, _ count: (Query) async throws -> Int) async rethrows
        -> UserStats
    {
        var counts: [Int] = []
        for query in countingQueries(uid, store: store) { counts.append(try await count(query)) }
        return UserStats(following: counts[0], followers: counts[1], tweets: counts[2])
    }
}
