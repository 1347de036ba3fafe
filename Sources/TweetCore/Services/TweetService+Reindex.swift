import FoundationEssentials
import TweetStore
import TwitterText

/// What bringing the search index up to date did.
public struct ReindexReport: Codable, Equatable, Sendable {
    /// The tweets of the store, every one checked.
    public var tweets = 0
    /// The entries added: a tweet's ID put into the buckets of one of its terms.
    public var added = 0

    public init(tweets: Int = 0, added: Int = 0) {
        self.tweets = tweets
        self.added = added
    }
}

extension TweetService {
    /// The most tweets a transaction of a reindex reads: a term's buckets are read once for all
    /// of them, so a page of a few thousand reads each common term's buckets once, not a few times.
    public static let reindexBatch = 2000

    /// The most (term, tweet) pairs a transaction of a reindex checks, however few tweets hold
    /// them: a page of text in CJK, some 40 terms a tweet, stops early, so that no transaction
    /// holds the store long or writes a large journal record.
    public static let reindexTermsPerTransaction = 20_000

    /// Brings the search index up to date with the terms this version gives each tweet: walks
    /// every tweet in ID order, a transaction per `batchSize` tweets (fewer when their terms are
    /// many), and adds each tweet's ID to those of its terms
    /// (``SearchTerms/terms(caption:entities:)``, as posting makes them) whose buckets lack it.
    /// Nothing else changes: counts grow by the entries added, hashtag trends are not touched, and
    /// an index that lacks nothing gets no write at all. Each transaction is whole, so a reindex
    /// that stops leaves a sound index, and running it again finishes the work. `progress` hears
    /// the tweets checked so far after each transaction.
    /// - Throws: the store's errors, and ``StoreError/undecodable(path:reason:)`` for a tweet whose
    ///   caption or entities are damaged.
    public func reindex(
        batchSize: Int = TweetService.reindexBatch, termsPerTransaction: Int = TweetService.reindexTermsPerTransaction,
        progress: ProgressHandler = { _ in }
    ) async throws -> ReindexReport {
        let (batchSize, termsPerTransaction) = (max(1, batchSize), max(1, termsPerTransaction))
        let store = store
        let tweets = store.collection(Collections.tweets)
        var report = ReindexReport()
        var cursor: String?
        while true {
            let after = cursor
            let batch = try await store.runTransaction { transaction in
                var query = tweets.order(by: Query.documentID).select(["caption", "entities"]).limit(to: batchSize)
                if let after { query = query.start(after: DocumentSnapshot(path: tweets.document(after), data: [:])) }
                let page = try await transaction.getDocuments(query)
                var postings: [String: [String]] = [:]
                var pairs = 0
                var checked = 0
                for snapshot in page where pairs < termsPerTransaction {
                    checked += 1
                    let (caption, entities) = try Self.searchable(snapshot)
                    // Only terms beyond ASCII are checked: the terms that came after the index
                    // (characters of text without spaces, Korean words without their particle)
                    // all are, while an ASCII word, hashtag or mention was indexed by every
                    // version. Checking those too would be most of the work (every English
                    // tweet, and every word of the others) and could only mend damage, which is
                    // not what a reindex is for.
                    guard !Self.isASCII(caption) else { continue }
                    for term in SearchTerms.terms(caption: caption, entities: entities) where !Self.isASCII(term) {
                        postings[term, default: []].append(snapshot.documentID)
                        pairs += 1
                    }
                }
                var added = 0
                // In the terms' order, so that a run writes the same documents in the same order.
                for term in postings.keys.sorted(by: ByteOrder.precedes) {
                    added += try await SearchIndex.addMissing(
                        postings[term] ?? [], term: term, in: transaction, store: store)
                }
                let more = checked < page.count || page.count == batchSize
                return (
                    checked: checked, added: added, last: checked > 0 ? page[checked - 1].documentID : nil, more: more
                )
            }
            report.tweets += batch.checked
            report.added += batch.added
            progress(WorkProgress(done: report.tweets))
            guard batch.more, let last = batch.last else { return report }
            cursor = last
        }
    }

    private static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// A tweet's caption and entities, as posting indexed them: entities computed again for a tweet
    /// written before they were kept, as deleting one does.
    private static func searchable(_ snapshot: DocumentSnapshot) throws -> (String, TweetEntities) {
        let fields = FieldReader(fields: snapshot.data, documentID: snapshot.documentID)
        do throws(FieldReader.Failure) {
            let caption = try fields.string("caption")
            return (caption, try fields.optional(TweetEntities.self, "entities") ?? TweetText.entities(in: caption))
        } catch {
            throw StoreError.undecodable(path: snapshot.path.description, reason: error.reason)
        }
    }
}
