import FoundationEssentials
import TweetCore
import TweetStore

/// Every draw the demo seed makes about one tweet, from the seed and the tweet's index alone: who
/// wrote it, what it answers, whom it mentions, its caption, its ID. A pass over the tweets makes
/// again what it needs of them, so the seed never holds ten million tweets to make ten million.
struct TweetDraws {
    let seed: UInt64
    let tweets: Int
    let users: Int
    /// The time the data is anchored to, in milliseconds since 1970.
    private let anchor: Int64
    /// How long before the anchor the newest tweet was posted: a few minutes, drawn from the seed,
    /// so the same seed anchored to another time moves in time and changes in nothing else.
    private let newestAge: Int64
    /// The newest tweets, an eighth, are spread over the last day, so that trends and the feed
    /// look busy right after seeding; the rest over the weeks before.
    private let recent: Int64
    /// Milliseconds between one recent tweet and the next, then between older ones: at least one,
    /// so every tweet has a time, and an ID, of its own and in order.
    private let recentGap: Int64
    private let olderGap: Int64

    static let day: Int64 = 86_400_000
    /// How far back the tweets go: four weeks.
    static let weeks: Int64 = 28 * day

    init(seed: UInt64, tweets: Int, users: Int, anchor: Date) {
        self.seed = seed
        self.tweets = tweets
        self.users = users
        self.anchor = Int64((anchor.timeIntervalSince1970 * 1000).rounded(.down))
        newestAge = 60_000 + Int64(Self.mix(seed ^ 0x6E65_7765_7374) % 540_000)
        recent = max(1, Int64(tweets) / 8)
        recentGap = max(1, (Self.day - newestAge) / recent)
        olderGap = max(1, (Self.weeks - Self.day) / max(1, Int64(tweets) - recent))
    }

    /// What a tweet is, apart from its text: its author, the earlier tweet it replies to or quotes
    /// (one in ten replies; one in twenty of the rest quotes), and the other user it mentions (one
    /// in eight).
    struct Shape {
        var author: Int
        var replyTo: Int?
        var quote: Int?
        var mention: Int?
    }

    /// The draw of `stream` for the item `index`: the same arguments always give the same value.
    func value(_ index: Int, stream: UInt64) -> UInt64 {
        Self.mix(Self.mix(seed ^ (stream &* 0xD6E8_FEB8_6659_FD93)) &+ UInt64(truncatingIfNeeded: index))
    }

    /// A generator of draws for the item `index`, one stream per purpose.
    func random(_ index: Int, stream: UInt64) -> SplitMix64 {
        SplitMix64(seed: value(index, stream: stream))
    }

    func shape(_ index: Int) -> Shape {
        var random = random(index, stream: 1)
        let author = Int(random.next() % UInt64(users))
        var shape = Shape(author: author)
        if index > 0 && random.next() % 10 == 0 {
            shape.replyTo = Int(random.next() % UInt64(index))
        } else if index > 0 && random.next() % 20 == 0 {
            shape.quote = Int(random.next() % UInt64(index))
        }
        // Someone other than the author, as people seldom mention themselves.
        if random.next() % 8 == 0 && users > 1 {
            shape.mention = (author + 1 + Int(random.next() % UInt64(users - 1))) % users
        }
        return shape
    }

    /// When tweet `index` was posted: the newest minutes before the anchor, the next eighth evenly
    /// over the day before it, the others evenly over the four weeks before that.
    func time(_ index: Int) -> Date {
        Self.date(milliseconds(index))
    }

    private func milliseconds(_ index: Int) -> Int64 {
        let age = Int64(tweets - 1 - index)
        return age < recent
            ? anchor - newestAge - age * recentGap : anchor - Self.day - (age - recent) * olderGap
    }

    /// A time after tweet `tweet` was posted, within a day of it and never after the anchor, from
    /// `draw`: when it was liked, retweeted or bookmarked.
    func time(after tweet: Int, draw: UInt64) -> Date {
        let posted = milliseconds(tweet)
        return Self.date(posted + Int64(draw % UInt64(max(1, min(Self.day, anchor - posted)))))
    }

    /// When the demo users followed each other: as the oldest tweets were posted.
    var start: Date { Self.date(anchor - Self.weeks) }

    private static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Tweet `index`'s ID: its time, then twelve characters drawn for it.
    func id(_ index: Int) -> String {
        var random = random(index, stream: 3)
        return IDGenerator.next(at: time(index), using: &random)
    }

    /// The user and the tweet a number below users × tweets stands for.
    func pair(_ value: UInt64) -> (user: Int, tweet: Int) {
        (Int(value / UInt64(tweets)), Int(value % UInt64(tweets)))
    }

    /// SplitMix64's finalizer: every bit of the input moves about half of the output's.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A pseudo-random permutation of `0..<count`: a four-round Feistel network over the smallest even
/// number of bits that holds `count`, walking the cycle past values outside it. Its first `n`
/// values are `n` distinct draws without a set of those already drawn.
struct Permutation {
    let count: UInt64
    private let halfBits: UInt64
    private let keys: [UInt64]

    init(count: UInt64, key: UInt64) {
        self.count = count
        var bits: UInt64 = 2
        while bits < 64 && (UInt64(1) << bits) < count { bits += 2 }
        halfBits = bits / 2
        keys = (0..<4).map { TweetDraws.mix(key &+ UInt64($0) &* 0x9E37_79B9_7F4A_7C15) }
    }

    /// The `index`th value (`index` below `count`).
    func callAsFunction(_ index: UInt64) -> UInt64 {
        var value = index
        // Encrypting again from a value outside the range comes back inside it: the cycle
        // through `index` holds values below `count`, and the domain is at most four times it.
        repeat { value = encrypt(value) } while value >= count
        return value
    }

    private func encrypt(_ value: UInt64) -> UInt64 {
        let mask = (UInt64(1) << halfBits) &- 1
        var (left, right) = (value >> halfBits, value & mask)
        for key in keys { (left, right) = (right, left ^ (TweetDraws.mix(right ^ key) & mask)) }
        return left << halfBits | right
    }
}

/// A count per tweet in one byte, with the rare count past 254 kept aside.
struct Counters {
    private var small: [UInt8]
    private var large: [Int: Int] = [:]

    init(_ count: Int) {
        small = [UInt8](repeating: 0, count: count)
    }

    mutating func add(_ index: Int) {
        if small[index] < .max {
            small[index] += 1
        } else {
            large[index, default: Int(UInt8.max)] += 1
        }
    }

    subscript(index: Int) -> Int {
        small[index] < .max ? Int(small[index]) : large[index] ?? Int(UInt8.max)
    }
}

/// The search index of the seeded tweets, written as they are made: each term keeps only its
/// newest bucket, as tweet indexes, until it is full; the last one of each is its `open` bucket.
struct SeedTerms {
    private struct Bucket {
        var indexes: [UInt32] = []
        var total = 0

        /// Adds `index`; returns the full bucket it starts a new one after, to be written.
        mutating func add(_ index: UInt32) -> [UInt32]? {
            var full: [UInt32]?
            if indexes.count == SearchIndex.seedBucketSize {
                full = indexes
                indexes = []
                indexes.reserveCapacity(SearchIndex.seedBucketSize)
            }
            indexes.append(index)
            total += 1
            return full
        }
    }

    typealias Write = ((DocumentPath, JSONObject)) throws -> Void
    private let draws: TweetDraws
    private var buckets: [String: Bucket] = [:]

    init(draws: TweetDraws) {
        self.draws = draws
    }

    /// Adds tweet `index` to `term`: tweets come in ID order. A bucket it fills goes to `write`.
    mutating func add(_ index: Int, to term: String, write: Write) throws {
        if let full = buckets[term, default: Bucket()].add(UInt32(index)) { try flush(term, full, write) }
    }

    /// Writes every term's last bucket and the term itself.
    mutating func finish(write: Write) throws {
        for (term, bucket) in buckets {
            let ids = try flush(term, bucket.indexes, write)
            try write(
                (
                    SearchIndex.termPath(term),
                    [
                        "tweets": .integer(Int64(bucket.total)), "open": .string(ids[0]),
                        "openSize": .integer(Int64(ids.count)),
                    ]
                ))
        }
        buckets = [:]
    }

    @discardableResult
    private func flush(_ term: String, _ indexes: [UInt32], _ write: Write) throws -> [String] {
        let ids = indexes.map { draws.id(Int($0)) }
        try write(
            (DocumentPath(collection: SearchIndex.bucketsCollection(term), documentID: ids[0]), SearchIndex.bucket(ids))
        )
        return ids
    }
}
