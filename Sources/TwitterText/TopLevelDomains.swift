import TweetStore

/// The top-level domains a URL written without a protocol must end in, and how to find one in
/// a text. The lists themselves are generated into `TopLevelDomains+Lists.swift`.
enum TopLevelDomains {
    /// Every domain (generic and country code) as lowercase scalars, bucketed by its first two
    /// scalars and longest first, so a lookup compares only a handful of candidates.
    private static let candidatesByPrefix: [UInt64: [[Unicode.Scalar]]] = {
        var buckets: [UInt64: [[Unicode.Scalar]]] = [:]
        for domain in generic + country {
            let scalars = Array(domain.unicodeScalars)
            guard scalars.count >= 2 else { continue }
            buckets[key(scalars[0], scalars[1]), default: []].append(scalars)
        }
        return buckets.mapValues { candidates in
            candidates.sorted { $0.count > $1.count }
        }
    }()

    private static func key(_ first: Unicode.Scalar, _ second: Unicode.Scalar) -> UInt64 {
        UInt64(first.asciiLowercased.value) << 32 | UInt64(second.asciiLowercased.value)
    }

    /// The end of the top-level domain that starts at `start`, if one does.
    ///
    /// A domain from the lists matches (ASCII case ignored) when the next character is not an
    /// ASCII letter or digit, `@`, `+` or `-`, so `com` matches in `example.com/` and
    /// `example.comだよ` but not in `example.comm` or `domain.com-that`. A punycode label
    /// (`xn--…`) matches as a whole when `allowingPunycode`.
    /// - Parameters:
    ///   - text: The text.
    ///   - start: Where the domain would start (just after a dot).
    ///   - allowingPunycode: Whether an `xn--` label counts as a top-level domain.
    /// - Returns: The end of the domain, or `nil` if none starts at `start`.
    static func match(in text: TextBuffer, at start: Int, allowingPunycode: Bool) -> Int? {
        if let first = text[start], let second = text[start + 1],
            let candidates = candidatesByPrefix[key(first, second)]
        {
            for candidate in candidates where matches(candidate, in: text, at: start) {
                let end = start + candidate.count
                if isBoundary(text[end]) {
                    return end
                }
            }
        }
        if allowingPunycode, text.hasPrefix("xn--", at: start) {
            let end = text.runEnd(from: start + 4) { $0.isASCIIAlphanumeric || $0 == "-" }
            if end > start + 4 {
                return end
            }
        }
        return nil
    }

    private static func matches(_ candidate: [Unicode.Scalar], in text: TextBuffer, at start: Int) -> Bool {
        guard start + candidate.count <= text.count else { return false }
        for index in 2..<candidate.count
        where text.scalars[start + index].asciiLowercased != candidate[index] {
            return false
        }
        return true
    }

    /// Whether a top-level domain may end before `next` (`nil` meaning the end of the text).
    private static func isBoundary(_ next: Unicode.Scalar?) -> Bool {
        guard let next else { return true }
        return !(next.isASCIIAlphanumeric || next == "@" || next == "+" || next == "-")
    }
}
