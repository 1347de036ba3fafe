import Foundation

/// The search index and the trend counters, written in the transaction that posts or deletes a
/// tweet: `terms/{term}` counts the tweets with a term and `terms/{term}/postings/{tweetId}` lists
/// them (with their time and author, for the `(timestamp)` and `(uid, timestamp)` indexes);
/// `trend-hours/{yyyyMMddHH}/hashtags/{tag}` counts each hashtag's tweets per hour (UTC).
enum SearchIndex {
    static let terms = "terms"
    static let postings = "postings"
    static let trendHours = "trend-hours"
    static let hashtags = "hashtags"

    /// A term as a document ID: `/` and `%` escaped (terms are letters and digits, so this is rare).
    static func documentID(_ term: String) -> String {
        guard term.contains(where: { $0 == "/" || $0 == "%" }) else { return term }
        return term.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
    }

    static func termPath(_ term: String) -> DocumentPath {
        DocumentPath(collection: terms, documentID: documentID(term))
    }

    static func postingsCollection(_ term: String) -> String { "\(terms)/\(documentID(term))/\(postings)" }

    /// The UTC hour of `date`, `yyyyMMddHH`: a trend bucket's name.
    static func hour(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d%02d%02d%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour))
    }

    static func trendCollection(_ hour: String) -> String { "\(trendHours)/\(hour)/\(hashtags)" }

    /// Indexes a new tweet (`delta` 1) or removes it (`delta` -1), with its hashtags' hour counts.
    static func update(
        tweetID: String, uid: String, time: Date, caption: String, entities: TweetEntities, delta: Int64,
        in transaction: Transaction
    ) throws {
        let stamp = JSONValue.string(Timestamp.string(from: time))
        var indexed: Set<String> = []  // the terms whose counts change: a tweet from before the index has none
        for term in SearchTerms.terms(caption: caption, entities: entities) {
            let posting = DocumentPath(collection: postingsCollection(term), documentID: tweetID)
            if delta > 0 {
                transaction.setData(["timestamp": stamp, "uid": .string(uid)], at: posting)
            } else {
                guard try transaction.getDocument(posting) != nil else { continue }
                transaction.deleteDocument(posting)
            }
            indexed.insert(term)
            let count = try transaction.getDocument(termPath(term))?.data["tweets"]?.integerValue ?? 0
            if count + delta > 0 {
                transaction.setData(["tweets": .integer(count + delta)], at: termPath(term))
            } else {
                transaction.deleteDocument(termPath(term))
            }
        }
        let bucket = trendCollection(hour(time))
        var counted: Set<String> = []
        for tag in entities.hashtags {
            let key = SearchTerms.fold(tag)
            guard indexed.contains("#" + key), counted.insert(key).inserted else { continue }
            let path = DocumentPath(collection: bucket, documentID: documentID(key))
            let existing = try transaction.getDocument(path)?.data
            let count = (existing?["tweets"]?.integerValue ?? 0) + delta
            if count > 0 {
                transaction.setData(
                    ["hashtag": existing?["hashtag"] ?? .string(tag), "tweets": .integer(count)], at: path)
            } else {
                transaction.deleteDocument(path)
            }
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
    /// The window's end: now, or the newest tweet's time when nothing was posted in the window.
    public var end: Date
    /// Whether the window was moved back to the newest tweet, because the store was quiet.
    public var endsAtNewestTweet: Bool
}

extension TweetService {
    /// The tweets that match `text`, newest first (see ``SearchQuery``): every term, and the author
    /// of `from:`. Served by the terms index: the rarest term's postings are read newest first and
    /// each candidate is checked against the other terms by key, a page at a time.
    /// - Parameter before: the ID of the last tweet of the previous page.
    /// - Throws: ``SearchError``, ``UserError/notFound(_:)`` for an unknown `from:` user,
    ///   ``TweetError/notFound(_:)`` for a `before` that is not among the results.
    public func search(_ text: String, limit: Int = 20, before: String? = nil) async throws -> [Tweet] {
        let query = try SearchQuery(text)
        var author: String?
        if let name = query.author {
            author = try await users.fetchUser(withUsername: name).id
        }
        let tweetsCollection = store.collection(Collections.tweets)
        if query.terms.isEmpty, let author {
            // from: alone is that user's tweets, replies included.
            var page = tweetsCollection.whereField("uid", isEqualTo: .string(author))
                .order(by: "timestamp", descending: true).limit(to: limit)
            if let before {
                guard let cursor = try await store.getDocument(tweetsCollection.document(before)) else {
                    throw TweetError.notFound(before)
                }
                page = page.start(after: cursor)
            }
            return try await hydrate(page.getDocuments())
        }
        // The rarest term drives; a term no tweet has means no results.
        let counts = try await store.getDocuments(query.terms.map(SearchIndex.termPath))
        guard counts.count == query.terms.count else { return [] }
        let byID = Dictionary(counts.map { ($0.documentID, $0.data["tweets"]?.integerValue ?? 0) }) { a, _ in a }
        let ordered = query.terms.sorted {
            (byID[SearchIndex.documentID($0)] ?? 0) < (byID[SearchIndex.documentID($1)] ?? 0)
        }
        let driver = ordered[0]
        let others = ordered.dropFirst()
        let postings = store.collection(SearchIndex.postingsCollection(driver))
        var candidates = postings.order(by: "timestamp", descending: true)
        if let author { candidates = candidates.whereField("uid", isEqualTo: .string(author)) }
        if let before {
            guard let cursor = try await store.getDocument(postings.document(before)) else {
                throw TweetError.notFound(before)
            }
            candidates = candidates.start(after: cursor)
        }
        var found: [String] = []
        let batch = max(limit, 20)
        while found.count < limit {
            let page = try await candidates.limit(to: batch).getDocuments()
            var ids = page.map(\.documentID)
            for term in others where !ids.isEmpty {
                let collection = store.collection(SearchIndex.postingsCollection(term))
                let present = Set(try await store.getDocuments(ids.map { collection.document($0) }).map(\.documentID))
                ids = ids.filter(present.contains)
            }
            found += ids.prefix(limit - found.count)
            guard page.count == batch, let last = page.last else { break }
            candidates = candidates.start(after: last)
        }
        let tweets = try await fetchTweets(withIDs: found)
        return found.compactMap { tweets[$0] }
    }

    /// The most used hashtags of the last `hours` hours, with their tweet counts, most used first;
    /// read from the hour counters. When nothing was posted in that window, the window ends at the
    /// newest tweet instead, and says so.
    public func fetchTrends(hours: Int = 24, limit: Int = 10, now: Date = Date()) async throws -> Trends {
        let newest = try await store.collection(Collections.tweets).order(by: "timestamp", descending: true)
            .limit(to: 1).getDocuments().first?.data["timestamp"]?.stringValue.flatMap(Timestamp.date(from:))
        var end = now
        var moved = false
        if let newest, newest < now.addingTimeInterval(-Double(hours) * 3600) {
            end = newest
            moved = true
        }
        var totals: [String: (hashtag: String, tweets: Int)] = [:]
        for offset in 0..<hours {
            let hour = SearchIndex.hour(end.addingTimeInterval(-Double(offset) * 3600))
            let bucket = store.collection(SearchIndex.trendCollection(hour))
            for counter in try await bucket.query.getDocuments() {
                let count = Int(counter.data["tweets"]?.integerValue ?? 0)
                let shown = counter.data["hashtag"]?.stringValue ?? counter.documentID
                totals[counter.documentID, default: (shown, 0)].tweets += count
            }
        }
        let ranked = totals.values.sorted {
            $0.tweets != $1.tweets ? $0.tweets > $1.tweets : $0.hashtag.lowercased() < $1.hashtag.lowercased()
        }
        return Trends(
            trends: ranked.prefix(limit).map { Trend(hashtag: "#" + $0.hashtag, tweets: $0.tweets) }, end: end,
            endsAtNewestTweet: moved)
    }
}
