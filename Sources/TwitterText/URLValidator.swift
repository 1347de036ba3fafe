import TweetStore

/// Checks that a whole string is a URL, as twitter-text's `isValidUrl` does: RFC 3986's
/// syntax (scheme, authority, path, query, fragment) with Cyrillic allowed in paths and, if
/// asked, any non-ASCII character in host labels.
struct URLValidator {
    /// Whether the text must start with `http://` or `https://`.
    var requiresProtocol: Bool
    /// Whether host labels may hold non-ASCII characters (`http://☃.net`).
    var allowsUnicodeDomains: Bool

    func isValid(_ url: String) -> Bool {
        let scalars = Array(url.unicodeScalars)
        guard !scalars.isEmpty else { return false }
        // RFC 3986 appendix B: [scheme "://"] authority path ["?" query] ["#" fragment].
        var index = 0
        var scheme: ArraySlice<Unicode.Scalar>?
        let schemeEnd = run(scalars, from: 0) { !":/?#".unicodeScalars.contains($0) }
        if schemeEnd > 0, scalars[schemeEnd...].starts(with: "://".unicodeScalars) {
            scheme = scalars[..<schemeEnd]
            index = schemeEnd + 3
        }
        let authorityEnd = run(scalars, from: index) { !"/?#".unicodeScalars.contains($0) }
        let authority = scalars[index..<authorityEnd]
        let pathEnd = run(scalars, from: authorityEnd) { $0 != "?" && $0 != "#" }
        let path = scalars[authorityEnd..<pathEnd]
        index = pathEnd
        var query: ArraySlice<Unicode.Scalar> = []
        if index < scalars.count, scalars[index] == "?" {
            let queryEnd = run(scalars, from: index + 1) { $0 != "#" }
            query = scalars[(index + 1)..<queryEnd]
            index = queryEnd
        }
        var fragment: ArraySlice<Unicode.Scalar> = []
        if index < scalars.count {
            fragment = scalars[(index + 1)...]
        }

        if requiresProtocol {
            guard let scheme, isHTTPScheme(scheme) else { return false }
        }
        return isValidPath(path) && isValidQueryOrFragment(query) && isValidQueryOrFragment(fragment)
            && isValidAuthority(authority)
    }

    // MARK: - Parts

    private func isHTTPScheme(_ scheme: ArraySlice<Unicode.Scalar>) -> Bool {
        let lowercased = String(String.UnicodeScalarView(scheme.map(\.asciiLowercased)))
        return lowercased == "http" || lowercased == "https"
    }

    /// `*( "/" *pchar )`.
    private func isValidPath(_ path: ArraySlice<Unicode.Scalar>) -> Bool {
        guard let first = path.first else { return true }
        return first == "/" && isRun(path) { isPathCharacter($0) || $0 == "/" }
    }

    /// `*( pchar / "/" / "?" )`.
    private func isValidQueryOrFragment(_ part: ArraySlice<Unicode.Scalar>) -> Bool {
        isRun(part) { isPathCharacter($0) || $0 == "/" || $0 == "?" }
    }

    /// `[ userinfo "@" ] host [ ":" port ]`, the host an IPv4 address, a bracketed IPv6 address
    /// or a domain name.
    private func isValidAuthority(_ authority: ArraySlice<Unicode.Scalar>) -> Bool {
        var host = authority
        if let at = authority.firstIndex(of: "@") {
            let userinfo = authority[..<at]
            guard isRun(userinfo, where: { isUnreserved($0) || isSubDelimiter($0) || $0 == ":" }) else {
                return false
            }
            host = authority[(at + 1)...]
        }
        if let colon = host.lastIndex(of: ":"), host.first != "[" || host[..<colon].last == "]" {
            let port = host[(colon + 1)...]
            guard (1...5).contains(port.count), port.allSatisfy(\.isASCIIDigit) else { return false }
            host = host[..<colon]
        }
        return isIPv4Address(host) || isIPv6Address(host) || isDomainName(host)
    }

    private func isIPv4Address(_ host: ArraySlice<Unicode.Scalar>) -> Bool {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { octet in
                guard (1...3).contains(octet.count), octet.allSatisfy(\.isASCIIDigit),
                    octet.count == 1 || octet.first != "0"
                else { return false }
                return octet.reduce(0) { $0 * 10 + Int($1.value - 0x30) } <= 255
            }
    }

    /// Brackets around hex digits, colons and dots (no finer check, as in twitter-text).
    private func isIPv6Address(_ host: ArraySlice<Unicode.Scalar>) -> Bool {
        guard host.count > 2, host.first == "[", host.last == "]" else { return false }
        return host.dropFirst().dropLast().allSatisfy { $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." }
    }

    /// Labels separated by dots: subdomains may hold inner `_` and `-`, the domain inner `-`,
    /// the top-level domain starts with a letter; all start and end with a letter or digit.
    private func isDomainName(_ host: ArraySlice<Unicode.Scalar>) -> Bool {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let topLevel = labels.last else { return false }
        for (offset, label) in labels.dropLast().enumerated() {
            let isDomain = offset == labels.count - 2
            guard isValidLabel(label, allowingUnderscores: !isDomain) else { return false }
        }
        guard let first = topLevel.first, first.isASCIILetter || (allowsUnicodeDomains && !first.isASCII) else {
            return false
        }
        return isValidLabel(topLevel, allowingUnderscores: false)
    }

    private func isValidLabel(_ label: ArraySlice<Unicode.Scalar>, allowingUnderscores: Bool) -> Bool {
        guard let first = label.first, let last = label.last, isLabelEdge(first), isLabelEdge(last) else {
            return false
        }
        return label.allSatisfy { isLabelEdge($0) || $0 == "-" || (allowingUnderscores && $0 == "_") }
    }

    private func isLabelEdge(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCIIAlphanumeric || (allowsUnicodeDomains && !scalar.isASCII)
    }

    // MARK: - Character classes

    /// RFC 3986 `pchar` (with Cyrillic letters and `|`, as twitter-text allows): unreserved,
    /// percent-encoded, sub-delimiters, `:` and `@`. Percent signs are checked by `isRun`.
    private func isPathCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isUnreserved(scalar) || isSubDelimiter(scalar) || scalar == ":" || scalar == "@" || scalar == "|"
    }

    private func isUnreserved(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCIIAlphanumeric || scalar.isCyrillic || "-._~".unicodeScalars.contains(scalar)
    }

    private func isSubDelimiter(_ scalar: Unicode.Scalar) -> Bool {
        "!$&'()*+,;=".unicodeScalars.contains(scalar)
    }

    /// Whether every scalar satisfies `predicate`, except that `%` must start a percent-encoded
    /// byte (`%` and two hex digits).
    private func isRun(_ part: ArraySlice<Unicode.Scalar>, where predicate: (Unicode.Scalar) -> Bool) -> Bool {
        var index = part.startIndex
        while index < part.endIndex {
            if part[index] == "%" {
                guard index + 2 < part.endIndex, part[index + 1].properties.isASCIIHexDigit,
                    part[index + 2].properties.isASCIIHexDigit
                else { return false }
                index += 3
            } else if predicate(part[index]) {
                index += 1
            } else {
                return false
            }
        }
        return true
    }

    private func run(
        _ scalars: [Unicode.Scalar], from start: Int, where predicate: (Unicode.Scalar) -> Bool
    ) -> Int {
        var end = start
        while end < scalars.count, predicate(scalars[end]) {
            end += 1
        }
        return end
    }
}
