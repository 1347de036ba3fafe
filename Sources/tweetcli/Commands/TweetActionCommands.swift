import TweetCore

/// `like`, `unlike` and `delete`: one tweet ID, one `TweetRowViewModel` action.
protocol TweetActionCommand: Command {
    var tweetID: String { get }
    init(tweetID: String)
    @MainActor func perform(_ viewModel: TweetRowViewModel) async
}

extension TweetActionCommand {
    static var usage: String { "\(name) TWEET_ID" }

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        let values = try list.positionals(atMost: 1)
        guard let id = values.first, !id.isEmpty else {
            throw UsageError("\(Self.name) needs a tweet ID", usage: Self.usage)
        }
        self.init(tweetID: id)
    }

    func run(_ context: Context) async throws {
        let viewModel = TweetRowViewModel(tweetID: tweetID, services: try context.services())
        await perform(viewModel)
        try check(viewModel.error)
        if let tweet = viewModel.tweet {
            try context.emit(tweet, human: context.tweetRenderer.render(tweet))
        } else {
            try context.emit(["deleted": tweetID], human: "Deleted tweet \(tweetID).\n")
        }
    }
}

struct LikeCommand: TweetActionCommand {
    static let name = "like"
    static let summary = "Like a tweet"
    let tweetID: String

    func perform(_ viewModel: TweetRowViewModel) async { await viewModel.likeTweet() }
}

struct UnlikeCommand: TweetActionCommand {
    static let name = "unlike"
    static let summary = "Stop liking a tweet"
    let tweetID: String

    func perform(_ viewModel: TweetRowViewModel) async { await viewModel.unlikeTweet() }
}

struct DeleteCommand: TweetActionCommand {
    static let name = "delete"
    static let summary = "Delete one of your tweets"
    let tweetID: String

    func perform(_ viewModel: TweetRowViewModel) async { await viewModel.deleteTweet() }
}
