import FoundationEssentials
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

extension String {
    /// The text in Unicode Normalization Form C, which twitter-text counts in.
    ///
    /// Most tweets are already in NFC, which a scan over the scalars can prove cheaply; only
    /// text with combining marks, Hangul jamo or characters NFC replaces is normalised.
    package var nfcNormalized: String {
        if unicodeScalars.allSatisfy(\.isStableUnderNFC) {
            return self
        }
        return UnicodeFolding.nfc(self)
    }
}

extension Unicode.Scalar {
    /// Whether NFC leaves this scalar as it is and never composes it with the one before it:
    /// a starter that is neither a non-spacing or spacing mark (but a variation selector), nor
    /// Hangul jamo, nor excluded from composition. Enclosing marks such as the keycap U+20E3 are
    /// starters that never compose. (Checked against Foundation's NFC for every code point when
    /// this was written: none of these scalars is changed by NFC or is the second of a
    /// composition.)
    fileprivate var isStableUnderNFC: Bool {
        // Below the combining diacritics, and the common CJK blocks (kana but its combining
        // sound marks, unified ideographs, precomposed Hangul syllables), need no lookup.
        // Neither do the emoji blocks (U+1F000–U+1FAFF), nor the variation selectors: marks,
        // but ones NFC never composes or reorders, and emoji are full of U+FE0F.
        switch value {
        case 0..<0x300, 0x3040...0x3098, 0x309B...0x30FF, 0x4E00...0x9FFF, 0xAC00...0xD7A3,
            0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x1F000...0x1FAFF:
            return true
        default:
            break
        }
        if (0x1100...0x11FF).contains(value) {
            return false
        }
        let properties = properties
        guard properties.canonicalCombiningClass == .notReordered, !properties.isFullCompositionExclusion else {
            return false
        }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark:
            return false
        default:
            return true
        }
    }
}
