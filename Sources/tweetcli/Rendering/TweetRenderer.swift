import Foundation
import TweetCore

/// A tweet row (the course's `TweetRowView`): author, time, the wrapped caption, likes and the ID.
struct TweetRenderer {
    let style: Style
    let width: Int
    let now: Date

    func render(_ tweet: Tweet) -> String {
        var lines: [String] = []
        let name = tweet.user.map { style.bold($0.fullname) + " " + style.dim("@" + $0.username) }
            ?? style.dim("unknown user")
        lines.append("\(name) \(style.dim("· " + RelativeTime.string(for: tweet.timestamp, now: now)))")
        if let parent = tweet.replyToId {
            lines.append(style.dim("↳ replying to \(parent)"))
        }
        lines += DisplayWidth.wrap(tweet.caption, width: width)
        let heart = tweet.didLike == true ? style.like("♥ \(tweet.likes)") : "♡ \(tweet.likes)"
        lines.append("\(heart)  \(style.dim("id " + tweet.id))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Rows separated by blank lines.
    func render(_ tweets: [Tweet]) -> String {
        tweets.map(render).joined(separator: "\n")
    }
}
