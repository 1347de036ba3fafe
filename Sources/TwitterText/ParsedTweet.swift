import TweetStore

/// The weighted length of a tweet's text and whether it may be posted, as twitter-text's
/// `parseTweet` reports it.
///
/// Ranges are UTF-16 offsets into the text as given (before normalisation), inclusive at both
/// ends, like the conformance suite's `displayRangeStart/End` and `validRangeStart/End`; an
/// empty text reports `0...0` for both, as twitter-text does.
public struct ParsedTweet: Equatable, Hashable, Sendable {
    /// The length in characters after weighting: 1 for most Latin-script characters, 2 for CJK
    /// characters and emoji, the configuration's transformed URL length for every URL.
    public var weightedLength: Int
    /// Whether the text may be posted: not empty or blank, no invalid characters
    /// (U+FFFE, U+FEFF, U+FFFF), and a weighted length within the configuration's maximum.
    public var isValid: Bool
    /// The weighted length in thousandths of the maximum, rounded down (1000 = exactly full).
    public var permillage: Int
    /// The whole text.
    public var displayRange: ClosedRange<Int>
    /// The leading part of the text that fits within the maximum and has no invalid character.
    public var validRange: ClosedRange<Int>

    /// Creates a parse result.
    /// - Parameters:
    ///   - weightedLength: The weighted length in characters.
    ///   - isValid: Whether the text may be posted.
    ///   - permillage: The weighted length in thousandths of the maximum.
    ///   - displayRange: The whole text, as inclusive UTF-16 offsets.
    ///   - validRange: The valid leading part of the text, as inclusive UTF-16 offsets.
    public init(
        weightedLength: Int,
        isValid: Bool,
        permillage: Int,
        displayRange: ClosedRange<Int>,
        validRange: ClosedRange<Int>
    ) {
        self.weightedLength = weightedLength
        self.isValid = isValid
        self.permillage = permillage
        self.displayRange = displayRange
        self.validRange = validRange
    }
}
