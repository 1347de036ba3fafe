import FoundationEssentials
import TweetStore

/// The DNS limits a URL's host must respect (RFC 1035, with IDNA per RFC 3490), which decide
/// whether twitter-text counts a match as a URL.
enum HostName {
    /// The longest DNS label, in ASCII characters.
    static let maximumLabelLength = 63

    /// The host's length once every label is ASCII, punycode-encoding non-ASCII labels with
    /// their `xn--` prefix.
    /// - Parameter host: The host's scalars.
    /// - Returns: The length, or `nil` if a label is empty, longer than 63 characters once
    ///   encoded, or non-ASCII yet already starting with the `xn--` prefix.
    static func asciiLength(of host: ArraySlice<Unicode.Scalar>) -> Int? {
        var length = 0
        var labelStart = host.startIndex
        for index in host.indices where isLabelSeparator(host[index]) {
            guard let labelLength = asciiLength(ofLabel: host[labelStart..<index]) else { return nil }
            length += labelLength + 1
            labelStart = index + 1
        }
        guard let lastLength = asciiLength(ofLabel: host[labelStart...]) else { return nil }
        return length + lastLength
    }

    /// IDNA's label separators: the full stop and its ideographic, full-width and half-width
    /// forms.
    private static func isLabelSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2E, 0x3002, 0xFF0E, 0xFF61:
            return true
        default:
            return false
        }
    }

    private static func asciiLength(ofLabel label: ArraySlice<Unicode.Scalar>) -> Int? {
        let length: Int
        if label.allSatisfy(\.isASCII) {
            length = label.count
        } else {
            guard !hasACEPrefix(label) else { return nil }
            // Nameprep, approximately: case-fold, map the full-width and half-width forms (the
            // compatibility mappings a host name meets) and compose before encoding.
            var view = String.UnicodeScalarView()
            view.append(contentsOf: label.map(UnicodeFolding.narrow))
            let mapped = Array(UnicodeFolding.nfc(String(view).lowercased()).unicodeScalars)
            if mapped.allSatisfy(\.isASCII) {
                length = mapped.count
            } else {
                guard let encoded = Punycode.encode(mapped) else { return nil }
                length = 4 + encoded.utf8.count
            }
        }
        return (1...maximumLabelLength).contains(length) ? length : nil
    }

    private static func hasACEPrefix(_ label: ArraySlice<Unicode.Scalar>) -> Bool {
        let prefix: [Unicode.Scalar] = ["x", "n", "-", "-"]
        return label.count >= 4 && zip(label, prefix).allSatisfy { $0.asciiLowercased == $1 }
    }
}
