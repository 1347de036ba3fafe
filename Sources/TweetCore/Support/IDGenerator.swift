import FoundationEssentials
import Synchronization
import TweetStore

/// Makes Firestore-style document IDs: 20 characters of `[A-Za-z0-9]`.
public struct IDGenerator: Sendable {
    /// The characters of every ID.
    public static let length = 20
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    /// `nil` for the system's randomness.
    private let seeded: SeededRandom?

    /// IDs from the system's random number generator.
    public static let random = IDGenerator(seeded: nil)

    /// A reproducible sequence of IDs: the same seed gives the same IDs.
    public static func seeded(_ seed: UInt64) -> IDGenerator {
        IDGenerator(seeded: SeededRandom(seed: seed))
    }

    private init(seeded: SeededRandom?) {
        self.seeded = seeded
    }

    /// The next ID.
    public func next() -> String {
        guard let seeded else {
            var generator = SystemRandomNumberGenerator()
            return Self.makeID(using: &generator)
        }
        return seeded.state.withLock { generator in Self.makeID(using: &generator) }
    }

    /// An ID that sorts by `date`: 8 characters of milliseconds since 1970 in base 62 (in ASCII
    /// order), then 12 random ones. Tweets get these, like Twitter's snowflake IDs, so a segment,
    /// which is sorted by ID, keeps them in time order and a page of the feed sits in a few
    /// neighbouring blocks instead of twenty scattered ones.
    public func next(at date: Date) -> String {
        // `String(…)`: a String plus a Substring is a generic append, whose first use in a process
        // looks up protocol conformances at run time; every post makes one ID.
        Self.ordered(UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded())), digits: 8)
            + String(next().suffix(12))
    }

    /// An ID that sorts by `date` as ``next(at:)``'s do, its twelve other characters drawn from
    /// `generator`: the demo seed's, which makes each tweet's ID again from the tweet's own draws.
    /// The generator is SplitMix64 itself, not any: a generic function of this module is not
    /// specialized for the demo seed's module, which calls it for every tweet.
    package static func next(at date: Date, using generator: inout SplitMix64) -> String {
        ordered(UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded())), digits: 8)
            + String(makeID(using: &generator).suffix(12))
    }

    /// The ID of a tweet imported from Twitter: its time as ``next(at:)`` writes it, then its
    /// Twitter ID in 12 base-62 digits instead of random ones, so the same tweet always gets the
    /// same ID.
    static func imported(twitterID: UInt64, at milliseconds: UInt64) -> String {
        ordered(milliseconds, digits: 8) + ordered(twitterID, digits: 12)
    }

    /// The time a row's cursor holds in its first 8 characters (a tweet's ID, or a retweet's after
    /// `rt_`), as ``next(at:)`` writes it; `nil` for an ID that is not of that form.
    public static func time(ofCursor cursor: String) -> Date? {
        let id = cursor.hasPrefix("rt_") ? cursor.dropFirst(3) : Substring(cursor)
        guard id.utf8.count == 20 else { return nil }
        var milliseconds: UInt64 = 0
        for byte in id.utf8.prefix(8) {
            guard let digit = orderedAlphabet.firstIndex(of: byte) else { return nil }
            milliseconds = milliseconds * 62 + UInt64(digit)
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `value` in `digits` base-62 digits in ASCII order (the high ones dropped).
    private static func ordered(_ value: UInt64, digits: Int) -> String {
        var value = value
        var bytes = [UInt8](repeating: 0, count: digits)
        for position in (0..<digits).reversed() {
            bytes[position] = orderedAlphabet[Int(value % 62)]
            value /= 62
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Base 62 digits in ASCII order, so equal-length strings compare as their numbers.
    private static let orderedAlphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    private static func makeID(using generator: inout some RandomNumberGenerator) -> String {
        String(decoding: (0..<20).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
    }
}

/// A small, fast, reproducible random number generator (Steele, Lea and Flood's SplitMix64).
/// For demo data and IDs in tests only; never for secrets.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A ``SplitMix64`` shared between threads.
private final class SeededRandom: Sendable {
    let state: Mutex<SplitMix64>

    init(seed: UInt64) {
        state = Mutex(SplitMix64(seed: seed))
    }
}
