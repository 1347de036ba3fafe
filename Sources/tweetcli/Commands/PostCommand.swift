import Foundation
import TweetCore

struct PostCommand: Command {
    static let name = "post"
    static let usage = "post CAPTION... | post - [--reply-to TWEET_ID] [--dry-run]"
    static let summary = "Post a tweet (- reads the caption from stdin; --dry-run only counts it)"

    var words: [String]
    var replyTo: String?
    var dryRun: Bool

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        replyTo = try list.option("--reply-to")
        dryRun = list.flag("--dry-run")
        words = try list.positionals()
        guard !words.isEmpty else {
            throw UsageError("post needs a caption, or - to read it from stdin", usage: Self.usage)
        }
        if words.contains("-") && words != ["-"] {
            throw UsageError("'-' reads the whole caption from stdin; give it alone", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let caption =
            words == ["-"]
            ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            : words.joined(separator: " ")
        let viewModel = UploadTweetViewModel(services: try context.services())
        if dryRun {
            let preview = viewModel.preview(caption)
            try context.emit(preview, human: Self.describe(preview))
            _ = try TweetService.validatedCaption(caption)  // exit 1, with the reason, if it could not be posted
            return
        }
        await viewModel.uploadTweet(withCaption: caption, replyTo: replyTo)
        try check(viewModel.error)
        guard let tweet = viewModel.tweet else { return }
        try context.emit(tweet, human: context.tweetRenderer.render(tweet))
    }

    /// "42/280 characters, 238 left", then the entities that would be stored.
    static func describe(_ preview: CaptionPreview) -> String {
        let left = preview.remaining >= 0 ? "\(preview.remaining) left" : "\(-preview.remaining) over"
        var text = "\(preview.weightedLength)/\(preview.limit) characters, \(left)\n"
        let entities = preview.entities
        if !entities.mentions.isEmpty {
            text += "mentions: " + entities.mentions.map { "@" + $0 }.joined(separator: " ") + "\n"
        }
        if !entities.hashtags.isEmpty {
            text += "hashtags: " + entities.hashtags.map { "#" + $0 }.joined(separator: " ") + "\n"
        }
        if !entities.urls.isEmpty { text += "links: " + entities.urls.joined(separator: " ") + "\n" }
        return text
    }
}
