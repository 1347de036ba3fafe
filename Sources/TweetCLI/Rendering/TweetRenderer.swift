import FoundationEssentials
import TweetCore
import TweetImages
import TweetStore
import TwitterText

/// A tweet row (the course's `TweetRowView`): author, time, the caption, likes and the ID.
struct TweetRenderer {
    let now: Date
    var time = RelativeTime(locale: nil)
    /// Whether mentions, hashtags and links are coloured (only when colour is on: finding them costs).
    var highlights = false
    /// The short form each ID is shown by (``TweetService/shortIDs(_:)``); an ID not here is shown whole.
    var shortIDs: [String: String] = [:]
    /// Each thumbnail's mosaic, by ``mosaicKey(_:photos:)``; a photo without one is shown as a line
    /// of text.
    var mosaics: [String: [String]] = [:]
    /// Each author's picture as the two lines of a small mosaic, by uid, where pictures are drawn:
    /// beside the author's line and the next, as the course's row has it beside the tweet.
    var avatars: [String: [String]] = [:]
    /// Whether a tweet's photos are drawn side by side (a listing), or one under another (`show`,
    /// where each is as large as the window allows, and the Media tab, which draws one).
    var sideBySide = true

    /// The key of a thumbnail's mosaic drawn for a tweet of `photos` photos: side by side, each
    /// is narrower the more there are.
    static func mosaicKey(_ address: String, photos: Int) -> String { "\(min(photos, 4)):\(address)" }

    /// The key of thumbnails drawn side by side as one picture in pixels (a protocol draws one
    /// picture at a time, each under the last).
    static func rowKey(_ addresses: [String]) -> String { "row:" + addresses.joined(separator: ",") }

    /// How a row shows tweet `id`.
    func shortID(_ id: String) -> String { shortIDs[id] ?? id }

    /// The row, built a run at a time into one text sized for it: each `a + b` had made a text of
    /// its own and grown the row's runs by copying them.
    func render(_ tweet: Tweet) -> TerminalText {
        var text = TerminalText()
        text.reserve(runs: 32)
        if let retweeter = tweet.retweetedBy {
            let when = tweet.retweetedAt.map { " · " + time.string(for: $0, now: now) } ?? ""
            text.append("↻ ", .dim)
            text.append(untrusted: retweeter.fullname, .dim)
            text.append(untrusted: " retweeted" + when, .dim)
            text.append("\n")
        }
        let avatar = avatars[tweet.uid] ?? []
        if let first = avatar.first {
            text.append(graphics: first)
            text.append(" ")
        }
        appendAuthor(tweet, to: &text)
        text.append(" ")
        text.append(untrusted: "· " + time.string(for: tweet.timestamp, now: now), .dim)
        text.append("\n")
        if avatar.count > 1 {
            text.append(graphics: avatar[1])
            text.append(" ")
        }
        if let parent = tweet.replyTo {
            if let username = parent.username {
                text.append("↳ replying to ", .dim)
                text.append(untrusted: "@" + username, .accent)
            } else {
                text.append("↳ replying to a tweet that was deleted", .dim)
            }
            text.append("\n")
        } else if let parent = tweet.replyToId {
            text.append(untrusted: "↳ replying to " + parent, .dim)
            text.append("\n")
        }
        appendCaption(tweet, to: &text)
        text.append("\n")
        appendPhotos(tweet.images ?? [], to: &text)
        if let quoted = tweet.quoted { appendQuote(quoted, to: &text) }
        let liked = tweet.didLike == true
        text.append(untrusted: (liked ? "♥ " : "♡ ") + String(tweet.likes), liked ? .like : .plain)
        text.append("  ")
        text.append(untrusted: "↻ \(tweet.retweets)", tweet.didRetweet == true ? .accent : .plain)
        text.append("  ↩ ")
        text.append(tweet.replyCount)
        if tweet.quotes > 0 {
            text.append("  ❝ ")
            text.append(tweet.quotes)
        }
        text.append("  ")
        text.append(untrusted: "id " + shortID(tweet.id), .dim)
        text.append("\n")
        return text
    }

    /// A tweet's photos: their mosaics, where drawn (side by side in a listing), then a line of
    /// text for each.
    private func appendPhotos(_ images: [TweetImage], to text: inout TerminalText) {
        guard !images.isEmpty else { return }
        let count = sideBySide ? images.count : 1
        if count > 1, let row = mosaics[Self.rowKey(images.prefix(4).compactMap(\.thumbnail))] {
            for line in row {
                text.append(graphics: line)
                text.append("\n")
            }
            for image in images {
                text.append(untrusted: Self.photoLine(image), .dim)
                text.append("\n")
            }
            return
        }
        let drawn = images.map { image in
            image.thumbnail.flatMap { mosaics[Self.mosaicKey($0, photos: count)] } ?? []
        }
        if sideBySide, images.count > 1 {
            let widths = drawn.map { lines in lines.map(Mosaic.visibleCount).max() ?? 0 }
            for row in 0..<(drawn.map(\.count).max() ?? 0) {
                for (index, lines) in drawn.enumerated() {
                    let line = row < lines.count ? lines[row] : ""
                    text.append(graphics: line)
                    if index < drawn.count - 1 {
                        text.append(
                            untrusted: String(repeating: " ", count: widths[index] - Mosaic.visibleCount(line) + 2))
                    }
                }
                text.append("\n")
            }
            for image in images {
                text.append(untrusted: Self.photoLine(image), .dim)
                text.append("\n")
            }
            return
        }
        for (image, lines) in zip(images, drawn) {
            for line in lines {
                text.append(graphics: line)
                text.append("\n")
            }
            text.append(untrusted: Self.photoLine(image), .dim)
            text.append("\n")
        }
    }

    /// A photo as one line of text: `[photo 1200×800 · a cat asleep]` (a GIF is a "GIF").
    static func photoLine(_ image: TweetImage) -> String {
        let kind = image.type == "image/gif" ? "GIF" : "photo"
        let alt = image.alt.map { " · " + $0 } ?? ""
        return "[\(kind) \(image.width)×\(image.height)\(alt)]"
    }

    private func appendAuthor(_ tweet: Tweet, to text: inout TerminalText) {
        guard let user = tweet.user else {
            text.append("unknown user", .dim)
            return
        }
        text.append(untrusted: user.fullname, .bold)
        text.append(" ")
        text.append(untrusted: "@" + user.username, .dim)
    }

    /// The quoted tweet, indented under the quote.
    private func appendQuote(_ quoted: Tweet.Quoted, to text: inout TerminalText) {
        let bar: TerminalText.Literal = "  │ "
        text.append(bar, .dim)
        switch quoted {
        case .deleted:
            text.append("this tweet was deleted", .dim)
            text.append("\n")
        case .unavailable:
            text.append("this tweet is unavailable", .dim)
            text.append("\n")
        case .tweet(let tweet):
            appendAuthor(tweet, to: &text)
            text.append(" ")
            text.append(untrusted: "· " + time.string(for: tweet.timestamp, now: now), .dim)
            text.append("\n")
            for line in TerminalText.lines(of: tweet.caption) {
                text.append(bar, .dim)
                text.append(untrusted: line)
                text.append("\n")
            }
            text.append(bar, .dim)
            text.append(untrusted: "id " + shortID(tweet.id), .dim)
            text.append("\n")
        }
    }

    /// The caption, its mentions, hashtags, cashtags and links coloured from their exact ranges.
    func caption(_ tweet: Tweet) -> TerminalText {
        var text = TerminalText()
        appendCaption(tweet, to: &text)
        return text
    }

    private func appendCaption(_ tweet: Tweet, to text: inout TerminalText) {
        let caption = tweet.caption
        guard highlights, tweet.entities?.isEmpty != true else {
            text.append(untrusted: caption, multiline: true)
            return
        }
        var position = caption.startIndex
        for entity in TweetText.extractEntitiesWithIndices(caption) {
            guard let range = entity.stringRange(in: caption), range.lowerBound >= position else { continue }
            text.append(untrusted: caption[position..<range.lowerBound], multiline: true)
            text.append(untrusted: caption[range], .accent)
            position = range.upperBound
        }
        text.append(untrusted: caption[position...], multiline: true)
    }

    /// Rows separated by blank lines.
    func render(_ tweets: [Tweet]) -> TerminalText {
        tweets.map(render).joined(separator: "\n")
    }
}
