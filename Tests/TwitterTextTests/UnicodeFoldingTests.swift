import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetSystem
@testable import TwitterText

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

    /// Bases of every script tweets are written in, each followed by every mark of the BMP (and
    /// the joiners and half-width sound marks), as Foundation folds the pair.
    @Test func searchFoldIsFoundationsForEveryBaseAndMark() {
        let bases: [UInt32] = [
            0x61, 0x41, 0xE9, 0xF1, 0x1E9A, 0x1EFC, 0x1EFD, 0xFF47, 0xFF2B, 0x3B1, 0x3A9, 0x3AC, 0x434, 0x414, 0x439,
            0x501, 0x531, 0x561, 0x5D0, 0x628, 0x622, 0x915, 0x958, 0x995, 0xE01, 0xE81, 0x10D0, 0x1C90, 0xAC00, 0x1100,
            0x30AB, 0xFF76, 0x3042, 0x4E2D, 0x2260, 0x2241, 0x2190, 0x1FBF, 0x31, 0xFF11, 0x2126, 0x212A, 0x2C62,
            0x1F600, 0x20,
        ]
        var marks: [Unicode.Scalar] = Self.scalars.filter {
            $0.value < 0x10000
                && [.nonspacingMark, .enclosingMark, .spacingMark].contains($0.properties.generalCategory)
        }
        marks += ["\u{200C}", "\u{200D}", "\u{FF9E}", "\u{FF9F}", "\u{FE0F}", "\u{1F3FB}"]
        var differences: [String] = []
        for base in bases.compactMap(Unicode.Scalar.init) {
            for mark in marks {
                let pair = String(base) + String(mark)
                if UnicodeFolding.searchFold(pair) != foundationFold(pair) {
                    differences.append("\(String(base.value, radix: 16))+\(String(mark.value, radix: 16))")
                }
            }
        }
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(60))")
    }

    /// Words as tweets write them, in a seeded random mix: letters of many scripts, precomposed or
    /// followed by a diacritic or two, kana and full-width letters.
    @Test func searchFoldIsFoundationsForMixedWords() {
        let letters: [[UInt32]] = [
            Array(0x41...0x5A), Array(0x61...0x7A), Array(0xC0...0x24F), Array(0x386...0x3CE), Array(0x400...0x52F),
            Array(0x531...0x587), Array(0x5D0...0x5EA), Array(0x620...0x64A), Array(0x904...0x939),
            Array(0xE01...0xE30),
            Array(0x1E00...0x1EFF), Array(0x1F00...0x1FFC), Array(0xFF21...0xFF5A), Array(0xFF66...0xFF9F),
            Array(0x3041...0x30FF), Array(0xAC00...0xAC40), [0xDF, 0x1E9E, 0x130, 0x131, 0x3A3, 0x3C2],
        ]
        // The combining diacritics (each script's own marks after each base are checked above).
        let marks = (0x300...0x36F).compactMap(Unicode.Scalar.init) + (0x483...0x489).compactMap(Unicode.Scalar.init)
        let diacritical: Set<Int> = [0, 1, 2, 3, 4, 10, 11, 12, 16]
        var generator = SplitMix64(seed: 42)
        var checked = 0
        for _ in 0..<20_000 {
            var view = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let block = Int.random(in: 0..<letters.count, using: &generator)
                guard let letter = Unicode.Scalar(letters[block].randomElement(using: &generator)!) else { continue }
                view.append(letter)
                // Diacritics after the scripts that have them (Latin, Greek, Cyrillic), but not after
                // the few capitals whose lowercase lies past them (Ⱦ, ⱦ): Foundation keeps marks there
                // in an order of its own (one mark after them is checked above).
                let folds = String(letter).lowercased().unicodeScalars.first!.value < 0x510
                for _
                    in 0..<(diacritical.contains(block) && folds ? [0, 0, 1, 2].randomElement(using: &generator)! : 0)
                {
                    view.append(marks.randomElement(using: &generator)!)
                }
            }
            let word = String(view)
            let (ours, theirs) = (UnicodeFolding.searchFold(word), foundationFold(word))
            #expect(ours == theirs, "\(word.unicodeScalars.map { String($0.value, radix: 16) })")
            if ours != theirs { break }
            checked += 1
        }
        #expect(checked == 20_000)
        #expect(UnicodeFolding.searchFold("Straße ÉCOLE ＡＢＣ") == "strasse ecole abc")
        #expect(UnicodeFolding.searchFold("E\u{301}cole") == "ecole")
        #expect(UnicodeFolding.searchFold("नमस्ते") == "नमस्ते")
        #expect(UnicodeFolding.searchFold("ｶﾞ") == "\u{30AB}\u{FF9E}")
        // A prepended sign makes one character with the letter after it.
        for word in ["\u{0D4E}A", "\u{111C2}Ａ", "\u{0600}É", "\u{0D4E}ｶ", "a\u{200D}B", "\u{1F1FA}\u{1F1F8}"] {
            #expect(UnicodeFolding.searchFold(word) == foundationFold(word), "\(word.unicodeScalars.map(\.value))")
        }
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
            // A substring (a config line's part) trims as its string does.
            let padded = "[" + text + "]"
            let inner = padded.dropFirst().dropLast()
            #expect(inner.trimmed() == text.trimmed() && inner.trimmedSpaces() == text.trimmedSpaces())
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

/// An error as the one sentence tweetcli prints: the system's words for a file operation's cause.
struct ErrorSentenceTests {
    @Test func aFileErrorSaysItsCause() throws {
        let failure: any Error
        do {
            try Data("x".utf8).write(to: URL(fileURLWithPath: "/proc/no-such-dir/file"), options: .atomic)
            Issue.record("a write under /proc succeeded")
            return
        } catch {
            failure = error
        }
        #expect(failure.sentence == "No such file or directory", "\(failure.sentence)")
        #expect(POSIXError(.EACCES).sentence == "Permission denied")
        #expect(TweetError.emptyCaption.sentence == TweetError.emptyCaption.errorDescription)
    }
}
