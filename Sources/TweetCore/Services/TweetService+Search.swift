import FoundationEssentials
import TweetStore
import TweetSystem
import TwitterText

#if canImport(Glibc)
    import Glibc
#endif

/// The search index and the trend counters, written in the transaction that posts or deletes a
/// tweet.
///
/// - `terms/{term}`: how many tweets have the term, and its open bucket (the newest, if not full).
/// - `terms/{term}/buckets/{first tweet ID}`: up to ``bucketSize`` tweet IDs with the term, in ID
///   (time) order, with `start`, the bucket's first ID, indexed to read them newest first. Buckets
///   rather than one document per tweet keep a million tweets' index to a few hundred thousand
///   small documents.
/// - `trend-hours/{yyyyMMddHH}`: the hashtags of that UTC hour's tweets, `tags` mapping each folded
///   hashtag to `[as first written, tweets]`: one document per hour, so that a day's trends are 24
///   reads.
package enum SearchIndex {
    static let terms = "terms"
    static let buckets = "buckets"
    static let trendHours = "trend-hours"
    /// Tweet IDs a bucket takes from posts: small, since each post rewrites its terms' open buckets.
    static let bucketSize = 16
    /// Tweet IDs per bucket that `seed` writes at once: fewer documents for a million tweets. Any
    /// size reads the same; a post opens a new bucket after a full or seeded one.
    package static let seedBucketSize = 64

    /// A term as a document ID: `/` and `%` escaped (terms are letters and digits, so this is rare).
    static func documentID(_ term: String) -> String {
        guard term.contains(where: { $0 == "/" || $0 == "%" }) else { return term }
        return term.replacingEvery("%", with: "%25").replacingEvery("/", with: "%2F")
    }

    package static func termPath(_ term: String) -> DocumentPath {
        DocumentPath(collection: terms, documentID: documentID(term))
    }

    package static func bucketsCollection(_ term: String) -> String { "\(terms)/\(documentID(term))/\(buckets)" }

    /// The UTC hour of `date`, `yyyyMMddHH`: a trend bucket's name.
    package static func hour(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Digits by hand: String(format:) costs more than the rest of a seeded tweet's index.
        var digits: [UInt8] = []
        digits.reserveCapacity(10)
        for (value, width) in [
            (Int(parts.tm_year) + 1900, 4), (Int(parts.tm_mon) + 1, 2), (Int(parts.tm_mday), 2),
            (Int(parts.tm_hour), 2),
        ] {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                digits.append(UInt8(48 + (value / divisor) % 10))
                divisor /= 10
            }
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// The start of hour `yyyyMMddHH`, as ``hour(_:)`` names it; `nil` for any other name.
    static func date(ofHour name: String) -> Date? {
        let bytes = Array(name.utf8)
        guard bytes.count == 10, let year = Timestamp.decimal(bytes, 0..<4),
            let month = Timestamp.decimal(bytes, 4..<6), let day = Timestamp.decimal(bytes, 6..<8),
            let hour = Timestamp.decimal(bytes, 8..<10), hour < 24,
            let seconds = Timestamp.secondsSince1970(
                year: year, month: month, day: day, hour: hour, minute: 0, second: 0)
        else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    package static func trendPath(_ hour: String) -> DocumentPath {
        DocumentPath(collection: trendHours, documentID: hour)
    }

    /// An hour's counts from its document: folded hashtag → (as first written, tweets). Entries
    /// that are not `[string, positive integer]` are left out: the store is not trusted.
    static func trendCounts(_ fields: JSONObject?) -> [String: (hashtag: String, tweets: Int64)] {
        guard case .object(let tags)? = fields?["tags"] else { return [:] }
        var counts: [String: (hashtag: String, tweets: Int64)] = [:]
        counts.reserveCapacity(tags.count)
        for (key, value) in tags {
            guard case .array(let pair) = value, pair.count == 2, let shown = pair[0].stringValue,
                let tweets = pair[1].integerValue, tweets > 0
            else { continue }
            counts[key] = (shown, tweets)
        }
        return counts
    }

    package static func trendFields(_ counts: [String: (hashtag: String, tweets: Int64)]) -> JSONObject {
        ["tags": .object(JSONObject(counts.mapValues { .array([.string($0.hashtag), .integer($0.tweets)]) }))]
    }

    /// A bucket's fields.
    package static func bucket(_ ids: [String]) -> JSONObject {
        ["start": .string(ids.first ?? ""), "ids": .array(ids.map { .string($0) })]
    }

    package static func ids(_ fields: JSONObject?) -> [String] {
        fields?["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The bucket of `term` that would hold `tweetID`: the one with the greatest start at or below it.
    static func bucketHolding(_ tweetID: String, term: String, store: any DocumentStore) -> Query {
        let collection = store.collection(bucketsCollection(term))
        let marker = DocumentSnapshot(
            path: collection.document("~"), data: ["start": .string(tweetID)])
        return collection.order(by: "start", descending: true).start(after: marker)
    }

    /// Indexes a new tweet under its terms, and counts its hashtags in its hour.
    static func add(
        tweetID: String, time: Date, caption: String, entities: TweetEntities, countsTrends: Bool = true,
        in transaction: Transaction
    ) async throws {
        let terms = SearchTerms.terms(caption: caption, entities: entities)
        // The terms' documents in one read, then their open buckets in another (on a server, two
        // round trips however many terms); the loop below then reads them from the transaction.
        try await transaction.readAhead(terms.map(termPath))
        var open: [DocumentPath] = []
        for term in terms {
            guard let name = try await transaction.getDocument(termPath(term))?.data["open"]?.stringValue else {
                continue
            }
            open.append(DocumentPath(collection: bucketsCollection(term), documentID: name))
        }
        try await transaction.readAhead(open)
        for term in terms {
            let path = termPath(term)
            var fields = try await transaction.getDocument(path)?.data ?? [:]
            let count = fields["tweets"]?.integerValue ?? 0
            let buckets = bucketsCollection(term)
            if let open = fields["open"]?.stringValue,
                case let bucketPath = DocumentPath(collection: buckets, documentID: open),
                case var ids = Self.ids(try await transaction.getDocument(bucketPath)?.data),
                !ids.isEmpty, ids.count < bucketSize
            {
                ids.append(tweetID)
                ids.sort(by: ByteOrder.precedes)
                // The bucket keeps its name as its start, even when the tweet it began with was
                // deleted: its place among the others does not change.
                var kept = bucket(ids)
                kept["start"] = .string(open)
                transaction.setData(kept, at: bucketPath)
                fields["openSize"] = .integer(Int64(ids.count))
            } else {
                transaction.setData(bucket([tweetID]), at: DocumentPath(collection: buckets, documentID: tweetID))
                fields["open"] = .string(tweetID)
                fields["openSize"] = .integer(1)
            }
            fields["tweets"] = .integer(count + 1)
            transaction.setData(fields, at: path)
        }
        if countsTrends { try await countHashtags(entities, at: time, by: 1, in: transaction) }
    }

    /// Adds to `term` those of `ids` (tweets that have the term) that its buckets do not hold yet,
    /// and returns how many it added: all of an archive's new tweets, or the few a reindex finds
    /// missing. The IDs may fall anywhere in time, so the term's buckets that their range overlaps
    /// are read; when some are missing, those buckets' IDs and the missing ones are written again
    /// as buckets of ``seedBucketSize``, keeping the buckets apart and in order. When none is
    /// missing, nothing is written.
    ///
    /// The term's `open` bucket is its newest (posts, the seed and this keep it so): when the IDs
    /// all follow it, as an archive's oldest-first batches do, nothing can overlap and two reads by
    /// key stand in for the query.
    @discardableResult
    static func addMissing(_ given: [String], term: String, in transaction: Transaction, store: any DocumentStore)
        async throws -> Int
    {
        var ids: [String] = []
        for id in given.sorted(by: ByteOrder.precedes) where ids.last != id { ids.append(id) }
        let existing = try await transaction.getDocument(termPath(term))?.data
        guard
            let merge = try await mergeMissing(
                ids, term: term, existing: existing, store: store,
                document: { try await transaction.getDocument($0)?.data },
                query: { try await transaction.getDocuments($0) })
        else { return 0 }
        for bucket in merge.replaced { transaction.deleteDocument(bucket) }
        for (path, fields) in merge.buckets { transaction.setData(fields, at: path) }
        transaction.setData(merge.fields, at: termPath(term))
        return merge.added
    }

    /// What adding tweet IDs to a term writes: its buckets, the buckets they replace, and its document.
    struct TermMerge {
        var buckets: [(DocumentPath, JSONObject)]
        /// Buckets read whose IDs the new buckets hold: to delete, unless a new one has the path.
        var replaced: [DocumentPath]
        var fields: JSONObject
        var added: Int
        /// Whether the term's open bucket is now another: the IDs came after it, or were merged with it.
        var movedOpen: Bool
        /// Whether buckets the store had are written again (at their own paths or others).
        var rewrote: Bool
    }

    /// ``addMissing(_:term:in:store:)`` worked out from reads, without writing: `ids` sorted and
    /// each once, `existing` the term's document; `document` and `query` read the store.
    /// - Returns: `nil` when every ID is there already.
    static func mergeMissing(
        _ ids: [String], term: String, existing: JSONObject?, store: any DocumentStore,
        document: (DocumentPath) async throws -> JSONObject?, query: (Query) async throws -> [DocumentSnapshot]
    ) async throws -> TermMerge? {
        guard let first = ids.first, let last = ids.last else { return nil }
        var fields = existing ?? [:]
        let buckets = bucketsCollection(term)
        let open = fields["open"]?.stringValue
        var held: [String] = []
        var replaced: [DocumentPath] = []
        var follows = existing == nil
        if existing != nil, let open,
            let top = Self.ids(try await document(DocumentPath(collection: buckets, documentID: open))).last,
            ByteOrder.precedes(top, first)
        {
            follows = true
        }
        if !follows {
            // Buckets at or below the newest ID, newest first, to the end of the page that reaches
            // one ending below the oldest: a post that came a moment out of order can leave a
            // bucket reaching below the start of the one after it. The first page is of two (the
            // bucket that holds the IDs, most often, and the one below), as a reindex checks a
            // few IDs of each term at a time.
            let holding = bucketHolding(last, term: term, store: store)
            var limit = 2
            var next = holding.limit(to: limit)
            while true {
                let page = try await query(next)
                var reachedBelow = false
                for bucket in page {
                    let inBucket = Self.ids(bucket.data)
                    guard let top = inBucket.last else { continue }
                    if ByteOrder.precedes(top, first) {
                        reachedBelow = true
                        continue
                    }
                    held += inBucket
                    replaced.append(bucket.path)
                }
                guard !reachedBelow, page.count == limit, let end = page.last else { break }
                limit = 8
                next = holding.start(after: end).limit(to: limit)
            }
            held.sort(by: ByteOrder.precedes)
        }
        // Both lists are sorted: one pass finds the IDs no bucket holds.
        var missing = 0
        var position = held.startIndex
        for id in ids {
            while position < held.endIndex, ByteOrder.precedes(held[position], id) { position += 1 }
            if position == held.endIndex || held[position] != id { missing += 1 }
        }
        guard missing > 0 else { return nil }
        var unique: [String] = []
        if held.isEmpty {
            unique = ids
        } else {
            unique.reserveCapacity(held.count + ids.count)
            for id in (held + ids).sorted(by: ByteOrder.precedes) where unique.last != id { unique.append(id) }
        }
        var written: [(DocumentPath, JSONObject)] = []
        var newest: [String] = []
        for chunk in stride(from: 0, to: unique.count, by: seedBucketSize) {
            newest = Array(unique[chunk..<min(chunk + seedBucketSize, unique.count)])
            written.append((DocumentPath(collection: buckets, documentID: newest[0]), bucket(newest)))
        }
        // The newest chunk is the newest bucket when the open one was before it or is merged into it.
        let movedOpen =
            follows
            || open.map { open in
                replaced.contains { $0.documentID == open } || ByteOrder.precedes(open, newest[0])
            } == true
        if movedOpen {
            fields["open"] = .string(newest[0])
            fields["openSize"] = .integer(Int64(newest.count))
        }
        let (tweets, overflow) = (fields["tweets"]?.integerValue ?? 0).addingReportingOverflow(Int64(missing))
        fields["tweets"] = .integer(overflow ? .max : tweets)
        let kept = Set(written.map(\.0))
        return TermMerge(
            buckets: written, replaced: replaced.filter { !kept.contains($0) }, fields: fields, added: missing,
            movedOpen: movedOpen, rewrote: !replaced.isEmpty)
    }

    /// Counts imported tweets' hashtags in one hour: `tags`, one entry per tweet and hashtag.
    static func countImportedHashtags(
        _ tags: [(tag: String, tweets: Int64)], hour: String, in transaction: Transaction
    ) async throws {
        let path = trendPath(hour)
        var counts = trendCounts(try await transaction.getDocument(path)?.data)
        for (tag, tweets) in tags {
            let key = SearchTerms.fold(tag)
            let existing = counts[key]
            let (sum, overflow) = (existing?.tweets ?? 0).addingReportingOverflow(tweets)
            counts[key] = (existing?.hashtag ?? tag, overflow ? Int64.max : sum)
        }
        transaction.setData(trendFields(counts), at: path)
    }

    /// Takes a deleted tweet out of its terms' buckets and its hashtags' hour counts. A tweet from
    /// before the index, in no bucket, changes nothing.
    static func remove(
        tweetID: String, time: Date, caption: String, entities: TweetEntities, countedInTrends: Bool = true,
        in transaction: Transaction, store: any DocumentStore
    ) async throws {
        var indexed = false
        for term in SearchTerms.terms(caption: caption, entities: entities) {
            // The bucket at or below the ID, or (for an ID that came in a moment out of order) the next one.
            let candidates = try await transaction.getDocuments(
                bucketHolding(tweetID, term: term, store: store).limit(to: 2))
            guard let holder = candidates.first(where: { Self.ids($0.data).contains(tweetID) }) else { continue }
            indexed = true
            let ids = Self.ids(holder.data).filter { $0 != tweetID }
            let path = termPath(term)
            var fields = try await transaction.getDocument(path)?.data ?? [:]
            // A count below one in the store (damaged) cannot be taken one from without a trap.
            let count = max(1, fields["tweets"]?.integerValue ?? 1) - 1
            if ids.isEmpty {
                transaction.deleteDocument(holder.path)
                if fields["open"]?.stringValue == holder.documentID { fields["open"] = nil }
            } else {
                // The bucket keeps its name and start: its place among the others does not change.
                var kept = bucket(ids)
                kept["start"] = holder.data["start"]
                transaction.setData(kept, at: holder.path)
                if fields["open"]?.stringValue == holder.documentID { fields["openSize"] = .integer(Int64(ids.count)) }
            }
            if count > 0 {
                fields["tweets"] = .integer(count)
                transaction.setData(fields, at: path)
            } else {
                transaction.deleteDocument(path)
            }
        }
        if indexed, countedInTrends { try await countHashtags(entities, at: time, by: -1, in: transaction) }
    }

    private static func countHashtags(
        _ entities: TweetEntities, at time: Date, by delta: Int64, in transaction: Transaction
    ) async throws {
        guard !entities.hashtags.isEmpty else { return }
        let path = trendPath(hour(time))
        var counts = trendCounts(try await transaction.getDocument(path)?.data)
        var counted: Set<String> = []
        for tag in entities.hashtags {
            let key = SearchTerms.fold(tag)
            guard counted.insert(key).inserted else { continue }
            let existing = counts[key]
            let (sum, overflow) = (existing?.tweets ?? 0).addingReportingOverflow(delta)
            let tweets = overflow ? Int64.max : sum  // a damaged count saturates, never traps
            counts[key] = tweets > 0 ? (existing?.hashtag ?? tag, tweets) : nil
        }
        if counts.isEmpty {
            transaction.deleteDocument(path)
        } else {
            transaction.setData(trendFields(counts), at: path)
        }
    }
}

/// A hashtag of "What's happening", with how many tweets used it in the window.
public struct Trend: Codable, Equatable, Sendable {
    public var hashtag: String
    public var tweets: Int

    public init(hashtag: String, tweets: Int) {
        self.hashtag = hashtag
        self.tweets = tweets
    }
}

/// The trends of a window of hours.
public struct Trends: Equatable, Sendable {
    public var trends: [Trend]
    /// The window's end: now, or the start of the newest hour with hashtags when the window had none.
    public var end: Date
    /// Whether the window was moved back to the newest hour with hashtags, because the store had
    /// none in the window.
    public var endsAtNewestHashtag: Bool
}

extension TweetService {
    /// Says that ``search(_:limit:before:)`` of `text` comes next: on a server, its terms'
    /// documents (and the lookup of a `from:` author) go in the round trip of the next read (the
    /// session check).
    public func prefetchSearch(_ text: String, limit: Int = 20, before: String? = nil) async {
        // A query that does not parse sends nothing ahead: the search says why.
        guard store.readsAreRoundTrips, let query = try? SearchQuery(text) else { return }
        if let name = query.author { await users.prefetchUser(matching: "@" + name) }
        if let before { await store.prefetch(documentsAt: [store.collection(Collections.tweets).document(before)]) }
        await store.prefetch(documentsAt: query.terms.map(SearchIndex.termPath))
        // One term's first buckets too, as a viewer without filters reads them: the open bucket
        // alone, or a few, as the term's document will say (both are asked; see Candidates); and
        // the newest tweets either names, found on the server.
        if before == nil, query.author == nil, query.terms.count == 1, let term = query.terms.first {
            let buckets = Self.newestBuckets(of: term, in: store)
            let size = max(limit, 20)
            for count in [1, Self.bucketsToRead(size)] {
                await store.prefetch(buckets.limit(to: count))
                await store.prefetch(
                    documentsIn: Collections.tweets, namedByLast: size, of: "ids", across: buckets.limit(to: count))
            }
        }
    }

    /// A term's buckets, the newest first.
    private static func newestBuckets(of term: String, in store: any DocumentStore) -> Query {
        store.collection(SearchIndex.bucketsCollection(term)).order(by: "start", descending: true)
    }

    /// How many buckets of posts' size hold `count` IDs, with room for those a filter leaves.
    static func bucketsToRead(_ count: Int) -> Int {
        count / SearchIndex.bucketSize + 2
    }

    /// The tweets that match `text`, newest first (see ``SearchQuery``): every term, and the author
    /// of `from:`. The rarest term's buckets (or the author's tweets, if fewer) give the candidates,
    /// newest first; each is checked against the rest of the query from its own caption.
    /// - Parameter before: the ID of the last tweet of the previous page.
    /// - Throws: ``SearchError``, ``UserError/notFound(_:)`` for an unknown `from:` user,
    ///   ``TweetError/notFound(_:)`` for a `before` that is no tweet.
    public func search(_ text: String, limit: Int = 20, before: String? = nil) async throws -> [Tweet] {
        let query = try SearchQuery(text)
        var author: String?
        var authorTweets = Int64.max
        if let name = query.author {
            let user = try await users.fetchUser(withUsername: name)
            author = user.id
            authorTweets = Int64(try await users.fetchStats(forUid: user.id).tweets)
        }
        let tweetsCollection = store.collection(Collections.tweets)
        if let before, try await store.getDocument(tweetsCollection.document(before)) == nil {
            throw TweetError.notFound(before)
        }
        // The rarest term; a term no tweet has means no results.
        let counts = try await store.getDocuments(query.terms.map(SearchIndex.termPath))
        guard counts.count == query.terms.count else { return [] }
        let rarest = counts.min { ($0.data["tweets"]?.integerValue ?? 0) < ($1.data["tweets"]?.integerValue ?? 0) }
        var candidates: SearchCandidates
        if let rarest, let term = query.terms.first(where: { SearchIndex.documentID($0) == rarest.documentID }),
            rarest.data["tweets"]?.integerValue ?? 0 <= authorTweets
        {
            let buckets =
                before.map { SearchIndex.bucketHolding($0, term: term, store: store) }
                ?? Self.newestBuckets(of: term, in: store)
            // Without `before` the first bucket read is the open one, whose size the term says.
            let newest = before == nil ? rarest.data["openSize"]?.integerValue.map { Int(clamping: $0) } : nil
            candidates = .buckets(term: term, before: before, query: buckets, pending: [], newest: newest)
        } else {
            var page = tweetsCollection.whereField("uid", isEqualTo: .string(author ?? ""))
                .order(by: "timestamp", descending: true)
            if let before, let cursor = try await store.getDocument(tweetsCollection.document(before)) {
                page = page.start(after: cursor)
            }
            candidates = .tweets(page)
        }
        let wanted = Set(query.terms)
        let filter = try await rowFilter(appliesMutes: true)
        // One term and no author: the driver's tweets are exactly the results.
        let checks = query.terms.count > 1 || author != nil
        var found: [Tweet] = []
        // Candidates are matched, and those the page needs are joined once there are enough; the
        // join leaves out tweets of protected accounts the viewer may not see, so matching goes
        // on (the next read starts after the last candidate read) until the page is full. A
        // filtered viewer reads ahead of what it expects to keep, as a listing does.
        var pending: [DocumentSnapshot] = []  // matched, not joined yet
        var (rowsRead, rowsShown) = (0, 0)
        while found.count < limit {
            let missing = limit - found.count
            while pending.count < missing, !candidates.isFinished {
                let size = max(
                    limit, 20,
                    Self.readSize(
                        needed: missing - pending.count, limit: limit, filtered: !filter.isEmpty, read: rowsRead,
                        shown: rowsShown))
                let snapshots = try await candidates.next(size, store: store)
                rowsRead += snapshots.count
                for snapshot in snapshots {
                    if !filter.isEmpty, filter.hides(tweet: snapshot) { continue }
                    if checks {
                        if let author, snapshot.data["uid"]?.stringValue != author { continue }
                        let record = try snapshot.data(as: TweetRecord.self)
                        let terms = SearchTerms.terms(
                            caption: record.caption, entities: record.entities ?? TweetEntities())
                        guard wanted.isSubset(of: terms) else { continue }
                    }
                    pending.append(snapshot)
                    rowsShown += 1
                }
            }
            guard !pending.isEmpty else { break }
            let joined = Array(pending.prefix(missing))
            pending.removeFirst(joined.count)
            found += try await hydrate(joined, filter: filter)
        }
        return found
    }

    // MARK: Trends

    /// The most used hashtags of the last `hours` hours, with their tweet counts, most used first;
    /// read from the hour counters: the current clock hour (UTC) and the `hours - 1` before it.
    /// When that window has no hashtags, it ends at the newest hour that has some instead, and
    /// says so.
    public func fetchTrends(hours: Int = 24, limit: Int = 10, now: Date = Date()) async throws -> Trends {
        var end = now
        var moved = false
        var window = Self.trendHours(hours, endingAt: now)
        var totals = try await trendTotals(window)
        // The hours' documents are named yyyyMMddHH, so the greatest name is the newest hour.
        if totals.isEmpty,
            let newest = try await store.collection(SearchIndex.trendHours)
                .order(by: Query.documentID, descending: true).limit(to: 1).getDocuments().first,
            !window.contains(newest.documentID), let hour = SearchIndex.date(ofHour: newest.documentID)
        {
            end = hour
            moved = true
            window = Self.trendHours(hours, endingAt: hour)
            totals = try await trendTotals(window)
        }
        let ranked = totals.values.sorted {
            $0.tweets != $1.tweets ? $0.tweets > $1.tweets : $0.hashtag.lowercased() < $1.hashtag.lowercased()
        }
        return Trends(
            trends: ranked.prefix(limit).map { Trend(hashtag: "#" + $0.hashtag, tweets: $0.tweets) }, end: end,
            endsAtNewestHashtag: moved)
    }

    /// The names of the `hours` clock hours up to the one of `end`.
    private static func trendHours(_ hours: Int, endingAt end: Date) -> [String] {
        (0..<hours).map { SearchIndex.hour(end.addingTimeInterval(-Double($0) * 3600)) }
    }

    /// Each hashtag of the hours named `window`, with its tweets.
    private func trendTotals(_ window: [String]) async throws -> [String: (hashtag: String, tweets: Int)] {
        var totals: [String: (hashtag: String, tweets: Int)] = [:]
        for document in try await store.getDocuments(window.map(SearchIndex.trendPath)) {
            for (key, counter) in SearchIndex.trendCounts(document.data) {
                let (sum, overflow) = totals[key, default: (counter.hashtag, 0)].tweets.addingReportingOverflow(
                    Int(clamping: counter.tweets))
                totals[key, default: (counter.hashtag, 0)].tweets = overflow ? Int.max : sum
            }
        }
        return totals
    }
}

/// Candidate tweets for a search, newest first: a term's buckets, or an author's tweets.
private enum SearchCandidates {
    /// `query` is the buckets still to read (nil once all are read); `pending` the IDs of the
    /// buckets read and not handed out yet; `newest` how many IDs the next bucket holds, when the
    /// term's document says so (its open bucket, read first).
    case buckets(term: String, before: String?, query: Query?, pending: [String], newest: Int?)
    case tweets(Query)
    case finished

    var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }

    /// Up to about `count` more candidate tweets, read in one or two batches; empty at the end.
    mutating func next(_ count: Int, store: any DocumentStore) async throws -> [DocumentSnapshot] {
        switch self {
        case .finished:
            return []
        case .tweets(let query):
            let page = try await query.limit(to: count).getDocuments()
            self = page.count < count ? .finished : page.last.map { .tweets(query.start(after: $0)) } ?? .finished
            return page
        case .buckets(let term, let before, var query, var pending, var newest):
            while pending.count < count, let buckets = query {
                // The open bucket alone when it holds enough (a seeded one has 64 IDs, three
                // times a page); otherwise enough buckets of posts' size. A size that lies costs
                // one more read, never a result.
                let needed = count - pending.count
                let limit = newest.map { $0 >= needed } == true ? 1 : TweetService.bucketsToRead(needed)
                newest = nil
                let page = try await buckets.limit(to: limit).getDocuments()
                for bucket in page {
                    pending += SearchIndex.ids(bucket.data).reversed().filter { id in
                        before.map { ByteOrder.precedes(id, $0) } ?? true
                    }
                }
                // Fewer buckets than asked for: the term has no more, and nothing is read to see so.
                query = page.count < limit ? nil : page.last.map { buckets.start(after: $0) }
            }
            let taken = Array(pending.prefix(count))
            pending.removeFirst(taken.count)
            // Done only when nothing is left to read: a batch whose tweets were all deleted is not the end.
            self =
                query == nil && pending.isEmpty
                ? .finished : .buckets(term: term, before: before, query: query, pending: pending, newest: nil)
            let tweets = store.collection(Collections.tweets)
            let found = try await store.getDocuments(taken.map { tweets.document($0) })
            let byID = Dictionary(found.map { ($0.documentID, $0) }) { first, _ in first }
            // A tweet deleted since (its bucket already updated) is simply not there.
            return taken.compactMap { byID[$0] }
        }
    }
}
