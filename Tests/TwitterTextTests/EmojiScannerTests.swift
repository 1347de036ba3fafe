import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal
@testable import TwitterText

/// Emoji sequences weigh as one unit; the scanner's shortcuts must not miss any emoji.
struct EmojiScannerTests {
    @Test func theFastPathRejectsNoScalarThatIsAnEmoji() {
        let ranges: [ClosedRange<UInt32>] = [0...0x203B, 0x3400...0xFE0E]
        let missed = ranges.joined().compactMap(Unicode.Scalar.init).filter { scalar in
            (scalar.properties.isEmoji || scalar.properties.isEmojiPresentation)
                && EmojiScanner.cannotStartSequence(scalar)
        }

        #expect(missed.isEmpty, "emoji the fast path would miss: \(missed.map { String($0.value, radix: 16) })")
    }

    @Test(arguments: [
        ("👨‍👩‍👧‍👦", 7),  // ZWJ family.
        ("👍🏽", 2),  // Skin tone.
        ("🇰🇷", 2),  // Flag.
        ("🏴󠁧󠁢󠁳󠁣󠁴󠁿", 7),  // Tag sequence.
        ("1️⃣", 3),  // Keycap.
        ("❤️‍🔥", 4),  // ZWJ with a text-default base.
        ("☺", 1),  // Text-default emoji.
        ("☺︎", 0),  // ... unless text presentation is asked for.
        ("©", 0),  // © is text unless U+FE0F follows.
        ("©️", 2),
        ("#", 0),
        ("a", 0),
    ])
    func measuresSequencesInScalars(emoji: String, length: Int) {
        #expect(EmojiScanner.sequenceLength(in: Array(emoji.unicodeScalars), at: 0) == length)
    }
}
