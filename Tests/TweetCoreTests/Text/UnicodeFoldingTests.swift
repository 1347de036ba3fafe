import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore

/// tweetcli folds, normalises, trims and replaces text without Foundation's ICU-backed methods;
/// these check it against them, which the tests (unlike tweetcli) still link.
struct UnicodeFoldingTests {
    /// Every scalar of the planes in use, alone, then before a combining mark.
    private static var scalars: [Unicode.Scalar] {
        (0...0x2FFFF).compactMap { Unicode.Scalar(UInt32($0)) }.filter { $0.properties.generalCategory != .unassigned }
    }

    private func foundationFold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// On the Basic Multilingual Plane. Past it, Foundation on Linux composes U+10041 U+0301 into
    /// U+00C1, as if it had dropped the scalar's high bits; the standard library leaves it alone.
    @Test func nfcIsFoundationsForEveryScalarAndAfterAMark() {
        var differences: [String] = []
        for scalar in Self.scalars where scalar.value < 0x10000 {
            for text in [String(scalar), "e" + String(scalar), String(scalar) + "\u{301}"]
            where UnicodeFolding.nfc(text) != text.precomposedStringWithCanonicalMapping {
                differences.append(String(scalar.value, radix: 16))
            }
        }
        #expect(differences.isEmpty, "\(differences.prefix(40))")
        #expect(UnicodeFolding.nfc("\u{10041}\u{301}") == "\u{10041}\u{301}")
        #expect(UnicodeFolding.nfc("e\u{301}") == "\u{E9}")
        #expect(UnicodeFolding.nfc("\u{1100}\u{1161}") == "\u{AC00}")
    }

    /// Each scalar alone: the search index that stores already have was folded by Foundation,
    /// so a word must fold as it did then (past the BMP, Foundation's NFC is wrong, above).
    @Test func searchFoldIsFoundationsForEveryScalar() {
        var differences: [String] = []
        for scalar in Self.scalars where scalar.value < 0x10000 {
            let text = String(scalar)
            if UnicodeFolding.searchFold(text) != foundationFold(text) {
                differences.append(String(scalar.value, radix: 16))
            }
        }
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(60))")
    }

    /// Words as tweets write them, in a seeded random mix: letters of the scripts with case and
    /// diacritics (precomposed, or decomposed with one mark after a letter, as macOS writes file
    /// names), kana and full-width letters. (Foundation folds piles of marks after kana in ways of
    /// its own: those words are found as the new fold folds them, in a query and an index alike.)
    @Test func searchFoldIsFoundationsForMixedWords() {
        let letters: [[UInt32]] = [
            Array(0x41...0x5A), Array(0x61...0x7A), Array(0xC0...0x24F), Array(0x386...0x3CE), Array(0x400...0x4FF),
            Array(0x1E00...0x1EFF), Array(0x1F00...0x1FFC), Array(0xFF21...0xFF5A), Array(0xFF66...0xFF9D),
            Array(0x3041...0x30FF), [0xDF, 0x1E9E, 0x130, 0x131, 0x3A3, 0x3C2],
        ]
        let cased = 7  // the blocks before this one are Latin, Greek and Cyrillic
        var generator = SplitMix64(seed: 42)
        var checked = 0
        for _ in 0..<20_000 {
            var view = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let block = Int.random(in: 0..<letters.count, using: &generator)
                guard let letter = Unicode.Scalar(letters[block].randomElement(using: &generator)!),
                    letter.properties.isAlphabetic, letter.properties.generalCategory != .nonspacingMark
                else { continue }
                view.append(letter)
                if block < cased, Bool.random(using: &generator) {
                    view.append(Unicode.Scalar(UInt32.random(in: 0x300...0x36F, using: &generator))!)
                }
            }
            let word = String(view)
            let (ours, theirs) = (UnicodeFolding.searchFold(word), foundationFold(word))
            #expect(ours == theirs, "\(word.unicodeScalars.map { String($0.value, radix: 16) })")
            if ours != theirs { break }
            checked += 1
        }
        #expect(checked == 20_000)
        #expect(UnicodeFolding.searchFold("Straße ÉCOLE ＡＢＣ ｶﾞ") == "strasse ecole abc ガ")
        #expect(UnicodeFolding.searchFold("E\u{301}cole") == "ecole")
    }

    @Test func trimmingIsFoundations() {
        let samples = [
            "", " ", "\t a b \n", "\u{3000}x\u{A0}", "\n\nline\r\n", "\u{2028}x\u{2029}", " \u{301}a ",
            "\u{85}z\u{1680}",
            "\u{FEFF}k", "\u{200B}m", "x",
        ]
        for text in samples {
            #expect(
                text.trimmed() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
            #expect(text.trimmedSpaces() == text.trimmingCharacters(in: .whitespaces), "\(Array(text.unicodeScalars))")
        }
        for scalar in Self.scalars where scalar.value < 0x10000 {
            let text = String(scalar) + "a" + String(scalar)
            #expect(text.trimmed() == text.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(text.trimmedSpaces() == text.trimmingCharacters(in: .whitespaces))
        }
    }

    @Test func replacingEveryReplacesBytesLeftToRight() {
        #expect("a\r\nb\r\n".replacingEvery("\r\n", with: "\n") == "a\nb\n")
        #expect("aaaa".replacingEvery("aa", with: "b") == "bb")
        #expect("it's".replacingEvery("'", with: "'\\''") == "it'\\''s")
        // A quote with a combining mark is one Character, but still a quote to a shell.
        #expect("x'\u{301}y".replacingEvery("'", with: "Q") == "xQ\u{301}y")
        #expect("".replacingEvery("a", with: "b") == "")
        #expect("abc".replacingEvery("", with: "b") == "abc")
        #expect("100%/".replacingEvery("%", with: "%25").replacingEvery("/", with: "%2F") == "100%25%2F")
    }
}
