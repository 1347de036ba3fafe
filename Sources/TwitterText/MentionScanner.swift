import TweetStore

/// Finds `@mentions`, `@user/lists` and the replied-to screen name the way twitter-text's
/// extractor does.
///
/// A mention is `@` or `＠` at the start of the text, after a character that is not an ASCII
/// letter or digit nor one of ``_!#$%&*@＠``, or after `RT` or `RT:` (any case, not glued to a
/// preceding word); then 1–20 letters, digits or underscores and, for a list, `/` and a slug of
/// a letter and up to 24 letters, digits, `_` or `-`. It is dropped when directly followed by an
/// at sign, an accented Latin letter or `://` (`@user@example.com`, `@aliceìnheiro`,
/// `@http://…`).
enum MentionScanner {
    /// The longest screen name.
    static let maximumScreenNameLength = 20

    /// The mentions and lists in `text`, in order.
    static func scan(_ text: TextBuffer) -> [ScannedEntity] {
        guard text.scalars.contains(where: \.isAtSign) else { return [] }
        var mentions: [ScannedEntity] = []
        // Where the next match may begin, its preceding characters included.
        var searchStart = 0
        var index = 0
        while index < text.count {
            guard let mention = mention(at: index, searchStart: searchStart, in: text) else {
                index += 1
                continue
            }
            searchStart = mention.range.upperBound
            index = mention.range.upperBound
            if !isInvalidEnding(at: mention.range.upperBound, in: text) {
                mentions.append(mention)
            }
        }
        return mentions
    }

    /// The screen name a reply is addressed to: a mention at the very start of the text, after
    /// nothing but spaces and directional marks.
    static func replyScreenName(in text: TextBuffer) -> Range<Int>? {
        let at = text.runEnd(from: 0) { $0.isTweetWhitespace || $0.isDirectionalMarker }
        guard let sign = text[at], sign.isAtSign else { return nil }
        let nameEnd = text.runEnd(from: at + 1, limit: maximumScreenNameLength) { $0.isScreenNameCharacter }
        guard nameEnd > at + 1, !isInvalidEnding(at: nameEnd, in: text) else { return nil }
        return (at + 1)..<nameEnd
    }

    /// The mention or list whose at sign is at `sign`, before checking what follows it.
    private static func mention(at sign: Int, searchStart: Int, in text: TextBuffer) -> ScannedEntity? {
        guard text.scalars[sign].isAtSign, canPrecede(sign, searchStart: searchStart, in: text) else {
            return nil
        }
        let nameStart = sign + 1
        let nameEnd = text.runEnd(from: nameStart, limit: maximumScreenNameLength) { $0.isScreenNameCharacter }
        guard nameEnd > nameStart else { return nil }
        if text[nameEnd] == "/", let first = text[nameEnd + 1], first.isASCIILetter {
            let slugEnd = text.runEnd(from: nameEnd + 2, limit: 24) { $0.isScreenNameCharacter || $0 == "-" }
            return ScannedEntity(
                kind: .list, range: sign..<slugEnd, valueRange: nameStart..<nameEnd,
                listSlugRange: nameEnd..<slugEnd)
        }
        return ScannedEntity(kind: .mention, range: sign..<nameEnd, valueRange: nameStart..<nameEnd)
    }

    /// Whether what follows a screen name or slug makes it something else: an email address,
    /// a word with accents, a URL.
    private static func isInvalidEnding(at end: Int, in text: TextBuffer) -> Bool {
        guard let next = text[end] else { return false }
        return next.isAtSign || next.isLatinAccent || text.hasPrefix("://", at: end)
    }

    /// Whether a mention may start with the at sign at `at`; the characters it consumes before
    /// the at sign must not belong to the previous match (they start at `searchStart` or later).
    private static func canPrecede(_ at: Int, searchStart: Int, in text: TextBuffer) -> Bool {
        if at == 0 {
            return true
        }
        if at - 1 >= searchStart, canPrecedeMention(text.scalars[at - 1]) {
            return true
        }
        // `RT@user`, `RT:@user`: a retweet prefix stands in for the preceding character.
        for retweetStart in [at - 2, at - 3] where retweetStart >= searchStart {
            guard isRetweetPrefix(from: retweetStart, to: at, in: text) else { continue }
            if retweetStart == 0 {
                return true
            }
            if retweetStart - 1 >= searchStart, !isWordCharacterBeforeRetweet(text.scalars[retweetStart - 1]) {
                return true
            }
        }
        return false
    }

    /// Whether `RT` (any case) or `RT:` fills `start..<end`.
    private static func isRetweetPrefix(from start: Int, to end: Int, in text: TextBuffer) -> Bool {
        guard text.hasPrefix("rt", at: start) else { return false }
        return end == start + 2 || (end == start + 3 && text[start + 2] == ":")
    }

    /// Anything but ASCII letters and digits and ``_!#$%&*@＠``.
    private static func canPrecedeMention(_ scalar: Unicode.Scalar) -> Bool {
        !(scalar.isScreenNameCharacter || scalar.isAtSign || "!#$%&*".unicodeScalars.contains(scalar))
    }

    /// ASCII letters and digits and `_+~.-`, which glue `RT` to a word (`ART@x` is no retweet).
    private static func isWordCharacterBeforeRetweet(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isScreenNameCharacter || "+~.-".unicodeScalars.contains(scalar)
    }
}
