import TweetStore

/// `following-list/{uid}`: the uids `uid` follows in one document, so the following feed reads one
/// document instead of a collection of them (reading every follow's document was a large share of
/// the feed's work). Follow and unfollow keep it in the transaction that changes the follow.
///
/// It is trusted only while `user-stats/{uid}` says `followingListed` and counts as many follows
/// as the list holds. A binary from before the list writes the stats document whole, so any follow
/// it makes drops the mark and the list is not read again until a follow rebuilds it from the
/// collection. A list that is missing, damaged or over ``maximumCount`` is not read either: the
/// collection is.
package enum FollowingList {
    static let collection = "following-list"
    /// The mark in the stats document that the list is kept.
    package static let mark = "followingListed"
    /// The most uids one list holds (Twitter's own limit on follows): more are read from the collection.
    package static let maximumCount = 5_000

    package static func path(of uid: String) -> DocumentPath {
        DocumentPath(collection: collection, documentID: uid)
    }

    /// A list's fields.
    package static func fields(_ uids: [String]) -> JSONObject {
        ["uids": .array(uids.map { .string($0) })]
    }

    /// The uids of a list, when `stats` marks it kept and counts as many, each one that could be a
    /// document's ID, in strictly increasing byte order (as ``record(_:follows:_:in:store:)`` writes
    /// them: none twice).
    static func uids(list: JSONObject?, stats: JSONObject?) -> [String]? {
        guard let stats, stats[mark] == .bool(true), let following = stats["following"]?.integerValue,
            case .array(let values)? = list?["uids"], values.count == following
        else { return nil }
        var uids: [String] = []
        uids.reserveCapacity(values.count)
        for value in values {
            // The bytes searched in place (a native string's are contiguous): the generic UTF-8
            // view costs many times as much for each uid.
            guard let uid = value.stringValue, !uid.isEmpty,
                !(uid.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "/")) }
                    ?? uid.utf8.contains(UInt8(ascii: "/"))),
                uids.last.map({ ByteOrder.precedes($0, uid) }) ?? true
            else { return nil }
            uids.append(uid)
        }
        return uids
    }

    /// Records in `transaction` that `uid` follows `other` (or no longer does), with the list as it
    /// was read or, when it cannot be trusted, as the collection holds it. `stats` is `uid`'s stats
    /// document as the transaction's ``StatsCounter/add(_:to:of:in:store:)`` of its following count
    /// read it, before the change; call this after that.
    static func record(
        _ uid: String, follows other: String, _ follows: Bool, stats: JSONObject?, in transaction: Transaction,
        store: any DocumentStore
    ) async throws {
        let statsPath = StatsCounter.path(of: uid)
        let list = try await transaction.getDocument(path(of: uid))?.data
        var uids: [String]
        if let kept = Self.uids(list: list, stats: stats) {
            uids = kept
        } else {
            uids = try await transaction.getDocuments(store.collection(Collections.following(of: uid)).query.select([]))
                .map(\.documentID)
        }
        uids.removeAll { $0 == other }
        if follows { uids.append(other) }
        uids.sort(by: ByteOrder.precedes)
        if uids.count <= maximumCount {
            transaction.setData(fields(uids), at: path(of: uid))
        } else {
            transaction.deleteDocument(path(of: uid))
        }
        transaction.updateData([mark: .value(.bool(uids.count <= maximumCount))], at: statsPath)
    }

    /// Stops trusting the list of each follower in `follows` that lacks one of the uids given for
    /// it (its stats lose the mark), so that its following is read from the collection until a
    /// follow writes a list again: after follows were written by something other than a follow,
    /// such as `import --merge`. A list that holds them all is left as it is, so merging a store's
    /// own backup changes nothing; and since the lists stay, a merge run again after one killed
    /// before this point finds the same lists lacking the same follows.
    static func forgetLacking(_ follows: [String: Set<String>], store: any DocumentStore) async throws {
        let followers = follows.keys.sorted()
        // Batches keep each transaction small; each changes only lists that were trusted.
        for start in stride(from: 0, to: followers.count, by: 512) {
            let batch = followers[start..<min(start + 512, followers.count)]
            try await store.runTransaction { transaction in
                for uid in batch {
                    let statsPath = StatsCounter.path(of: uid)
                    let stats = try await transaction.getDocument(statsPath)?.data
                    guard stats?[mark] == .bool(true) else { continue }
                    let list = try await transaction.getDocument(path(of: uid))?.data
                    if let kept = Self.uids(list: list, stats: stats), follows[uid]!.isSubset(of: kept) { continue }
                    transaction.updateData([mark: .value(.bool(false))], at: statsPath)
                }
            }
        }
    }

    /// The uid whose follows `collection` holds, when it is a `following/{uid}/user-following`.
    static func follower(inCollection collection: String) -> String? {
        let parts = collection.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "following", parts[2] == "user-following", !parts[1].isEmpty else {
            return nil
        }
        return String(parts[1])
    }
}
