import TweetStore

// Character classes shared by twitter-text's extraction rules.

extension Unicode.Scalar {
    /// The scalar with ASCII `A`–`Z` lowercased; any other scalar unchanged.
    var asciiLowercased: Unicode.Scalar {
        (0x41...0x5A).contains(value) ? Unicode.Scalar(UInt8(value) + 0x20) : self
    }

    /// `A`–`Z` or `a`–`z`.
    var isASCIILetter: Bool {
        (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
    }

    /// `0`–`9`.
    var isASCIIDigit: Bool { (0x30...0x39).contains(value) }

    /// An ASCII letter or digit.
    var isASCIIAlphanumeric: Bool { isASCIILetter || isASCIIDigit }

    /// One of ``!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~``.
    var isASCIIPunctuation: Bool {
        (0x21...0x2F).contains(value) || (0x3A...0x40).contains(value)
            || (0x5B...0x60).contains(value) || (0x7B...0x7E).contains(value)
    }

    /// twitter-text's spaces: ASCII whitespace, NEL, no-break and ideographic spaces and the
    /// other Unicode space separators.
    var isTweetWhitespace: Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x180E, 0x2000...0x200A, 0x2028, 0x2029,
            0x202F, 0x205F, 0x3000:
            return true
        default:
            return false
        }
    }

    /// A bidirectional formatting character (ALM, LRM, RLM, LRE…RLO, LRI…PDI), which RTL text
    /// carries around entities and which may precede a URL, cashtag or reply.
    var isDirectionalMarker: Bool {
        switch value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            return true
        default:
            return false
        }
    }

    /// A character a tweet may not contain: U+FFFE, U+FEFF (byte order marks), U+FFFF.
    var isInvalidInTweet: Bool {
        value == 0xFFFE || value == 0xFEFF || value == 0xFFFF
    }

    /// `@` or the full-width `＠`.
    var isAtSign: Bool { value == 0x40 || value == 0xFF20 }

    /// `#` or the full-width `＃`.
    var isHashSign: Bool { value == 0x23 || value == 0xFF03 }

    /// Accented Latin letters and combining diacritics, which URLs and hostnames may contain
    /// and which may not directly follow a mention.
    var isLatinAccent: Bool {
        switch value {
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0xFF, 0x100...0x24F, 0x253, 0x254, 0x256, 0x257,
            0x259, 0x25B, 0x263, 0x268, 0x26F, 0x272, 0x289, 0x28B, 0x2BB, 0x300...0x36F,
            0x1E00...0x1EFF:
            return true
        default:
            return false
        }
    }

    /// The Cyrillic block, which URL paths may contain.
    var isCyrillic: Bool { (0x400...0x4FF).contains(value) }

    /// A letter or a mark in any script: a hashtag needs at least one.
    var isHashtagLetter: Bool {
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// A character a hashtag may contain: a letter, a mark, a decimal digit, or one of the
    /// joiners and punctuation that scripts use inside words (`_`, ZWNJ, ZWJ, Hebrew maqaf and
    /// geresh, wave dash, katakana middle dot, ditto mark, Tibetan tsheg, middle dot, ...).
    var isHashtagCharacter: Bool {
        if value < 0x80 {
            return isASCIIAlphanumeric || value == 0x5F
        }
        switch value {
        case 0x200C, 0x200D, 0xA67E, 0x05BE, 0x05F3, 0x05F4, 0xFF5E, 0x301C, 0x309B, 0x309C,
            0x30A0, 0x30FB, 0x3003, 0x0F0B, 0x0F0C, 0x00B7:
            return true
        default:
            return isHashtagLetter || properties.generalCategory == .decimalNumber
        }
    }

    /// A character a screen name may contain: ASCII letters, digits and `_`.
    var isScreenNameCharacter: Bool { isASCIIAlphanumeric || value == 0x5F }
}
