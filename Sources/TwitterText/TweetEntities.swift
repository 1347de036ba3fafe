import TweetStore

/// The mentions, hashtags and URLs of a tweet, stored in the tweet document when it is posted.
///
/// Each list keeps the order of first appearance and holds each entity once: screen names and
/// hashtags compare case-insensitively (the first spelling is kept), URLs exactly.
public struct TweetEntities: Codable, DocumentDecodable, Equatable, Hashable, Sendable {
    /// Mentioned screen names, without the `@`.
    public var mentions: [String]
    /// Hashtags, without the `#`.
    public var hashtags: [String]
    /// URLs as written, with or without a protocol.
    public var urls: [String]

    /// Creates a set of entities.
    /// - Parameters:
    ///   - mentions: Mentioned screen names, without the `@`.
    ///   - hashtags: Hashtags, without the `#`.
    ///   - urls: URLs as written.
    public init(mentions: [String] = [], hashtags: [String] = [], urls: [String] = []) {
        self.mentions = mentions
        self.hashtags = hashtags
        self.urls = urls
    }

    public init(reading fields: FieldReader) throws(FieldReader.Failure) {
        self.init(
            mentions: try fields.strings("mentions"), hashtags: try fields.strings("hashtags"),
            urls: try fields.strings("urls"))
    }

    /// Whether there is no mention, hashtag or URL.
    public var isEmpty: Bool { mentions.isEmpty && hashtags.isEmpty && urls.isEmpty }
}
