import Foundation
import Synchronization
import TweetStore

/// Fills an empty store with demo users, tweets, replies, likes and follows, reproducibly:
/// the same options give the same data.
public struct DemoSeeder: Sendable {
    /// What to make.
    public struct Options: Equatable, Sendable {
        public var users: Int
        public var tweets: Int
        public var likes: Int
        /// How many users each user follows.
        public var follows: Int
        public var seed: UInt64

        /// Defaults in proportion: a like per tweet and up to 10 follows per user.
        public init(users: Int = 25, tweets: Int? = nil, likes: Int? = nil, follows: Int? = nil, seed: UInt64 = 1) {
            self.users = users
            self.tweets = tweets ?? users * 10
            self.likes = likes ?? self.tweets
            self.follows = follows ?? min(10, max(0, users - 1))
            self.seed = seed
        }

        /// About the most memory seeding these counts takes, in bytes. The documents go to the store
        /// as they are made; what the seeder holds is its bookkeeping: each tweet's record and
        /// search terms, the pairs that are liked, followed, retweeted. Measured (peak RSS, the
        /// release build, 1000 users following 100 each unless said): 151 MiB at 10k tweets, 344
        /// MiB at 200k, 1119 MiB at 1M, and 969 MiB at 100k tweets with 10,000 users following 100
        /// each; these per-item sizes cover all four.
        public var estimatedPeakBytes: Double {
            64 * 1_048_576 + 900 * Double(tweets) + 200 * Double(likes) + 1_000 * Double(users) * Double(follows)
                + 4_000 * Double(users)
        }

        /// ``validate()``, and that the data fits in `availableBytes` of memory (`nil`: unknown).
        /// - Throws: ``SeedError`` for counts that cannot be made or held.
        public func validate(availableBytes: Double?) throws {
            try validate()
            if let availableBytes, estimatedPeakBytes > availableBytes {
                throw SeedError.tooLargeForMemory(needed: estimatedPeakBytes, available: availableBytes)
            }
        }

        /// Checks that the data can be made, before anything is written.
        /// - Throws: ``SeedError`` for counts that cannot be made.
        public func validate() throws {
            guard users >= 1, tweets >= 0, likes >= 0, follows >= 0 else { throw SeedError.negativeCounts }
            guard follows < users else { throw SeedError.tooManyFollows(users: users) }
            let maximum = Double(users) * Double(tweets) * 0.5
            guard tweets > 0 || likes == 0, Double(likes) <= maximum else {
                throw SeedError.tooManyLikes(maximum: Int(min(maximum, Double(Int.max / 2))))
            }
        }
    }

    /// What was made.
    public struct Summary: Equatable, Sendable {
        public var users: Int
        public var tweets: Int
        public var replies: Int
        public var likes: Int
        public var follows: Int
    }

    /// The password of every demo account.
    public static let demoPassword = "tweetcli-demo"
    /// The newest seeded tweet's time: fixed, so the same seed gives the same data.
    static let anchor = Date(timeIntervalSince1970: 1_793_491_200)  // 2026-11-01T00:00:00Z

    private let store: any DocumentStore

    public init(store: any DocumentStore) {
        self.store = store
    }

    /// Writes the demo data in one transaction.
    /// - Throws: ``SeedError`` for impossible options or a store that already has users.
    public func seed(_ options: Options) async throws -> Summary {
        try options.validate()
        // A quick check first, so a store with users is refused before generating anything; the
        // import checks again under the store's lock.
        guard try await store.collection(Collections.users).query.limit(to: 1).getDocuments().isEmpty else {
            throw SeedError.storeNotEmpty
        }
        var random = SplitMix64(seed: options.seed)
        let ids = IDGenerator.seeded(random.next())
        let saltSeed = random.next()
        let hash = try PasswordHasher(saltBytes: {
            var salt = SplitMix64(seed: saltSeed)
            return (0..<16).map { _ in UInt8(truncatingIfNeeded: salt.next()) }
        }).hash(Self.demoPassword)

        // Every document goes to the store as it is made: the local engine sorts them on disk, so
        // the seed holds its bookkeeping (tweets' counters, search terms), not its documents.
        let result = SummaryBox()
        let seeder = self
        do {
            try await store.importDocuments(requiringEmpty: Collections.users) { add in
                let summary = try seeder.generate(options, hash: hash, random: random, ids: ids) { document in
                    try add(document.0, document.1)
                }
                result.summary.withLock { $0 = summary }
            }
        } catch StoreError.notEmpty {
            throw SeedError.storeNotEmpty
        }
        guard let summary = result.summary.withLock({ $0 }) else {
            throw StoreError.io(path: "the demo seed", reason: "the import ended without its documents")
        }
        return summary
    }

    /// The summary of a seed, handed out of the import that made it.
    private final class SummaryBox: Sendable {
        let summary = Mutex<Summary?>(nil)
    }

    /// Makes the demo data, handing each document to `write`.
    private func generate(
        _ options: Options, hash: String, random: SplitMix64, ids: IDGenerator,
        write: ((DocumentPath, JSONObject)) throws -> Void
    ) throws -> Summary {
        var random = random
        let users = makeUsers(options.users, ids: ids, random: &random)
        for user in users {
            try write(
                (
                    DocumentPath(collection: Collections.users, documentID: user.id),
                    try DocumentCoding.encode(user).removingID()
                ))
            try write(
                (
                    DocumentPath(collection: Collections.credentials, documentID: user.id),
                    ["passwordHash": .string(hash)]
                ))
        }

        var tweets: [TweetRecord] = []
        tweets.reserveCapacity(options.tweets)
        let span = 90.0 * 86_400 / Double(max(options.tweets, 1))
        var replies = 0
        var captions = DemoCaptions()
        var notifications = Notifications()
        var owners: [String: JSONObject] = [:]  // the author of the tweet a reply or quote answers, by tweet
        for index in 0..<options.tweets {
            let author = users[Int(random.next() % UInt64(users.count))]
            let time = Self.anchor.addingTimeInterval(-Double(options.tweets - 1 - index) * max(span, 0.001))
            let id = ids.next(at: time)
            var replyTo: String?
            var quote: String?
            var notified: String?  // The author of the tweet answered or quoted, notified of that.
            if index > 0 && random.next() % 10 == 0 {
                let parent = Int(random.next() % UInt64(index))
                replyTo = tweets[parent].id
                tweets[parent].replyCount! += 1
                notified = tweets[parent].uid
                owners[id] = ["replyToUid": .string(tweets[parent].uid)]
                notifications.add(tweets[parent].uid, .reply, from: author.id, tweetID: id, at: time)
                replies += 1
            } else if index > 0 && random.next() % 20 == 0 {
                let quoted = Int(random.next() % UInt64(index))
                quote = tweets[quoted].id
                tweets[quoted].quotes! += 1
                notified = tweets[quoted].uid
                owners[id] = ["quoteUid": .string(tweets[quoted].uid)]
                notifications.add(tweets[quoted].uid, .quote, from: author.id, tweetID: id, at: time)
            }
            let composed = captions.next(&random, reply: replyTo != nil)
            var caption = composed.text
            var entities = composed.entities
            if random.next() % 8 == 0 {  // One tweet in eight mentions someone.
                let mentioned = users[Int(random.next() % UInt64(users.count))]
                caption = "@\(mentioned.username) " + caption
                entities.mentions.insert(mentioned.username, at: 0)
                if mentioned.id != notified {
                    notifications.add(mentioned.id, .mention, from: author.id, tweetID: id, at: time)
                }
            }
            tweets.append(
                TweetRecord(
                    id: id, uid: author.id, caption: caption, likes: 0, timestamp: time, replyToId: replyTo,
                    entities: entities, quoteId: quote))
        }

        var liked = Set<Int>()
        while liked.count < options.likes {
            let pair = Int(random.next() % UInt64(users.count * tweets.count))
            guard liked.insert(pair).inserted else { continue }
            let (user, tweet) = (users[pair / tweets.count], pair % tweets.count)
            tweets[tweet].likes += 1
            let time = tweets[tweet].timestamp.addingTimeInterval(Double(random.next() % 86_400))
            try write(
                (
                    DocumentPath(collection: Collections.likes(of: user.id), documentID: tweets[tweet].id),
                    ["timestamp": .string(Timestamp.string(from: time)), "tweetId": .string(tweets[tweet].id)]
                ))
            // Likes are as many as tweets: only the newest tenth's likes are in the bell, as if
            // older ones had been read and let go, so a million likes do not add a million documents.
            if tweet >= tweets.count - tweets.count / 10 {
                notifications.add(tweets[tweet].uid, .like, from: user.id, tweetID: tweets[tweet].id, at: time)
            }
        }
        // A retweet for one tweet in ten and a bookmark for one in twenty, by random users.
        var retweeted = Set<Int>()
        while options.tweets > 0 && retweeted.count < options.tweets / 10 {
            let pair = Int(random.next() % UInt64(users.count * tweets.count))
            guard retweeted.insert(pair).inserted else { continue }
            let (user, tweet) = (users[pair / tweets.count], pair % tweets.count)
            tweets[tweet].retweets! += 1
            let time = tweets[tweet].timestamp.addingTimeInterval(Double(random.next() % 86_400))
            let retweetID = RetweetKey.documentID(ids, at: time)
            let stamp = JSONValue.string(Timestamp.string(from: time))
            try write(
                (
                    DocumentPath(collection: Collections.retweets, documentID: retweetID),
                    ["uid": .string(user.id), "tweetId": .string(tweets[tweet].id), "timestamp": stamp]
                ))
            try write(
                (
                    DocumentPath(collection: Collections.retweeted(by: user.id), documentID: tweets[tweet].id),
                    ["retweetId": .string(retweetID), "timestamp": stamp]
                ))
            notifications.add(tweets[tweet].uid, .retweet, from: user.id, tweetID: tweets[tweet].id, at: time)
        }
        var bookmarked = Set<Int>()
        while options.tweets > 0 && bookmarked.count < options.tweets / 20 {
            let pair = Int(random.next() % UInt64(users.count * tweets.count))
            guard bookmarked.insert(pair).inserted else { continue }
            let (user, tweet) = (users[pair / tweets.count], pair % tweets.count)
            let time = tweets[tweet].timestamp.addingTimeInterval(Double(random.next() % 86_400))
            try write(
                (
                    DocumentPath(collection: Collections.bookmarks(of: user.id), documentID: tweets[tweet].id),
                    ["tweetId": .string(tweets[tweet].id), "timestamp": .string(Timestamp.string(from: time))]
                ))
        }
        // Each tweet with its search terms and its hashtags' hour counts, as posting them would write.
        var termTweets: [String: [String]] = [:]
        var trendCounts: [String: [String: (hashtag: String, tweets: Int64)]] = [:]
        for tweet in tweets {
            var fields = tweet.fields
            if let owner = owners[tweet.id] { fields.merge(owner) { $1 } }
            try write((DocumentPath(collection: Collections.tweets, documentID: tweet.id), fields))
            let entities = tweet.entities ?? TweetEntities()
            for term in SearchTerms.terms(caption: tweet.caption, entities: entities) {
                termTweets[term, default: []].append(tweet.id)  // tweets are made in ID order
            }
            if !entities.hashtags.isEmpty {
                let hour = SearchIndex.hour(tweet.timestamp)
                for tag in Set(entities.hashtags.map(SearchTerms.fold)) {
                    let shown = entities.hashtags.first { SearchTerms.fold($0) == tag } ?? tag
                    trendCounts[hour, default: [:]][tag, default: (shown, 0)].tweets += 1
                }
            }
        }
        for (term, ids) in termTweets {
            var last: [String] = []
            for start in stride(from: 0, to: ids.count, by: SearchIndex.seedBucketSize) {
                last = Array(ids[start..<min(ids.count, start + SearchIndex.seedBucketSize)])
                try write(
                    (
                        DocumentPath(collection: SearchIndex.bucketsCollection(term), documentID: last[0]),
                        SearchIndex.bucket(last)
                    ))
            }
            try write(
                (
                    SearchIndex.termPath(term),
                    [
                        "tweets": .integer(Int64(ids.count)), "open": .string(last[0]),
                        "openSize": .integer(Int64(last.count)),
                    ]
                ))
        }
        for (hour, counts) in trendCounts {
            try write((SearchIndex.trendPath(hour), SearchIndex.trendFields(counts)))
        }

        var stats = [String: UserStats](
            uniqueKeysWithValues: users.map { ($0.id, UserStats(following: 0, followers: 0, tweets: 0)) })
        for tweet in tweets { stats[tweet.uid]!.tweets += 1 }
        var follows = 0
        for (index, user) in users.enumerated() {
            var chosen = Set<Int>()
            while chosen.count < options.follows {
                let other = Int(random.next() % UInt64(users.count))
                guard other != index, chosen.insert(other).inserted else { continue }
                let stamp = JSONValue.string(Timestamp.string(from: Self.anchor))
                try write(
                    (
                        DocumentPath(collection: Collections.following(of: user.id), documentID: users[other].id),
                        ["timestamp": stamp]
                    ))
                try write(
                    (
                        DocumentPath(collection: Collections.followers(of: users[other].id), documentID: user.id),
                        ["timestamp": stamp]
                    ))
                follows += 1
                stats[user.id]!.following += 1
                stats[users[other].id]!.followers += 1
                notifications.add(users[other].id, .follow, from: user.id, tweetID: nil, at: Self.anchor)
            }
        }
        for (uid, counts) in stats { try write((StatsCounter.path(of: uid), StatsCounter.fields(counts))) }
        for document in notifications.all { try write(document) }

        return Summary(users: users.count, tweets: tweets.count, replies: replies, likes: liked.count, follows: follows)
    }

    /// The notifications demo activity would have sent, all unread, and each recipient's count.
    private struct Notifications {
        /// By path: of two notifications with one key, the later is kept.
        var writes: [DocumentPath: JSONObject] = [:]
        var unread: [String: Int] = [:]

        mutating func add(
            _ recipient: String, _ kind: ActivityNotification.Kind, from: String, tweetID: String?, at time: Date
        ) {
            guard recipient != from else { return }
            let key = ActivityNotification.key(kind, from: from, tweetID: tweetID)
            let path = DocumentPath(collection: Collections.notifications(of: recipient), documentID: key)
            if writes[path] == nil { unread[recipient, default: 0] += 1 }
            writes[path] = [
                "type": .string(kind.rawValue), "from": .string(from),
                "tweetId": tweetID.map { .string($0) } ?? .null,
                "timestamp": .string(Timestamp.string(from: time)),
            ]
        }

        /// The notifications and the recipients' states.
        var all: [(DocumentPath, JSONObject)] {
            writes.map { ($0.key, $0.value) }
                + unread.map { uid, count in
                    (NotificationBatch.statePath(of: uid), ["unread": .integer(Int64(count)), "seen": .null])
                }
        }
    }

    private func makeUsers(_ count: Int, ids: IDGenerator, random: inout SplitMix64) -> [User] {
        (0..<count).map { index in
            let first = Self.firstNames[Int(random.next() % UInt64(Self.firstNames.count))]
            let last = Self.lastNames[Int(random.next() % UInt64(Self.lastNames.count))]
            let handle = first.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
            let username = String("\(handle.prefix(15 - String(index).count))\(index)")
            return User(
                id: ids.next(), email: "\(username)@example.com", username: username, fullname: "\(first) \(last)",
                bio: Self.bios[Int(random.next() % UInt64(Self.bios.count))],
                location: Self.locations[Int(random.next() % UInt64(Self.locations.count))])
        }
    }

    private static let firstNames = [
        "Ada", "Grace", "Linus", "Alan", "Margaret", "Dennis", "Barbara", "Ken", "Frances", "Edsger", "Hedy", "Tim",
        "Radia", "Guido", "Yukihiro", "Chris", "Lin", "Hana", "Min-jun", "Sakura", "Wei", "Amara", "Diego", "Priya",
    ]
    private static let lastNames = [
        "Lovelace", "Hopper", "Torvalds", "Turing", "Hamilton", "Ritchie", "Liskov", "Thompson", "Allen", "Dijkstra",
        "Lamarr", "Berners-Lee", "Perlman", "van Rossum", "Matsumoto", "Lattner", "Clark", "Kim", "Sato", "Zhang",
    ]
    private static let bios = [
        "Building things in Swift.", "Coffee, code, repeat.", "iOS developer. Opinions are my own.",
        "Learning in public.", "Terminal enthusiast.", "SwiftUI + Firebase course graduate.", "",
    ]
    private static let locations = ["Cupertino", "Seoul", "Tokyo", "Berlin", "Lagos", "São Paulo", "Toronto", ""]
}

/// What can go wrong seeding demo data.
public enum SeedError: Error, Equatable, LocalizedError {
    /// The store already has users: seeding never mixes demo data into real data.
    case storeNotEmpty
    /// A count is negative, or there are no users.
    case negativeCounts
    /// More follows per user than there are other users.
    case tooManyFollows(users: Int)
    /// More likes than half of users × tweets.
    case tooManyLikes(maximum: Int)
    /// More data than the memory there is can hold while it is made (bytes).
    case tooLargeForMemory(needed: Double, available: Double)

    public var errorDescription: String? {
        switch self {
        case .storeNotEmpty:
            return "the store already has users, and seeding never mixes demo data into real data"
        case .negativeCounts:
            return "the counts must not be negative and there must be at least one user"
        case .tooManyFollows(let users):
            return "each user can follow at most \(users - 1) others when there are \(users) users"
        case .tooManyLikes(let maximum):
            return "there can be at most \(maximum) likes: half of users × tweets"
        case .tooLargeForMemory(let needed, let available):
            return String(
                format: "seeding this much takes about %.1f GiB of memory and %.1f GiB is available; "
                    + "seed fewer tweets, likes or follows", needed / 1_073_741_824, available / 1_073_741_824)
        }
    }
}
