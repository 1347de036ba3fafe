import TweetCore
import TweetStore

struct FeedCommand: Command {
    static let name = "feed"
    static let usage = "feed [--following] [--limit N] [--before TWEET_ID]"
    static let summary = "Show the newest tweets, everyone's or only those you follow"
    static let options = [
        Option("--following", "only your tweets and those of the people you follow"), .limit("tweets"), .before,
    ]

    var following: Bool
    var limit: Int?
    var before: String?

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        following = try list.flag("--following")
        limit = try list.number("--limit", in: Limits.page)
        before = try list.option("--before")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = FeedViewModel(services: try context.services(), source: following ? .following : .everyone)
        let limit = context.pageLimit(self.limit)
        try await viewModel.fetchTweets(limit: limit, before: before)
        try context.emit(viewModel.tweets, human: human(viewModel, context: context))
    }

    private func human(_ viewModel: FeedViewModel, context: Context) -> TerminalText {
        let tweets = viewModel.tweets
        guard let last = tweets.last else {
            if before != nil { return "No older tweets.\n" }
            if following {
                return "No tweets from you or anyone you follow yet. Find people with: \(context.suggest("explore"))\n"
            }
            if viewModel.isSignedIn {
                return "No tweets yet. Post the first one with: \(context.suggest("post \"Hello, world\""))\n"
            }
            return """
                No tweets yet. Create an account and post:
                  \(context.suggest("register --email you@example.com --username you --fullname \"Your Name\""))
                  \(context.suggest("post \"Hello, world\""))
                Or fill a demo store with: \(context.suggest("seed"))

                """
        }
        var text = context.tweetRenderer.render(tweets)
        let unread = viewModel.unreadNotifications
        if unread > 0 && before == nil {
            let line = "\(unread) new notification\(unread == 1 ? "" : "s"): \(context.suggest("notifications"))"
            text = .styled(line, .accent) + "\n\n" + text
        }
        if viewModel.hasMore {
            text += context.moreLine("feed" + (following ? " --following" : ""), limit: limit, "--before", last.cursor)
        }
        return text
    }
}
