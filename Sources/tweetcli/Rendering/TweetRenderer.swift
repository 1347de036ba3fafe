import Foundation
import TweetCore

/// A tweet row (the course's `TweetRowView`): author, time, the wrapped caption, likes and the ID.
struct TweetRenderer {
    let style: Style
    let width: Int
    let now: Date

    func render(_ tweet: Tweet) -> String {
        var lines: [String] = []
        let name =
            tweet.user.map { style.bold($0.fullname) + " " + style.dim("@" + $0.username) }
            ?? style.dim("unknown user")
        lines.append("\(name) \(style.dim("· " + RelativeTime.string(for: tweet.timestamp, now: now)))")
        if let parent = tweet.replyToId {
            lines.append(style.dim("↳ replying to \(parent)"))
        }
        let captionLines = DisplayWidth.wrap(tweet.caption, width: width)
        lines +=
            style.enabled
            ? captionLines.map { highlight($0, tweet.entities ?? TweetText.entities(in: tweet.caption)) } : captionLines
        let heart = tweet.didLike == true ? style.like("♥ \(tweet.likes)") : "♡ \(tweet.likes)"
        lines.append("\(heart)  \(style.dim("id " + tweet.id))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Colours the words of `line` that are the tweet's mentions, hashtags and links (after
    /// wrapping, so the colour codes never count as columns).
    private func highlight(_ line: String, _ entities: TweetEntities) -> String {
        guard !entities.isEmpty else { return line }
        let mentions = Set(entities.mentions.map { "@" + $0.lowercased() })
        let hashtags = Set(entities.hashtags.map { "#" + $0.lowercased() })
        return line.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            let core = word.trimmingCharacters(in: CharacterSet(charactersIn: ".,:;!?)(\"'"))
            guard !core.isEmpty, let range = word.range(of: core) else { return String(word) }
            let key = core.lowercased()
            let isEntity =
                mentions.contains(key) || hashtags.contains(key)
                || entities.urls.contains { core.contains($0) || $0.contains(core) && core.count > 4 }
            return isEntity ? word.replacingCharacters(in: range, with: style.accent(core)) : String(word)
        }.joined(separator: " ")
    }

    /// Rows separated by blank lines.
    func render(_ tweets: [Tweet]) -> String {
        tweets.map(render).joined(separator: "\n")
    }
}
