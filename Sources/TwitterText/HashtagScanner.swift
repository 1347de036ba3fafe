import TweetStore

/// Finds hashtags the way twitter-text's extractor does.
///
/// A hashtag is `#` or `＃` after the start of the text or a character that cannot be part of a
/// hashtag (nor `&`, so HTML entities like `&#39;` stay text), followed by letters, marks,
/// digits and word joiners with at least one letter or mark; it is dropped when directly
/// followed by another hash sign or by `://` (`#http://…`).
enum HashtagScanner {
    /// The hashtags in `text`, in order, including those inside URLs.
    static func scan(_ text: TextBuffer) -> [ScannedEntity] {
        guard text.scalars.contains(where: \.isHashSign) else { return [] }
        var hashtags: [ScannedEntity] = []
        // Where the next match may begin, its preceding character included.
        var searchStart = 0
        var hash = 0
        while hash < text.count {
            guard let tag = tagRange(after: hash, searchStart: searchStart, in: text) else {
                hash += 1
                continue
            }
            searchStart = tag.upperBound
            hash = tag.upperBound
            if let next = text[tag.upperBound], next.isHashSign || text.hasPrefix("://", at: tag.upperBound) {
                continue
            }
            hashtags.append(
                ScannedEntity(kind: .hashtag, range: (tag.lowerBound - 1)..<tag.upperBound, valueRange: tag))
        }
        return hashtags
    }

    /// The hashtag's text after the hash sign at `hash`, if a hashtag starts there.
    private static func tagRange(after hash: Int, searchStart: Int, in text: TextBuffer) -> Range<Int>? {
        guard text.scalars[hash].isHashSign, canPrecede(hash, searchStart: searchStart, in: text) else {
            return nil
        }
        if let next = text[hash + 1], next == "\u{FE0F}" || next == "\u{20E3}" {
            return nil  // The keycap emoji #️⃣.
        }
        let tagEnd = text.runEnd(from: hash + 1) { $0.isHashtagCharacter }
        guard text.scalars[(hash + 1)..<tagEnd].contains(where: \.isHashtagLetter) else { return nil }
        return (hash + 1)..<tagEnd
    }

    /// Whether a hashtag may start with the hash sign at `hash`: at the start of the text, or
    /// after a variation selector or a character that is neither `&` nor part of a hashtag.
    private static func canPrecede(_ hash: Int, searchStart: Int, in text: TextBuffer) -> Bool {
        if hash == 0 {
            return true
        }
        guard hash - 1 >= searchStart else { return false }
        let preceding = text.scalars[hash - 1]
        if preceding == "\u{FE0E}" || preceding == "\u{FE0F}" {
            return true
        }
        return !(preceding == "&" || preceding.isHashtagCharacter)
    }
}
