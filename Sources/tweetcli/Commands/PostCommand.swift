import Foundation
import TweetCore

struct PostCommand: Command {
    static let name = "post"
    static let usage = "post CAPTION... | post - [--reply-to TWEET_ID]"
    static let summary = "Post a tweet (- reads the caption from stdin)"

    var words: [String]
    var replyTo: String?

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        replyTo = try list.option("--reply-to")
        words = try list.positionals()
        guard !words.isEmpty else { throw UsageError("post needs a caption, or - to read it from stdin", usage: Self.usage) }
        if words.contains("-") && words != ["-"] {
            throw UsageError("'-' reads the whole caption from stdin; give it alone", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let caption = words == ["-"] ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            : words.joined(separator: " ")
        let viewModel = UploadTweetViewModel(services: try context.services())
        await viewModel.uploadTweet(withCaption: caption, replyTo: replyTo)
        try check(viewModel.error)
        guard let tweet = viewModel.tweet else { return }
        try context.emit(tweet, human: context.tweetRenderer.render(tweet))
    }
}
