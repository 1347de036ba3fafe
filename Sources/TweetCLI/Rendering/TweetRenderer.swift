import FoundationEssentials
import TweetCore
import TweetStore

/// A tweet row (the course's `TweetRowView`): author, time, the caption, likes and the ID.
struct TweetRenderer {
    let now: Date
    var time = RelativeTime(locale: nil)
    /// Whether mentions, hashtags and links are coloured (only when colour is on: finding them costs).
    var highlights = false

    func render(_ tweet: Tweet) -> TerminalText {
        var text = TerminalText()
        if let retweeter = tweet.retweetedBy {
            let when = tweet.retweetedAt.map { " · " + time.string(for: $0, now: now) } ?? ""
            text += .dim("↻ ") + .dim(retweeter.fullname) + .dim(" retweeted" + when) + "\n"
        }
        text += "\(author(tweet)) \(TerminalText.dim("· " + time.string(for: tweet.timestamp, now: now)))\n"
        if let parent = tweet.replyTo {
            if let username = parent.username {
                text += .dim("↳ replying to ") + .styled("@" + username, .accent) + "\n"
            } else {
                text += .dim("↳ replying to a tweet that was deleted") + "\n"
            }
        } else if let parent = tweet.replyToId {
            text += .dim("↳ replying to \(parent)") + "\n"
        }
        text += caption(tweet) + "\n"
        if let quoted = tweet.quoted { text += quote(quoted) }
        let heart: TerminalText =
            tweet.didLike == true ? .styled("♥ \(tweet.likes)", .like) : TerminalText("♡ \(tweet.likes)")
        let retweets: TerminalText =
            tweet.didRetweet == true ? .styled("↻ \(tweet.retweets)", .accent) : TerminalText("↻ \(tweet.retweets)")
        text += "\(heart)  \(retweets)  ↩ \(tweet.replyCount)"
        if tweet.quotes > 0 { text += "  ❝ \(tweet.quotes)" }
        text += "  \(TerminalText.dim("id " + tweet.id))\n"
        return text
    }

    private func author(_ tweet: Tweet) -> TerminalText {
        tweet.user.map { .bold($0.fullname) + " " + .dim("@" + $0.username) } ?? .dim("unknown user")
    }

    /// The quoted tweet, indented under the quote.
    private func quote(_ quoted: Tweet.Quoted) -> TerminalText {
        let bar: TerminalText = .dim("  │ ")
        switch quoted {
        case .deleted:
            return bar + .dim("this tweet was deleted") + "\n"
        case .tweet(let tweet):
            var text = bar + author(tweet) + " " + .dim("· " + time.string(for: tweet.timestamp, now: now)) + "\n"
            for line in tweet.caption.split(separator: "\n", omittingEmptySubsequences: false) {
                text += bar + TerminalText(line) + "\n"
            }
            return text + bar + .dim("id " + tweet.id) + "\n"
        }
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
