import TweetCore
import TweetStore

/// `like`, `retweet`, `bookmark`, their undoing, and `delete`: one tweet ID, one `TweetRowViewModel` action.
protocol TweetActionCommand: Command {
    var tweetID: String { get }
    /// - Parameter flags: the command's flags that were given.
    init(tweetID: String, flags: Set<String>)
    @MainActor func perform(_ viewModel: TweetRowViewModel, context: Context) async throws
}

extension TweetActionCommand {
    var commits: Bool { true }

    static var usage: String { "\(name) TWEET_ID" + options.map { " [\($0.name)]" }.joined() }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        var flags: Set<String> = []
        for option in Self.options where try list.flag(option.name) { flags.insert(option.name) }
        let values = try list.positionals(atMost: 1)
        guard let id = values.first, !id.isEmpty else {
            throw UsageError("\(Self.name) needs a tweet ID", usage: Self.usage)
        }
        self.init(tweetID: id, flags: flags)
    }

    func run(_ context: Context) async throws {
        let viewModel = TweetRowViewModel(tweetID: tweetID, services: try context.services())
        try await perform(viewModel, context: context)
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

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, context: Context) async throws { try await viewModel.likeTweet() }
}

struct UnlikeCommand: TweetActionCommand {
    static let name = "unlike"
    static let summary = "Stop liking a tweet"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, context: Context) async throws { try await viewModel.unlikeTweet() }
}

struct RetweetCommand: TweetActionCommand {
    static let name = "retweet"
    static let summary = "Retweet a tweet to your followers"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, context: Context) async throws { try await viewModel.retweet() }
}

struct UnretweetCommand: TweetActionCommand {
    static let name = "unretweet"
    static let summary = "Take back your retweet of a tweet"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, context: Context) async throws { try await viewModel.unretweet() }
}

struct BookmarkCommand: TweetActionCommand {
    static let name = "bookmark"
    static let summary = "Save a tweet to your bookmarks (only you see them)"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, context: Context) async throws { try await viewModel.bookmark() }
}

struct UnbookmarkCommand: TweetActionCommand {
    static let name = "unbookmark"
    static let summary = "Remove a tweet from your bookmarks"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, context: Context) async throws { try await viewModel.unbookmark() }
}

struct DeleteCommand: TweetActionCommand {
    static let name = "delete"
    static let summary = "Delete one of your tweets (asks first on a terminal)"
    static let options = [Option("--force", short: "f", "delete without asking (needed when there is no terminal)")]
    let tweetID: String
    let force: Bool

    init(tweetID: String, flags: Set<String>) {
        self.tweetID = tweetID
        force = flags.contains("--force")
    }

    func perform(_ viewModel: TweetRowViewModel, context: Context) async throws {
        if !force {
            guard context.terminal.isStdinTerminal else {
                throw CommandFailure(
                    "there is no terminal to confirm the deletion on; nothing was deleted",
                    hint: "delete without asking with: \(context.suggest("delete \(tweetID) --force"))")
            }
            guard Prompt.confirm(context.screen.render("Delete tweet \(tweetID)? This cannot be undone.")) else {
                throw CommandFailure("nothing was deleted")
            }
        }
        try await viewModel.deleteTweet()
    }
}
