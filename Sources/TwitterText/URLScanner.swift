import TweetStore

/// Finds URLs the way twitter-text's extractor does, with or without a protocol.
///
/// A URL starts at the beginning of the text or after a character that is not an ASCII letter
/// or digit, `@`, `$` or `#` (or their full-width forms); it has an optional `http://` or
/// `https://`, a host ending in a known top-level domain (or, after a protocol, one label of any
/// script before it), an optional port, path and query. Trailing punctuation is left out, paths
/// may hold balanced parentheses, and t.co links lose anything after their slug and query.
struct URLScanner {
    /// The longest URL Twitter accepts, counting an added `https://` when none is written.
    static let maximumURLLength = 4096
    /// The longest t.co slug.
    static let maximumTcoSlugLength = 40

    private let text: TextBuffer

    /// A candidate the pattern matched, before the checks that may still reject it.
    private struct Candidate {
        var range: Range<Int>
        var host: Range<Int>
        var hasProtocol: Bool
    }

    /// The URLs in `text`, in order.
    static func scan(_ text: TextBuffer) -> [ScannedEntity] {
        URLScanner(text: text).scan()
    }

    private init(text: TextBuffer) {
        self.text = text
    }

    private func scan() -> [ScannedEntity] {
        // Every URL has a dot before its top-level domain.
        guard text.contains(".") else { return [] }
        var urls: [ScannedEntity] = []
        var position = 0
        while position < text.count {
            // The character at `position` precedes the URL; only at the very start may a URL
            // begin without one.
            var candidate: Candidate?
            var preceding: Unicode.Scalar?
            if let scalar = text[position], Self.canPrecedeURL(scalar) {
                candidate = match(at: position + 1)
                preceding = scalar
            }
            if candidate == nil, position == 0 {
                candidate = match(at: 0)
                preceding = nil
            }
            guard let candidate else {
                position += 1
                continue
            }
            if let url = accept(candidate, after: preceding) {
                urls.append(url)
            }
            position = candidate.range.upperBound
        }
        return urls
    }

    /// The checks twitter-text applies after the pattern matched.
    private func accept(_ candidate: Candidate, after preceding: Unicode.Scalar?) -> ScannedEntity? {
        var range = candidate.range
        if !candidate.hasProtocol, let preceding, "-_./".unicodeScalars.contains(preceding) {
            // `-twitter.com` in `http://-twitter.com`, `foo.com` in `#test.foo.com` ...
            return nil
        }
        if candidate.hasProtocol, let tco = tcoURL(in: range) {
            guard tco.slugLength <= Self.maximumTcoSlugLength else { return nil }
            range = range.lowerBound..<tco.end
        }
        guard let hostLength = HostName.asciiLength(of: text.scalars[candidate.host]) else { return nil }
        let urlLength = text.utf16Range(range).count - text.utf16Range(candidate.host).count + hostLength
        let protocolLength = candidate.hasProtocol ? 0 : "https://".count
        guard urlLength + protocolLength <= Self.maximumURLLength else { return nil }
        return ScannedEntity(kind: .url, range: range, valueRange: range)
    }

    // MARK: - The pattern

    /// The URL starting at `start`, if one does.
    private func match(at start: Int) -> Candidate? {
        // Both the protocol and a host without one start with a letter or digit.
        guard let first = text[start], Self.isHostCharacter(first) else { return nil }
        var index = start
        var hasProtocol = false
        if text.hasPrefix("http://", at: index) {
            index += 7
            hasProtocol = true
        } else if text.hasPrefix("https://", at: index) {
            index += 8
            hasProtocol = true
        }
        guard let hostEnd = hostEnd(at: index, hasProtocol: hasProtocol) else { return nil }
        var end = hostEnd
        if text[end] == ":", let digit = text[end + 1], digit.isASCIIDigit {
            end = text.runEnd(from: end + 1) { $0.isASCIIDigit }
        }
        if text[end] == "/" {
            end = pathEnd(from: end + 1)
        }
        if text[end] == "?", let queryEnd = queryEnd(from: end + 1) {
            end = queryEnd
        }
        return Candidate(range: start..<end, host: index..<hostEnd, hasProtocol: hasProtocol)
    }

    /// The end of the host starting at `start`.
    ///
    /// Labels of letters, digits and accented Latin letters (with inner hyphens, and inner
    /// underscores except in the last label) followed by a known top-level domain or punycode;
    /// after a protocol, also a single label of any script followed by a known top-level domain.
    /// Where several splits work, the one with the most labels wins.
    private func hostEnd(at start: Int, hasProtocol: Bool) -> Int? {
        var labelStarts: [Int] = []
        var index = start
        while let label = labelEnd(from: index, allowingUnderscores: true), text[label] == "." {
            labelStarts.append(index)
            index = label + 1
        }
        for (offset, labelStart) in labelStarts.enumerated().reversed() {
            let domainStart = offset + 1 < labelStarts.count ? labelStarts[offset + 1] : index
            guard labelEnd(from: labelStart, allowingUnderscores: false) == domainStart - 1 else { continue }
            if let end = TopLevelDomains.match(in: text, at: domainStart, allowingPunycode: true) {
                return end
            }
        }
        if hasProtocol {
            let labelEnd = text.runEnd(from: start) { Self.isUnicodeHostCharacter($0) || $0 == "-" }
            if labelEnd > start, text[labelEnd] == ".",
                let first = text[start], Self.isUnicodeHostCharacter(first),
                let last = text[labelEnd - 1], Self.isUnicodeHostCharacter(last)
            {
                return TopLevelDomains.match(in: text, at: labelEnd + 1, allowingPunycode: false)
            }
        }
        return nil
    }

    /// The end of the label starting at `start` if it is a valid ASCII (or accented Latin)
    /// label: letters and digits at both ends, hyphens (and, if allowed, underscores) inside.
    private func labelEnd(from start: Int, allowingUnderscores: Bool) -> Int? {
        let end = text.runEnd(from: start) {
            Self.isHostCharacter($0) || $0 == "-" || (allowingUnderscores && $0 == "_")
        }
        guard end > start, let first = text[start], Self.isHostCharacter(first),
            let last = text[end - 1], Self.isHostCharacter(last)
        else { return nil }
        return end
    }

    /// The end of a path whose first `/` is just before `start`: path characters and balanced
    /// parentheses, up to the last one that may end a path (so `/foo.` leaves out the period).
    private func pathEnd(from start: Int) -> Int {
        var index = start
        var end = start
        while let scalar = text[index] {
            if Self.isPathCharacter(scalar) {
                index += 1
                if Self.isPathEndingCharacter(scalar) {
                    end = index
                }
            } else if scalar == "(", let parenthesesEnd = balancedParenthesesEnd(at: index) {
                index = parenthesesEnd
                end = index
            } else {
                break
            }
        }
        return end
    }

    /// The end of `(…)` or `(…(…)…)` starting at `start`, holding path characters.
    private func balancedParenthesesEnd(at start: Int) -> Int? {
        let innerEnd = text.runEnd(from: start + 1, where: Self.isPathCharacter)
        if innerEnd > start + 1, text[innerEnd] == ")" {
            return innerEnd + 1
        }
        guard text[innerEnd] == "(" else { return nil }
        let nestedEnd = text.runEnd(from: innerEnd + 1, where: Self.isPathCharacter)
        guard nestedEnd > innerEnd + 1, text[nestedEnd] == ")" else { return nil }
        let outerEnd = text.runEnd(from: nestedEnd + 1, where: Self.isPathCharacter)
        guard text[outerEnd] == ")" else { return nil }
        return outerEnd + 1
    }

    /// The end of a query whose `?` is just before `start`, up to its last character that may
    /// end a query; `nil` if there is none.
    private func queryEnd(from start: Int) -> Int? {
        var end: Int?
        var index = start
        while let scalar = text[index], Self.isQueryCharacter(scalar) {
            index += 1
            if Self.isQueryEndingCharacter(scalar) {
                end = index
            }
        }
        return end
    }

    /// For `http(s)://t.co/slug?query…`, the end of the slug and query (anything after them is
    /// dropped) and the slug's length.
    private func tcoURL(in range: Range<Int>) -> (end: Int, slugLength: Int)? {
        var index = range.lowerBound
        if text.hasPrefix("http://t.co/", at: index) {
            index += 12
        } else if text.hasPrefix("https://t.co/", at: index) {
            index += 13
        } else {
            return nil
        }
        let slugEnd = text.runEnd(from: index) { $0.isASCIIAlphanumeric }
        guard slugEnd > index, slugEnd <= range.upperBound else { return nil }
        var end = slugEnd
        if text[end] == "?", let queryEnd = queryEnd(from: end + 1) {
            end = queryEnd
        }
        return (min(end, range.upperBound), slugEnd - index)
    }

    // MARK: - Character classes

    /// Any character but an ASCII letter or digit, `@`, `$`, `#` (or their full-width forms) and
    /// the invalid characters.
    private static func canPrecedeURL(_ scalar: Unicode.Scalar) -> Bool {
        !(scalar.isASCIIAlphanumeric || scalar.isAtSign || scalar.isHashSign || scalar == "$"
            || scalar.isInvalidInTweet)
    }

    /// Letters and digits of a host without a protocol: ASCII and accented Latin.
    private static func isHostCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCIIAlphanumeric || scalar.isLatinAccent
    }

    /// Characters of a host label after a protocol: anything but ASCII punctuation, spaces and
    /// the General Punctuation block.
    private static func isUnicodeHostCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return scalar.isASCIIAlphanumeric
        }
        if (0x2000...0x206F).contains(scalar.value) || scalar.isTweetWhitespace {
            return false
        }
        switch scalar.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator:
            return false
        default:
            return true
        }
    }

    /// Letters, digits, accented Latin, Cyrillic, the en dash and ``!*';:=+,.$/%#[]-_~|&@``.
    private static func isPathCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:
            return true
        case 0x21, 0x23...0x27, 0x2A...0x2F, 0x3A, 0x3B, 0x3D, 0x40, 0x5B, 0x5D, 0x5F, 0x7C, 0x7E:
            // ! # $ % & ' * + , - . / : ; = @ [ ] _ | ~
            return true
        case 0x2013:
            return true
        default:
            return scalar.value >= 0xC0 && (scalar.isLatinAccent || scalar.isCyrillic)
        }
    }

    /// The path characters that may end a path: letters, digits, accented Latin, Cyrillic and
    /// `=_#/-+`.
    private static func isPathEndingCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:
            return true
        case 0x23, 0x2B, 0x2D, 0x2F, 0x3D, 0x5F:
            // # + - / = _
            return true
        default:
            return scalar.value >= 0xC0 && (scalar.isLatinAccent || scalar.isCyrillic)
        }
    }

    /// ASCII letters, digits and ``!?*'();:&=+$/%#[]-_.,~|@``.
    private static func isQueryCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:
            return true
        case 0x21, 0x23...0x2F, 0x3A, 0x3B, 0x3D, 0x3F, 0x40, 0x5B, 0x5D, 0x5F, 0x7C, 0x7E:
            // ! # $ % & ' ( ) * + , - . / : ; = ? @ [ ] _ | ~
            return true
        default:
            return false
        }
    }

    /// The query characters that may end a query: ASCII letters, digits and `-_&=#/`.
    private static func isQueryEndingCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:
            return true
        case 0x23, 0x26, 0x2D, 0x2F, 0x3D, 0x5F:
            // # & - / = _
            return true
        default:
            return false
        }
    }
}
