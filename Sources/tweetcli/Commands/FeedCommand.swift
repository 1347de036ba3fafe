import TweetCore

struct FeedCommand: Command {
    static let name = "feed"
    static let usage = "feed [--following] [--limit N] [--before TWEET_ID]"
    static let summary = "Show the newest tweets, everyone's or only those you follow"

    var following: Bool
    var limit: Int
    var before: String?

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        following = list.flag("--following")
        limit = try list.number("--limit", in: 1...200) ?? 20
        before = try list.option("--before")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let services = try context.services()
        let viewModel = FeedViewModel(services: services, source: following ? .following : .everyone)
        await viewModel.fetchTweets(limit: limit, before: before)
        try check(viewModel.error)
        let signedIn = try services.auth.currentUid() != nil
        try context.emit(viewModel.tweets, human: human(viewModel.tweets, context: context, signedIn: signedIn))
    }

    private func human(_ tweets: [Tweet], context: Context, signedIn: Bool) -> String {
        guard tweets.isEmpty else {
            let more =
                tweets.count == limit
                ? context.style.dim(
                    "\nMore: tweetcli feed\(following ? " --following" : "") --before \(tweets.last!.id)\n") : ""
            return context.tweetRenderer.render(tweets) + more
        }
        if before != nil { return "No older tweets.\n" }
        if following { return "No tweets from you or anyone you follow yet. Find people with: tweetcli explore\n" }
        if signedIn { return "No tweets yet. Post the first one with: tweetcli post \"Hello, world\"\n" }
        return """
            No tweets yet. Create an account and post:
              tweetcli register --email you@example.com --username you --fullname "Your Name"
              tweetcli post "Hello, world"
            Or fill a demo store with: tweetcli seed

            """
    }
}
