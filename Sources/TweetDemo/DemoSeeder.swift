import FoundationEssentials
import Synchronization
import TweetCore
import TweetImages
import TweetStore
import TwitterText

/// Fills an empty store with demo users, tweets, replies, likes and follows, reproducibly: the
/// same options give the same data, and the same options but the time give the same data moved in
/// time.
public struct DemoSeeder: Sendable {
    /// What to make.
    public struct Options: Equatable, Sendable {
        public var users: Int
        public var tweets: Int
        public var likes: Int
        /// How many users each user follows.
        public var follows: Int
        public var seed: UInt64
        /// The time the data is anchored to, its newest tweet minutes before it; `nil` for the
        /// time of seeding, so that a demo store looks as if people were tweeting just now.
        public var now: Date?

        /// The times `now` may be: IDs and timestamps keep their order and their width within it.
        public static let nowRange =
            Date(timeIntervalSince1970: 946_684_800)...Date(timeIntervalSince1970: 32_503_679_999)  // 2000–2999

        /// Defaults in proportion: a like per tweet and up to 10 follows per user.
        public init(
            users: Int = 25, tweets: Int? = nil, likes: Int? = nil, follows: Int? = nil, seed: UInt64 = 1,
            now: Date? = nil
        ) {
            self.users = users
            self.tweets = tweets ?? users * 10
            self.likes = likes ?? self.tweets
            self.follows = follows ?? min(10, max(0, users - 1))
            self.seed = seed
            self.now = now
        }

        /// About the most memory seeding these counts takes, in bytes. The documents go to the store
        /// as they are made, and every tweet is made again from its draws when it is needed, so
        /// what the seeder holds is each tweet's four counters (a byte each), each user, and each
        /// search term's newest bucket; the store sorts the documents on disk in runs of 32 MiB,
        /// and writing the segment holds its Bloom filter (10 bits a document) and the index keys'
        /// sort. The formula stays above the peak resident set that release-build seeds of up to
        /// ten million tweets reached.
        public var estimatedPeakBytes: Double {
            200 * 1_048_576 + 6 * Double(tweets) + 1_000 * Double(users)
        }

        /// About the most disk the store's file system needs while these counts are seeded: the
        /// sorted runs of every document, their merges, then the segment made from them. The formula
        /// stays above what a ten-million-tweet seed used.
        public var estimatedDiskBytes: Double {
            3
                * (800 * Double(tweets) + 300 * Double(likes) + 250 * Double(users) * Double(follows)
                    + 2_000 * Double(users))
        }

        /// ``validate()``, and that the data fits in `availableBytes` of memory and
        /// `availableDiskBytes` of disk (`nil`: unknown).
        /// - Throws: ``SeedError`` for counts that cannot be made or held.
        public func validate(availableBytes: Double?, availableDiskBytes: Double? = nil) throws {
            try validate()
            if let availableBytes, estimatedPeakBytes > availableBytes {
                throw SeedError.tooLargeForMemory(needed: estimatedPeakBytes, available: availableBytes)
            }
            if let availableDiskBytes, estimatedDiskBytes > availableDiskBytes {
                throw SeedError.tooLargeForDisk(needed: estimatedDiskBytes, available: availableDiskBytes)
            }
        }

        /// Checks that the data can be made, before anything is written.
        /// - Throws: ``SeedError`` for counts that cannot be made.
        public func validate() throws {
            guard users >= 1, tweets >= 0, likes >= 0, follows >= 0 else { throw SeedError.negativeCounts }
            guard follows < users else { throw SeedError.tooManyFollows(users: users) }
            if let now, !Self.nowRange.contains(now) { throw SeedError.timeOutOfRange }
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

    /// What making a tweet counts for in a seed's share done, against one step of any other pass.
    private static let tweetStepWeight = 8

    /// The password of every demo account.
    public static let demoPassword = "tweetcli-demo"

    private let store: any DocumentStore

    public init(store: any DocumentStore) {
        self.store = store
    }

    /// Writes the demo data as one import: all of it, or (on a failure) none.
    /// - Parameter progress: hears the documents made so far and the share of the making done,
    ///   every few thousand documents, then once more when the store is left to write them.
    /// - Throws: ``SeedError`` for impossible options or a store that already has users.
    public func seed(_ options: Options, progress: @escaping ProgressHandler = { _ in }) async throws -> Summary {
        try options.validate()
        let now = options.now ?? Date()
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

        // The photos first, so that every tweet written names a photo that is there. A build
        // without the image libraries seeds without photos: the rest of the demo is what matters.
        let pictures: DemoPictures?
        do {
            pictures = try await DemoPictures.make(into: store)
        } catch ImageError.libraryMissing {
            pictures = nil
        }

        // Every document goes to the store as it is made: the local engine sorts them on disk, so
        // the seed holds its bookkeeping (tweets' counters, search terms), not its documents.
        let result = SummaryBox()
        let seeder = self
        do {
            try await store.importDocuments(requiringEmpty: Collections.users) { add in
                let summary = try seeder.generate(
                    options, now: now, hash: hash, random: random, ids: ids, pictures: pictures, progress: progress
                ) { document in
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

    /// Makes the demo data, handing each document to `write`, in bounded memory: every draw about
    /// a tweet comes from the seed and the tweet's index alone (``TweetDraws``), so each pass makes
    /// the tweets it needs again instead of keeping them, and the liked, retweeted and bookmarked
    /// pairs are the first of a pseudo-random permutation of all pairs (never a set of those
    /// taken). What is kept: each tweet's four counters, each user's counts, and each search
    /// term's newest partial bucket.
    private func generate(
        _ options: Options, now: Date, hash: String, random: SplitMix64, ids: IDGenerator, pictures: DemoPictures?,
        progress: ProgressHandler, write output: ((DocumentPath, JSONObject)) throws -> Void
    ) throws -> Summary {
        var random = random
        // Each pass's length is known ahead, so the share done counts loop steps, a tweet's
        // making (its caption and search terms) as eight, as it costs about eight times a like's;
        // documents are counted as they go, and reported only every 4,096, so the hot loops pay
        // nothing for it.
        let steps =
            options.users + options.tweets + options.likes + options.tweets / 10 + options.tweets / 20
            + Self.tweetStepWeight * options.tweets + options.users
        var step = 0
        var written = 0
        func write(_ document: (DocumentPath, JSONObject)) throws {
            try output(document)
            written += 1
            if written & 4095 == 0 {
                progress(WorkProgress(done: written, fraction: Double(step) / Double(max(steps, 1))))
            }
        }
        let users = makeUsers(options.users, ids: ids, random: &random)
        for user in users {
            step += 1
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
        let count = options.tweets
        let draws = TweetDraws(seed: random.next(), tweets: count, users: users.count, anchor: now)
        var unread = [Int](repeating: 0, count: users.count)
        func notify(
            _ recipient: Int, _ kind: ActivityNotification.Kind, from: Int, tweetID: String?, at time: Date
        ) throws {
            // Each notification's key is its own (a pair, or a tweet, is drawn once), so none replaces another.
            guard recipient != from else { return }
            let key = ActivityNotification.key(kind, from: users[from].id, tweetID: tweetID)
            unread[recipient] += 1
            try write(
                (
                    DocumentPath(collection: Collections.notifications(of: users[recipient].id), documentID: key),
                    [
                        "type": .string(kind.rawValue), "from": .string(users[from].id),
                        "tweetId": tweetID.map { .string($0) } ?? .null,
                        "timestamp": .string(Timestamp.string(from: time)),
                    ]
                ))
        }

        // Replies and quotes, counted on the tweets they answer; their notifications.
        var replyCounts = Counters(count)
        var quoteCounts = Counters(count)
        var replies = 0
        for index in 0..<count {
            step += 1
            let shape = draws.shape(index)
            var notified: Int?
            if let parent = shape.replyTo {
                replyCounts.add(parent)
                replies += 1
                notified = draws.shape(parent).author
                try notify(notified!, .reply, from: shape.author, tweetID: draws.id(index), at: draws.time(index))
            } else if let quoted = shape.quote {
                quoteCounts.add(quoted)
                notified = draws.shape(quoted).author
                try notify(notified!, .quote, from: shape.author, tweetID: draws.id(index), at: draws.time(index))
            }
            if let mentioned = shape.mention, mentioned != notified {
                try notify(mentioned, .mention, from: shape.author, tweetID: draws.id(index), at: draws.time(index))
            }
        }

        // Likes, then a retweet for one tweet in ten and a bookmark for one in twenty, by random users.
        let pairs = UInt64(users.count) * UInt64(count)
        var likeCounts = Counters(count)
        let liking = Permutation(count: pairs, key: draws.seed ^ 1)
        for index in 0..<UInt64(options.likes) {
            step += 1
            let (user, tweet) = draws.pair(liking(index))
            likeCounts.add(tweet)
            let id = draws.id(tweet)
            let time = draws.time(after: tweet, draw: draws.value(Int(index), stream: 11))
            try write(
                (
                    DocumentPath(collection: Collections.likes(of: users[user].id), documentID: id),
                    ["timestamp": .string(Timestamp.string(from: time)), "tweetId": .string(id)]
                ))
            // Likes are as many as tweets: only the newest tenth's likes are in the bell, as if
            // older ones had been read and let go, so a million likes do not add a million documents.
            if tweet >= count - count / 10 {
                try notify(draws.shape(tweet).author, .like, from: user, tweetID: id, at: time)
            }
        }
        var retweetCounts = Counters(count)
        let retweeting = Permutation(count: pairs, key: draws.seed ^ 2)
        for index in 0..<UInt64(count / 10) {
            step += 1
            let (user, tweet) = draws.pair(retweeting(index))
            retweetCounts.add(tweet)
            let id = draws.id(tweet)
            let time = draws.time(after: tweet, draw: draws.value(Int(index), stream: 12))
            let retweetID = RetweetKey.documentID(ids, at: time)
            let stamp = JSONValue.string(Timestamp.string(from: time))
            try write(
                (
                    DocumentPath(collection: Collections.retweets, documentID: retweetID),
                    ["uid": .string(users[user].id), "tweetId": .string(id), "timestamp": stamp]
                ))
            try write(
                (
                    DocumentPath(collection: Collections.retweeted(by: users[user].id), documentID: id),
                    ["retweetId": .string(retweetID), "timestamp": stamp]
                ))
            try notify(draws.shape(tweet).author, .retweet, from: user, tweetID: id, at: time)
        }
        let bookmarking = Permutation(count: pairs, key: draws.seed ^ 3)
        for index in 0..<UInt64(count / 20) {
            step += 1
            let (user, tweet) = draws.pair(bookmarking(index))
            let id = draws.id(tweet)
            let time = draws.time(after: tweet, draw: draws.value(Int(index), stream: 13))
            try write(
                (
                    DocumentPath(collection: Collections.bookmarks(of: users[user].id), documentID: id),
                    ["tweetId": .string(id), "timestamp": .string(Timestamp.string(from: time))]
                ))
        }

        // The tweets, made again with their counts, with their search terms and hashtag hours, as
        // posting them would write.
        var captions = DemoCaptions()
        var terms = SeedTerms(draws: draws)
        // Tweets are made in time order, so each hour's hashtags are counted and written before
        // the next hour's: one hour is held, not every hour's.
        var trendHour: String?
        var trendCounts: [String: (hashtag: String, tweets: Int64)] = [:]
        var stats = [UserStats](repeating: UserStats(following: 0, followers: 0, tweets: 0), count: users.count)
        for index in 0..<count {
            step += Self.tweetStepWeight
            let shape = draws.shape(index)
            var captionRandom = draws.random(index, stream: 2)
            let composed = captions.next(
                &captionRandom, reply: shape.replyTo != nil, mention: shape.mention.map { users[$0].username })
            let caption = composed.text
            let entities = composed.entities
            let id = draws.id(index)
            let time = draws.time(index)
            let record = TweetRecord(
                id: id, uid: users[shape.author].id, caption: caption, likes: likeCounts[index], timestamp: time,
                replyToId: shape.replyTo.map(draws.id), entities: entities, replyCount: replyCounts[index],
                retweets: retweetCounts[index], quotes: quoteCounts[index], quoteId: shape.quote.map(draws.id))
            var fields = record.fields
            if let parent = shape.replyTo { fields["replyToUid"] = .string(users[draws.shape(parent).author].id) }
            if let quoted = shape.quote { fields["quoteUid"] = .string(users[draws.shape(quoted).author].id) }
            if let image = pictures?.image(for: index, of: count, draw: draws.value(index, stream: 14)) {
                fields["images"] = .array([.object(image.fields)])
            }
            try write((DocumentPath(collection: Collections.tweets, documentID: id), fields))
            stats[shape.author].tweets += 1
            for term in SearchTerms.terms(caption: composed.searchText, entities: entities) {
                try terms.add(index, to: term, write: write)  // tweets are made in ID order
            }
            if !entities.hashtags.isEmpty {
                let hour = SearchIndex.hour(time)
                if hour != trendHour {
                    if let trendHour {
                        try write((SearchIndex.trendPath(trendHour), SearchIndex.trendFields(trendCounts)))
                    }
                    trendHour = hour
                    trendCounts = [:]
                }
                for tag in Set(entities.hashtags.map(SearchTerms.fold)) {
                    let shown = entities.hashtags.first { SearchTerms.fold($0) == tag } ?? tag
                    trendCounts[tag, default: (shown, 0)].tweets += 1
                }
            }
        }
        try terms.finish(write: write)
        if let trendHour { try write((SearchIndex.trendPath(trendHour), SearchIndex.trendFields(trendCounts))) }

        var follows = 0
        for (index, user) in users.enumerated() {
            step += 1
            var chosen = Set<Int>()
            while chosen.count < options.follows {
                let other = Int(random.next() % UInt64(users.count))
                guard other != index, chosen.insert(other).inserted else { continue }
                let stamp = JSONValue.string(Timestamp.string(from: draws.start))
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
                stats[index].following += 1
                stats[other].followers += 1
                try notify(other, .follow, from: index, tweetID: nil, at: draws.start)
            }
            if chosen.count <= FollowingList.maximumCount {
                let uids = chosen.map { users[$0].id }.sorted(by: ByteOrder.precedes)
                try write((FollowingList.path(of: user.id), FollowingList.fields(uids)))
            }
        }
        for (index, counts) in stats.enumerated() {
            var fields = StatsCounter.fields(counts)
            fields[FollowingList.mark] = .bool(counts.following <= FollowingList.maximumCount)
            try write((StatsCounter.path(of: users[index].id), fields))
        }
        for (index, count) in unread.enumerated() where count > 0 {
            try write(
                (NotificationBatch.statePath(of: users[index].id), ["unread": .integer(Int64(count)), "seen": .null]))
        }
        progress(WorkProgress(done: written, fraction: 1, isFinishing: true))
        return Summary(users: users.count, tweets: count, replies: replies, likes: options.likes, follows: follows)
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
    /// More data than the store's file system has room for (bytes).
    case tooLargeForDisk(needed: Double, available: Double)
    /// A time to anchor the data to outside ``DemoSeeder/Options/nowRange``.
    case timeOutOfRange

    /// `bytes` in GiB with one decimal, as `%.1f` would print it.
    private func gibibytes(_ bytes: Double) -> String {
        let tenths = Int((max(0, bytes) / 1_073_741_824 * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

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
            return "seeding this much takes about \(gibibytes(needed)) GiB of memory and \(gibibytes(available)) GiB "
                + "is available; seed fewer tweets, likes or follows"
        case .tooLargeForDisk(let needed, let available):
            return "seeding this much takes about \(gibibytes(needed)) GiB of disk where the store is and "
                + "\(gibibytes(available)) GiB is free; seed fewer tweets, likes or follows"
        case .timeOutOfRange:
            return "the time to anchor the demo data to must be in the years 2000 to 2999"
        }
    }
}
