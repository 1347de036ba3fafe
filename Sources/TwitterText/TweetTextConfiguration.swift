import TweetStore

/// The weights twitter-text uses to count a tweet's length.
///
/// A code point inside one of ``ranges`` weighs that range's weight, any other weighs
/// ``defaultWeight``; an emoji sequence weighs ``defaultWeight`` as a whole when
/// ``emojiParsingEnabled``; a URL weighs ``transformedURLLength`` characters whatever its length.
/// Weights are scaled by ``scale``, so with scale 100 a weight of 100 is one character.
/// Use ``v3`` (Twitter's current rules) unless a test needs an older version.
public struct TweetTextConfiguration: Equatable, Hashable, Sendable {
    /// A run of code points that share one weight.
    public struct WeightedRange: Equatable, Hashable, Sendable {
        /// The code points, inclusive at both ends.
        public var codePoints: ClosedRange<UInt32>
        /// The weight of each code point in the range, in units of ``TweetTextConfiguration/scale``.
        public var weight: Int

        /// Creates a weighted range.
        /// - Parameters:
        ///   - codePoints: The code points, inclusive at both ends.
        ///   - weight: The weight of each code point, in units of the configuration's scale.
        public init(codePoints: ClosedRange<UInt32>, weight: Int) {
            self.codePoints = codePoints
            self.weight = weight
        }
    }

    /// The configuration's version number (1, 2 or 3).
    public var version: Int
    /// The longest valid tweet, in characters (weighted length).
    public var maxWeightedTweetLength: Int
    /// How many weight units make one character.
    public var scale: Int
    /// The weight of a code point outside every range, and of a whole emoji sequence.
    public var defaultWeight: Int
    /// Whether emoji sequences count as one ``defaultWeight`` each rather than per code point.
    public var emojiParsingEnabled: Bool
    /// The length, in characters, that every URL counts as (the length of a t.co link).
    public var transformedURLLength: Int
    /// The ranges whose code points weigh something other than ``defaultWeight``.
    public var ranges: [WeightedRange]

    /// Creates a configuration.
    /// - Parameters:
    ///   - version: The version number.
    ///   - maxWeightedTweetLength: The longest valid tweet, in characters.
    ///   - scale: How many weight units make one character.
    ///   - defaultWeight: The weight of a code point outside every range, and of an emoji.
    ///   - emojiParsingEnabled: Whether an emoji sequence weighs `defaultWeight` as a whole.
    ///   - transformedURLLength: The length every URL counts as, in characters.
    ///   - ranges: The ranges whose code points weigh something other than `defaultWeight`.
    public init(
        version: Int,
        maxWeightedTweetLength: Int,
        scale: Int,
        defaultWeight: Int,
        emojiParsingEnabled: Bool,
        transformedURLLength: Int,
        ranges: [WeightedRange]
    ) {
        self.version = version
        self.maxWeightedTweetLength = maxWeightedTweetLength
        self.scale = scale
        self.defaultWeight = defaultWeight
        self.emojiParsingEnabled = emojiParsingEnabled
        self.transformedURLLength = transformedURLLength
        self.ranges = ranges
    }

    /// The weight of one code point that is not part of a URL or an emoji sequence.
    func weight(of scalar: Unicode.Scalar) -> Int {
        for range in ranges where range.codePoints.contains(scalar.value) {
            return range.weight
        }
        return defaultWeight
    }
}
