import TweetStore

/// Computes a ``ParsedTweet``: twitter-text's `parseTweet`.
enum TweetParser {
    static func parse(_ text: String, configuration: TweetTextConfiguration) -> ParsedTweet {
        let normalized = text.nfcNormalized
        let buffer = TextBuffer(normalized)
        let urls = URLScanner.scan(buffer)
        let scale = configuration.scale
        let maximumWeight = configuration.maxWeightedTweetLength * scale

        var weight = 0
        var hasInvalidCharacter = false
        var hasVisibleCharacter = false
        // The end (exclusive, in scalars) of the part that is still valid.
        var validEnd = 0
        var nextURL = urls.startIndex
        var index = 0
        while index < buffer.count {
            let scalar = buffer.scalars[index]
            if nextURL < urls.endIndex, urls[nextURL].range.lowerBound == index {
                weight += configuration.transformedURLLength * scale
                index = urls[nextURL].range.upperBound
                nextURL += 1
                hasVisibleCharacter = true
            } else if configuration.emojiParsingEnabled,
                case let length = EmojiScanner.sequenceLength(in: buffer.scalars, at: index), length > 0
            {
                weight += configuration.defaultWeight
                index += length
                hasVisibleCharacter = true
            } else {
                weight += configuration.weight(of: scalar)
                hasInvalidCharacter = hasInvalidCharacter || scalar.isInvalidInTweet
                hasVisibleCharacter = hasVisibleCharacter || !scalar.properties.isWhitespace
                index += 1
            }
            if !hasInvalidCharacter, weight <= maximumWeight {
                validEnd = index
            }
        }

        let weightedLength = weight / scale
        let isValid =
            !hasInvalidCharacter && hasVisibleCharacter && weightedLength > 0
            && weightedLength <= configuration.maxWeightedTweetLength
        // Ranges are reported in the text as given; like twitter-text, shift the valid end by
        // the difference normalisation made to the length.
        let originalLength = text.utf16.count
        let lastOffset = max(originalLength - 1, 0)
        let normalizationOffset = originalLength - buffer.utf16Offsets[buffer.count]
        let validLast = min(max(buffer.utf16Offsets[validEnd] - 1 + normalizationOffset, 0), lastOffset)
        return ParsedTweet(
            weightedLength: weightedLength,
            isValid: isValid,
            permillage: weightedLength * 1000 / configuration.maxWeightedTweetLength,
            displayRange: 0...lastOffset,
            validRange: 0...validLast
        )
    }
}
