/// Checks that every counter of a set of documents equals what it counts, in constant memory,
/// whatever the documents' order: each counter adds its value times a keyed hash of its target
/// (the tweet, the user, the term) to one sum, and each marker (a like, a follow, a bucket's ID)
/// adds its target's hash to another. The sums are equal when every counter is right; when one is
/// wrong they differ but with a chance of 2⁻⁶¹, since the key is drawn anew for each check and a
/// file cannot aim at it. Exact per-target counts would hold an entry for each of millions of
/// tweets.
package struct CounterFingerprint {
    /// What a counter counts.
    package enum Counter: Int, CaseIterable, Sendable {
        /// A tweet's `likes`: its `user-likes` documents.
        case likes
        /// A tweet's `retweets`: its `retweets` documents.
        case retweets
        /// A tweet's `replyCount`: the tweets replying to it (not marked `replyToDeleted`).
        case replies
        /// A tweet's `quotes`: the tweets quoting it (not marked `quoteDeleted`).
        case quotes
        /// `user-stats` `tweets`, `following` and `followers`: the user's tweets and follows.
        case tweets, following, followers
        /// A follow's two documents: `following/{a}/user-following/{b}` counts `(a, b)`,
        /// `followers/{b}/user-followers/{a}` too.
        case pairs
        /// A search term's `tweets`: the IDs in its buckets.
        case termTweets

        /// The sentence that says this counter disagrees.
        package var disagreement: String {
            switch self {
            case .likes: "a tweet's likes is not the number of its likes"
            case .retweets: "a tweet's retweets is not the number of its retweets"
            case .replies: "a tweet's replyCount is not the number of its replies"
            case .quotes: "a tweet's quotes is not the number of tweets quoting it"
            case .tweets: "a user's tweets count (user-stats) is not the number of their tweets"
            case .following: "a user's following count (user-stats) is not the number of their follows"
            case .followers: "a user's followers count (user-stats) is not the number of their followers"
            case .pairs: "a follow is not kept both ways (following and followers)"
            case .termTweets: "a search term's tweets count is not the number of tweet IDs in its buckets"
            }
        }
    }

    /// The Mersenne prime 2⁶¹ − 1: sums are taken modulo it, a field, so a wrong count cannot be
    /// cancelled by a hash with a factor in common with it.
    private static let prime: UInt64 = (1 << 61) - 1
    private let key: (UInt64, UInt64)
    private var claimedSums = [UInt64](repeating: 0, count: Counter.allCases.count)
    private var countedSums = [UInt64](repeating: 0, count: Counter.allCases.count)

    package init() {
        var generator = SystemRandomNumberGenerator()
        key = (generator.next(), generator.next())
    }

    /// A counter's document says `target` has `value`.
    package mutating func claimed(_ counter: Counter, of target: String, _ value: Int64) {
        let term = Self.multiply(UInt64(value) % Self.prime, hash(counter, target))
        claimedSums[counter.rawValue] = Self.add(claimedSums[counter.rawValue], term)
    }

    /// A marker counts `times` towards `target`.
    package mutating func counted(_ counter: Counter, of target: String, times: Int = 1) {
        let term = Self.multiply(UInt64(times) % Self.prime, hash(counter, target))
        countedSums[counter.rawValue] = Self.add(countedSums[counter.rawValue], term)
    }

    /// The first counter whose sums differ, if any.
    package func disagreeing() -> Counter? { allDisagreeing().first }

    /// Every counter whose sums differ.
    package func allDisagreeing() -> [Counter] {
        Counter.allCases.filter { claimedSums[$0.rawValue] != countedSums[$0.rawValue] }
    }

    /// A keyed FNV-1a of the target's bytes, finished by SplitMix64's mixer, below the prime.
    private func hash(_ counter: Counter, _ target: String) -> UInt64 {
        var hash = key.0 ^ UInt64(counter.rawValue) &* 0x9E37_79B9_7F4A_7C15
        for byte in target.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash ^= key.1
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        hash ^= hash >> 31
        return hash % Self.prime
    }

    private static func add(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let sum = a + b  // Both below 2⁶¹: no overflow.
        return sum >= prime ? sum - prime : sum
    }

    private static func multiply(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        // 2⁶⁴ ≡ 2³ (mod 2⁶¹ − 1): fold the 128-bit product down.
        let folded = (UInt64(high) << 3 | low >> 61) + (low & prime)
        return folded % prime
    }
}
