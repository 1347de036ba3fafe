import TweetStore

/// Twitter's rules for tweet text (twitter-text v3): weighted length, entity extraction and
/// validation, for counting a caption as it is typed, storing its entities when it is posted and
/// colouring them when it is shown.
///
/// Entity ranges are UTF-16 offsets, as in twitter-text and its conformance suite; use
/// ``TweetEntity/stringRange(in:)`` to turn one into string indices.
public enum TweetText {
    /// Counts the weighted length of a tweet and checks whether it may be posted.
    ///
    /// The text is NFC-normalised first. With ``TweetTextConfiguration/v3``, most Latin-script
    /// characters count 1, CJK characters and each emoji sequence count 2, and every URL counts
    /// 23 whatever its length.
    /// - Parameters:
    ///   - text: The tweet's text.
    ///   - configuration: The counting rules; Twitter's current ones by default.
    /// - Returns: The weighted length, validity and the valid part of the text.
    public static func parse(_ text: String, configuration: TweetTextConfiguration = .v3) -> ParsedTweet {
        TweetParser.parse(text, configuration: configuration)
    }

    /// The mentions, hashtags and URLs to store with a tweet.
    ///
    /// Mentions and hashtags inside URLs do not count, lists (`@user/list`) are not mentions,
    /// and each entity is listed once (see ``TweetEntities``).
    /// - Parameter text: The tweet's text.
    /// - Returns: The entities in order of first appearance.
    public static func entities(in text: String) -> TweetEntities {
        let buffer = TextBuffer(text)
        var entities = TweetEntities()
        var seenMentions = Set<String>()
        var seenHashtags = Set<String>()
        var seenURLs = Set<String>()
        for scanned in scanAllEntities(in: buffer) {
            let value = buffer.string(scanned.valueRange)
            switch scanned.kind {
            case .mention where seenMentions.insert(value.lowercased()).inserted:
                entities.mentions.append(value)
            case .hashtag where seenHashtags.insert(value.lowercased()).inserted:
                entities.hashtags.append(value)
            case .url where seenURLs.insert(value).inserted:
                entities.urls.append(value)
            default:
                break
            }
        }
        return entities
    }

    /// Every URL, hashtag, mention, list and cashtag with its range, for colouring a tweet.
    ///
    /// Where entities overlap (a hashtag inside a URL's fragment, say) the one starting first
    /// wins, and a URL wins over anything starting at the same place.
    /// - Parameter text: The tweet's text.
    /// - Returns: The entities in text order.
    public static func extractEntitiesWithIndices(_ text: String) -> [TweetEntity] {
        let buffer = TextBuffer(text)
        return scanAllEntities(in: buffer).map { $0.entity(in: buffer) }
    }

    /// All entities, overlaps removed.
    static func scanAllEntities(in buffer: TextBuffer) -> [ScannedEntity] {
        (URLScanner.scan(buffer) + HashtagScanner.scan(buffer) + MentionScanner.scan(buffer)
            + CashtagScanner.scan(buffer)).removingOverlaps()
    }
}
