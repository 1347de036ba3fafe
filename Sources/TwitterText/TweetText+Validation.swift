import TweetStore

// twitter-text's validators.

extension TweetText {
    /// Whether a text may be posted as a tweet: ``parse(_:configuration:)``'s verdict.
    /// - Parameters:
    ///   - text: The tweet's text.
    ///   - configuration: The counting rules; Twitter's current ones by default.
    /// - Returns: `true` if the text is not blank, has no invalid characters and fits.
    public static func isValidTweet(_ text: String, configuration: TweetTextConfiguration = .v3) -> Bool {
        parse(text, configuration: configuration).isValid
    }

    /// Whether a text is exactly one `@screen_name`: 1–20 ASCII letters, digits or underscores.
    /// - Parameter text: The text to check, including the `@`.
    /// - Returns: `true` for `@username` or `@12345`, `false` for `@example-name`.
    public static func isValidUsername(_ text: String) -> Bool {
        let mentions = extractMentionedScreenNames(text)
        return mentions.count == 1 && text.first.map(\.isAtSignCharacter) == true
            && mentions[0] == String(text.dropFirst())
    }

    /// Whether a text is exactly one `@screen_name/list-slug`.
    /// - Parameter text: The text to check, including the `@`.
    /// - Returns: `true` for `@username/list`, `false` for `@username` or ` @username/list`.
    public static func isValidList(_ text: String) -> Bool {
        let entities = extractMentionsOrListsWithIndices(text)
        return entities.count == 1 && entities[0].kind == .list
            && entities[0].range == 0..<text.utf16.count
    }

    /// Whether a text is exactly one `#hashtag`.
    /// - Parameter text: The text to check, including the `#`.
    /// - Returns: `true` for `#hashtag` or `#트위터`, `false` for `#12345`.
    public static func isValidHashtag(_ text: String) -> Bool {
        let hashtags = extractHashtags(text)
        return hashtags.count == 1 && text.first.map(\.isHashSignCharacter) == true
            && hashtags[0] == String(text.dropFirst())
    }

    /// Whether a whole text is a URL.
    /// - Parameters:
    ///   - text: The text to check.
    ///   - requiresProtocol: Whether it must start with `http://` or `https://`.
    ///   - allowsUnicodeDomains: Whether host labels may hold non-ASCII characters.
    /// - Returns: `true` for `https://example.com/path?q=1#top`, `false` for `ftp://…` or a URL
    ///   with a trailing space.
    public static func isValidURL(
        _ text: String, requiresProtocol: Bool = true, allowsUnicodeDomains: Bool = true
    ) -> Bool {
        URLValidator(requiresProtocol: requiresProtocol, allowsUnicodeDomains: allowsUnicodeDomains)
            .isValid(text)
    }
}

extension Character {
    fileprivate var isAtSignCharacter: Bool { self == "@" || self == "＠" }
    fileprivate var isHashSignCharacter: Bool { self == "#" || self == "＃" }
}
