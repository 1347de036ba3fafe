import TweetStore

// The versions twitter-text ships as config/v1.json, v2.json and v3.json, compiled in so the
// library never reads a configuration file at run time.

extension TweetTextConfiguration {
    /// Twitter's current rules (twitter-text `config/v3.json`): 280 characters; Latin, Greek,
    /// Cyrillic, Hebrew, Arabic, Indic and other scripts up to U+10FF and some general
    /// punctuation count 1, everything else (CJK, emoji, ...) counts 2; an emoji sequence counts 2
    /// as a whole; a URL counts 23.
    public static let v3 = TweetTextConfiguration(
        version: 3,
        maxWeightedTweetLength: 280,
        scale: 100,
        defaultWeight: 200,
        emojiParsingEnabled: true,
        transformedURLLength: 23,
        ranges: weightedRangesSinceV2
    )

    /// The 2017 rules (`config/v2.json`): like ``v3`` but each code point of an emoji counts.
    public static let v2 = TweetTextConfiguration(
        version: 2,
        maxWeightedTweetLength: 280,
        scale: 100,
        defaultWeight: 200,
        emojiParsingEnabled: false,
        transformedURLLength: 23,
        ranges: weightedRangesSinceV2
    )

    /// The original rules (`config/v1.json`): 140 code points, each counting 1; a URL counts 23.
    /// The conformance suite's `tweets` section still uses these.
    public static let v1 = TweetTextConfiguration(
        version: 1,
        maxWeightedTweetLength: 140,
        scale: 1,
        defaultWeight: 1,
        emojiParsingEnabled: false,
        transformedURLLength: 23,
        ranges: []
    )

    /// U+0000–U+10FF (Basic Latin to Georgian), U+2000–U+200D (spaces), U+2010–U+201F (dashes
    /// and quotes) and U+2032–U+2037 (primes) weigh one character.
    private static let weightedRangesSinceV2 = [
        WeightedRange(codePoints: 0...4351, weight: 100),
        WeightedRange(codePoints: 8192...8205, weight: 100),
        WeightedRange(codePoints: 8208...8223, weight: 100),
        WeightedRange(codePoints: 8242...8247, weight: 100),
    ]
}
