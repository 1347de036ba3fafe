import TweetStore

// twitter-text's extractors, one kind of entity at a time, as the conformance suite calls them.

extension TweetText {
    /// The screen names mentioned in a text, without the `@`, in order (lists excluded).
    /// - Parameter text: The text to search.
    /// - Returns: The screen names, repeated as often as they are mentioned.
    public static func extractMentionedScreenNames(_ text: String) -> [String] {
        extractMentionedScreenNamesWithIndices(text).map(\.value)
    }

    /// The mentions in a text with their ranges (lists excluded).
    /// - Parameter text: The text to search.
    /// - Returns: ``TweetEntity/Kind/mention`` entities in text order.
    public static func extractMentionedScreenNamesWithIndices(_ text: String) -> [TweetEntity] {
        extractMentionsOrListsWithIndices(text).filter { $0.kind == .mention }
    }

    /// The mentions and lists (`@user/list-slug`) in a text with their ranges.
    /// - Parameter text: The text to search.
    /// - Returns: ``TweetEntity/Kind/mention`` and ``TweetEntity/Kind/list`` entities in text
    ///   order.
    public static func extractMentionsOrListsWithIndices(_ text: String) -> [TweetEntity] {
        let buffer = TextBuffer(text)
        return MentionScanner.scan(buffer).map { $0.entity(in: buffer) }
    }

    /// The screen name a text replies to: a mention at its very start, after nothing but spaces.
    /// - Parameter text: The text to search.
    /// - Returns: The screen name without the `@`, or `nil` if the text is not a reply.
    public static func extractReplyScreenName(_ text: String) -> String? {
        let buffer = TextBuffer(text)
        return MentionScanner.replyScreenName(in: buffer).map { buffer.string($0) }
    }

    /// The URLs in a text, with or without a protocol, in order.
    /// - Parameter text: The text to search.
    /// - Returns: The URLs as written.
    public static func extractURLs(_ text: String) -> [String] {
        extractURLsWithIndices(text).map(\.value)
    }

    /// The URLs in a text with their ranges.
    /// - Parameter text: The text to search.
    /// - Returns: ``TweetEntity/Kind/url`` entities in text order.
    public static func extractURLsWithIndices(_ text: String) -> [TweetEntity] {
        let buffer = TextBuffer(text)
        return URLScanner.scan(buffer).map { $0.entity(in: buffer) }
    }

    /// The hashtags in a text, without the `#`, in order; those inside URLs do not count.
    /// - Parameter text: The text to search.
    /// - Returns: The hashtags, repeated as often as they occur.
    public static func extractHashtags(_ text: String) -> [String] {
        extractHashtagsWithIndices(text).map(\.value)
    }

    /// The hashtags in a text with their ranges; those inside URLs do not count.
    /// - Parameter text: The text to search.
    /// - Returns: ``TweetEntity/Kind/hashtag`` entities in text order.
    public static func extractHashtagsWithIndices(_ text: String) -> [TweetEntity] {
        let buffer = TextBuffer(text)
        var hashtags = HashtagScanner.scan(buffer)
        if !hashtags.isEmpty {
            let urls = URLScanner.scan(buffer)
            if !urls.isEmpty {
                hashtags = (urls + hashtags).removingOverlaps().filter { $0.kind == .hashtag }
            }
        }
        return hashtags.map { $0.entity(in: buffer) }
    }

    /// The cashtags in a text, without the `$`, in order.
    /// - Parameter text: The text to search.
    /// - Returns: The cashtags, repeated as often as they occur.
    public static func extractCashtags(_ text: String) -> [String] {
        extractCashtagsWithIndices(text).map(\.value)
    }

    /// The cashtags in a text with their ranges.
    /// - Parameter text: The text to search.
    /// - Returns: ``TweetEntity/Kind/cashtag`` entities in text order.
    public static func extractCashtagsWithIndices(_ text: String) -> [TweetEntity] {
        let buffer = TextBuffer(text)
        return CashtagScanner.scan(buffer).map { $0.entity(in: buffer) }
    }
}
