import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// The NFC shortcut agrees with Foundation's normalisation, including on text it must not skip.
struct NormalizationTests {
    @Test(arguments: [
        "plain ASCII",
        "Cafe\u{301}",  // e + combining acute → é.
        "\u{1112}\u{1161}\u{11AB}",  // Hangul jamo → 한.
        "か\u{3099}",  // Kana + combining voiced mark → が.
        "\u{F900}",  // CJK compatibility ideograph → U+8C48.
        "\u{2126}",  // Ohm sign → Ω.
        "a\u{0323}\u{0307}",  // Marks out of canonical order.
        "☺️ 👨‍👩‍👧‍👦 🏴󠁧󠁢󠁳󠁣󠁴󠁿 漢字 ひらがな 한국어",
    ])
    func nfcNormalizedMatchesFoundation(text: String) {
        #expect(
            Array(text.nfcNormalized.unicodeScalars) == Array(text.precomposedStringWithCanonicalMapping.unicodeScalars)
        )
    }
}
