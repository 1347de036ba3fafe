import Foundation
import TweetCore

/// A tweet row (the course's `TweetRowView`): author, time, the caption, likes and the ID.
struct TweetRenderer {
    let now: Date
    var time = RelativeTime(locale: nil)
    /// Whether mentions, hashtags and links are coloured (only when colour is on: finding them costs).
    var highlights = false

    func render(_ tweet: Tweet) -> TerminalText {
        let name: TerminalText =
            tweet.user.map { .bold($0.fullname) + " " + .dim("@" + $0.username) } ?? .dim("unknown user")
        var text: TerminalText = "\(name) \(TerminalText.dim("· " + time.string(for: tweet.timestamp, now: now)))\n"
        if let parent = tweet.replyToId {
            text += .dim("↳ replying to \(parent)") + "\n"
        }
        text += caption(tweet) + "\n"
        let heart: TerminalText =
            tweet.didLike == true ? .styled("♥ \(tweet.likes)", .like) : TerminalText("♡ \(tweet.likes)")
        text += "\(heart)  \(TerminalText.dim("id " + tweet.id))\n"
        return text
    }

    /// The caption, its mentions, hashtags, cashtags and links coloured from their exact ranges.
    func caption(_ tweet: Tweet) -> TerminalText {
        let caption = tweet.caption
        guard highlights, tweet.entities?.isEmpty != true else { return TerminalText(caption, multiline: true) }
        var text = TerminalText()
        var position = caption.startIndex
        for entity in TweetText.extractEntitiesWithIndices(caption) {
            guard let range = entity.stringRange(in: caption), range.lowerBound >= position else { continue }
            text += TerminalText(caption[position..<range.lowerBound], multiline: true)
            text += TerminalText(caption[range], style: .accent)
            position = range.upperBound
        }
        return text + TerminalText(caption[position...], multiline: true)
    }

    /// Rows separated by blank lines.
    func render(_ tweets: [Tweet]) -> TerminalText {
        tweets.map(render).joined(separator: "\n")
    }
}
