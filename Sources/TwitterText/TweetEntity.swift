import TweetStore

/// A mention, list, hashtag, cashtag or URL found in a tweet's text, with where it is.
public struct TweetEntity: Equatable, Hashable, Sendable {
    /// What an entity is.
    public enum Kind: String, Codable, Equatable, Hashable, Sendable, CaseIterable {
        /// A URL, with or without a protocol.
        case url
        /// A `#hashtag`.
        case hashtag
        /// An `@screen_name`.
        case mention
        /// An `@screen_name/list-slug`.
        case list
        /// A `$CASHTAG`.
        case cashtag
    }

    /// What the entity is.
    public var kind: Kind
    /// Where the entity is, as UTF-16 offsets into the text (half-open), including the leading
    /// `@`, `#` or `$` and, for a list, the slug: the suite's `indices`.
    public var range: Range<Int>
    /// The entity without its sign: the URL, the hashtag, the screen name or the cashtag.
    public var value: String
    /// For a ``Kind/list``, the slug with its leading slash (`/list-name`); otherwise `nil`.
    public var listSlug: String?

    /// Creates an entity.
    /// - Parameters:
    ///   - kind: What the entity is.
    ///   - range: Where it is, as half-open UTF-16 offsets including its sign.
    ///   - value: The entity without its sign.
    ///   - listSlug: For a list, the slug with its leading slash.
    public init(kind: Kind, range: Range<Int>, value: String, listSlug: String? = nil) {
        self.kind = kind
        self.range = range
        self.value = value
        self.listSlug = listSlug
    }

    /// The entity's range as string indices, for slicing or styling the text it was found in.
    /// - Parameter text: The text the entity was extracted from.
    /// - Returns: The range, or `nil` if it is not a range of whole Unicode scalars of `text`.
    public func stringRange(in text: String) -> Range<String.Index>? {
        let utf16 = text.utf16
        guard range.lowerBound >= 0, range.upperBound <= utf16.count,
            let lower = utf16.index(utf16.startIndex, offsetBy: range.lowerBound, limitedBy: utf16.endIndex),
            let upper = utf16.index(lower, offsetBy: range.count, limitedBy: utf16.endIndex),
            let start = lower.samePosition(in: text.unicodeScalars),
            let end = upper.samePosition(in: text.unicodeScalars)
        else { return nil }
        return start..<end
    }
}
