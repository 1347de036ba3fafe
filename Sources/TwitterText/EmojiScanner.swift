import TweetStore

/// Recognises emoji sequences (UTS #51), which weigh as one character pair however many code
/// points they hold: keycaps, flags, tag sequences (🏴󠁧󠁢󠁥󠁮󠁧󠁿), skin tones and ZWJ sequences (👨‍👩‍👧‍👦).
///
/// Emoji that default to text presentation (☺, ✌) count unless followed by the text variation
/// selector U+FE0E; ©, ®, ™ and ♟ count only with the emoji selector U+FE0F; digits, `#` and `*`
/// only as keycaps. A stray U+FE0F counts on its own, as in twitter-text.
enum EmojiScanner {
    private static let zeroWidthJoiner: Unicode.Scalar = "\u{200D}"
    private static let textSelector: Unicode.Scalar = "\u{FE0E}"
    private static let emojiSelector: Unicode.Scalar = "\u{FE0F}"
    private static let keycap: Unicode.Scalar = "\u{20E3}"
    private static let cancelTag: Unicode.Scalar = "\u{E007F}"

    /// The number of scalars in the emoji sequence starting at `start`, or 0 if none starts there.
    static func sequenceLength(in scalars: [Unicode.Scalar], at start: Int) -> Int {
        let first = scalars[start]
        if cannotStartSequence(first) {
            return 0
        }
        func scalar(_ index: Int) -> Unicode.Scalar? {
            index < scalars.count ? scalars[index] : nil
        }
        if isKeycapBase(first) {
            if scalar(start + 1) == keycap {
                return 2
            }
            return scalar(start + 1) == emojiSelector && scalar(start + 2) == keycap ? 3 : 0
        }
        if first == emojiSelector {
            return 1
        }
        if isRegionalIndicator(first) {
            return scalar(start + 1).map(isRegionalIndicator) == true ? 2 : 1
        }
        guard isEmojiBase(first, next: scalar(start + 1)) else { return 0 }
        var end = start + 1
        consumeModifiers(after: first, in: scalars, end: &end)
        // Tag sequences: 🏴 + tag letters + cancel tag.
        let tagsStart = end
        while let tag = scalar(end), (0xE0020...0xE007E).contains(tag.value) {
            end += 1
        }
        if end > tagsStart {
            if scalar(end) == cancelTag {
                end += 1
            } else {
                end = tagsStart
            }
        }
        // ZWJ sequences.
        while scalar(end) == zeroWidthJoiner, let next = scalar(end + 1),
            isEmojiBase(next, next: scalar(end + 2)) || isRegionalIndicator(next)
        {
            end += 2
            consumeModifiers(after: next, in: scalars, end: &end)
        }
        return end - start
    }

    /// A cheap range check that rules out most text before any Unicode property lookup: below
    /// U+203C only ©, ® and the keycap bases start an emoji, and nothing in U+3400–U+FE0E (CJK,
    /// Hangul, Yi, private use) does. `EmojiScannerTests` checks this against every scalar's
    /// Unicode properties.
    static func cannotStartSequence(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x203C {
            return !(value == 0xA9 || value == 0xAE || isKeycapBase(scalar))
        }
        return (0x3400...0xFE0E).contains(value)
    }

    /// An optional emoji variation selector, then a skin tone if the base takes one.
    private static func consumeModifiers(after base: Unicode.Scalar, in scalars: [Unicode.Scalar], end: inout Int) {
        if end < scalars.count, scalars[end] == emojiSelector {
            end += 1
        }
        if end < scalars.count, isSkinToneModifier(scalars[end]), base.properties.isEmojiModifierBase {
            end += 1
            if end < scalars.count, scalars[end] == emojiSelector {
                end += 1
            }
        }
    }

    /// Whether `scalar` starts an emoji given the scalar after it.
    private static func isEmojiBase(_ scalar: Unicode.Scalar, next: Unicode.Scalar?) -> Bool {
        let properties = scalar.properties
        if properties.isEmojiPresentation {
            return true
        }
        guard properties.isEmoji, !isKeycapBase(scalar) else { return false }
        if requiresEmojiSelector(scalar) {
            return next == emojiSelector
        }
        return next != textSelector
    }

    /// `0`–`9`, `#` and `*`, emoji only as keycaps.
    private static func isKeycapBase(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCIIDigit || scalar == "#" || scalar == "*"
    }

    /// ©, ®, ™ and ♟ read as text unless the emoji selector follows.
    private static func requiresEmojiSelector(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xA9, 0xAE, 0x2122, 0x265F:
            return true
        default:
            return false
        }
    }

    /// The five Fitzpatrick skin tones, Unicode's only emoji modifiers.
    private static func isSkinToneModifier(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F3FB...0x1F3FF).contains(scalar.value)
    }

    private static func isRegionalIndicator(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F1E6...0x1F1FF).contains(scalar.value)
    }
}
