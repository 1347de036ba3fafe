import Foundation

/// The twtxt format (twtxt.readthedocs.io, version 1): a plain-text feed of one account, a line
/// per post, `RFC 3339 timestamp<TAB>text`, oldest first, with `# key = value` comment lines for
/// metadata.
public enum Twtxt {
    /// The metadata lines: the account's nick, and where the file is published when known.
    public static func header(nick: String, url: String?) -> String {
        let nick = clean(nick)
        var lines = ["# twtxt feed of @\(nick), exported by tweetcli", "#", "# nick = \(nick)"]
        if let url { lines.append("# url = \(clean(url))") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A tweet's line: its time in UTC to the second, a tab, its caption on one line (line breaks
    /// become U+2028, which twtxt uses for them).
    public static func line(_ tweet: Tweet) -> String {
        time.string(from: tweet.timestamp) + "\t" + clean(tweet.caption) + "\n"
    }

    /// Text that cannot break the format or reach a terminal as a control: line breaks become
    /// U+2028, tabs spaces, and every other control character (C0, DEL, C1) U+FFFD. A store is not
    /// trusted to hold only what the composer allows.
    static func clean(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            switch scalar.value {
            case 0x0A where previous == "\r": continue  // CRLF is one break
            case 0x0A, 0x0D, 0x85, 0x2029: scalars.append("\u{2028}")
            case 0x09: scalars.append(" ")
            case 0x00...0x1F, 0x7F...0x9F: scalars.append("\u{FFFD}")
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    private static let time: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
        return formatter
    }()
}
