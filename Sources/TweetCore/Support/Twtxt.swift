import FoundationEssentials
import TweetStore
import TweetSystem
import TwitterText

#if canImport(Glibc)
    import Glibc
#endif

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
        line(tweet, linking: [:])
    }

    /// A tweet's line with its mentions of users who publish a twtxt feed written as twtxt
    /// writes them, `@<nick url>`; `feeds` maps a lowercased username to its feed's address (the
    /// nick is the username, as that feed's own header gives it).
    public static func line(_ tweet: Tweet, linking feeds: [String: String]) -> String {
        var caption = tweet.caption
        if !feeds.isEmpty {
            // From the end, so that earlier ranges stay valid.
            for entity in TweetText.extractEntitiesWithIndices(caption).reversed() where entity.kind == .mention {
                guard let range = entity.stringRange(in: caption),
                    let url = feeds[entity.value.lowercased()]
                else { continue }
                caption.replaceSubrange(range, with: "@<\(entity.value.lowercased()) \(url)>")
            }
        }
        return time(tweet.timestamp) + "\t" + clean(caption) + "\n"
    }

    /// The usernames `tweets` mention, lowercased.
    public static func mentionedUsernames(_ tweets: [Tweet]) -> Set<String> {
        var names: Set<String> = []
        for tweet in tweets {
            for name in tweet.entities?.mentions ?? TweetText.entities(in: tweet.caption).mentions {
                names.insert(name.lowercased())
            }
        }
        return names
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

    /// RFC 3339 in UTC to the whole second (`2026-11-30T09:41:07Z`), as twtxt writes its times.
    private static func time(_ date: Date) -> String {
        let seconds = (date.timeIntervalSince1970.isFinite ? date.timeIntervalSince1970 : 0).rounded(.down)
        let stamp = Timestamp.string(from: Date(timeIntervalSince1970: seconds))  // …:07.000Z
        return String(stamp.dropLast(5)) + "Z"
    }
}

/// One post of a followed twtxt feed.
public struct TwtxtEntry: Codable, Equatable, Sendable {
    public var timestamp: Date
    /// The text, its U+2028 line breaks as newlines.
    public var text: String
    /// The feed's nick (its `# nick =`, else the one given when following), and its address.
    public var nick: String
    public var url: String
}

/// A twtxt feed as read: its entries, oldest or newest first as the file has them, and how many of
/// its lines could not be read (the twtxt client skips those too).
public struct TwtxtFeed: Equatable, Sendable {
    public var url: String
    /// The `# nick = …` metadata, if any.
    public var nick: String?
    public var entries: [TwtxtEntry]
    public var skipped: Int
}

extension Twtxt {
    /// The most characters of a feed's own nick that are kept.
    public static let maximumNickLength = 30

    /// A feed's `# nick =` as shown: on one line, without controls, at most ``maximumNickLength``
    /// characters and four times as many Unicode scalars (combining marks pile onto one character).
    static func nick(_ value: String) -> String {
        let line = String(clean(value).replacingEvery("\u{2028}", with: " ").prefix(maximumNickLength))
        return String(String.UnicodeScalarView(line.unicodeScalars.prefix(maximumNickLength * 4)))
    }

    /// The most bytes of a feed tweetcli reads, and of one entry's text.
    public static let maximumFeedBytes = 4 << 20
    public static let maximumEntryBytes = 16 << 10

    /// Reads a twtxt file. Lines that are not `RFC 3339 time<TAB>text` (after comments and
    /// blank lines), are not UTF-8, carry more than ``maximumEntryBytes`` or a time after the day
    /// after `now` are skipped and counted; a feed is never trusted to be well formed.
    public static func parse(_ bytes: [UInt8], url: String, nick fallback: String, now: Date = Date()) -> TwtxtFeed {
        // An entry from after tomorrow would stay on top of every feed: it is skipped as malformed.
        let latest = now.addingTimeInterval(86_400)
        var entries: [TwtxtEntry] = []
        var skipped = 0
        var nick: String?
        for raw in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            var line = raw
            if line.last == 0x0D { line = line.dropLast() }
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { continue }
            guard let text = String(validating: line, as: UTF8.self) else {
                skipped += 1
                continue
            }
            if text.hasPrefix("#") {
                guard line.count <= maximumEntryBytes else { continue }
                // `# nick = value` metadata; any other comment is ignored.
                let body = text.dropFirst().trimmedSpaces()
                if let equals = body.firstIndex(of: "="),
                    body[..<equals].trimmedSpaces().lowercased() == "nick"
                {
                    let value = body[body.index(after: equals)...].trimmedSpaces()
                    if !value.isEmpty { nick = Self.nick(value) }
                }
                continue
            }
            guard let tab = text.firstIndex(of: "\t"), let time = rfc3339(String(text[..<tab])),
                line.count <= maximumEntryBytes, time <= latest
            else {
                skipped += 1
                continue
            }
            let body = text[text.index(after: tab)...].trimmedSpaces()
            guard !body.isEmpty else {
                skipped += 1
                continue
            }
            entries.append(
                TwtxtEntry(
                    timestamp: time, text: body.replacingEvery("\u{2028}", with: "\n"), nick: "", url: url))
        }
        let name = nick ?? fallback
        for index in entries.indices { entries[index].nick = name }
        return TwtxtFeed(url: url, nick: nick, entries: entries, skipped: skipped)
    }

    /// An RFC 3339 time (`2026-12-01T18:00:00Z`, `…18:00:00.123+01:00`; `t`, `z` or a space
    /// for the separators too), or `nil`.
    public static func rfc3339(_ text: String) -> Date? {
        let bytes = Array(text.trimmedSpaces().utf8)
        func number(_ range: Range<Int>) -> Int? { Timestamp.decimal(bytes, range) }
        guard bytes.count >= 20, let year = number(0..<4), bytes[4] == 45, let month = number(5..<7), bytes[7] == 45,
            let day = number(8..<10), [84, 116, 32].contains(bytes[10]), let hour = number(11..<13), bytes[13] == 58,
            let minute = number(14..<16), bytes[16] == 58, let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case 90, 122:  // Z, z
            guard index + 1 == bytes.count else { return nil }
        case 43, 45:  // + or -
            guard index + 6 == bytes.count, let hours = number((index + 1)..<(index + 3)), bytes[index + 3] == 58,
                let minutes = number((index + 4)..<(index + 6)), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 43 ? 1 : -1)
        default:
            return nil
        }
        guard
            let seconds = Timestamp.secondsSince1970(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds - offset) + fraction)
    }
}
