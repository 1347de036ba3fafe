import TweetStore
import TwitterText

/// How a caption counts by Twitter's rules, before it is posted (`post --dry-run`).
public struct CaptionPreview: Codable, Equatable, Sendable {
    /// The caption as it would be posted (surrounding whitespace removed).
    public var caption: String
    /// Twitter's weighted length: CJK characters and emoji count 2, every URL 23.
    public var weightedLength: Int
    public var limit: Int
    /// Whether it could be posted (empty captions and unwanted characters are not).
    public var isValid: Bool
    /// The mentions, hashtags and URLs that would be stored with it.
    public var entities: TweetEntities

    /// What is left: negative when the caption is too long.
    public var remaining: Int { limit - weightedLength }
}
