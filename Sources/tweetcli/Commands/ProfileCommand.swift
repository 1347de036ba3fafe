import TweetCore

struct ProfileCommand: Command {
    static let name = "profile"
    static let usage = "profile [UID | @USERNAME] [--tab tweets|replies|likes] [--limit N] [--before TWEET_ID]"
    static let summary = "Show a profile with its Tweets, Replies or Likes tab (default: yours)"

    var reference: String?
    var tab: TweetFilter
    var limit: Int
    var before: String?

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        let tabName = try list.option("--tab") ?? "tweets"
        guard let tab = TweetFilter(rawValue: tabName.lowercased()) else {
            throw UsageError("--tab must be tweets, replies or likes, not '\(tabName)'", usage: Self.usage)
        }
        self.tab = tab
        limit = try list.number("--limit", in: 1...200) ?? 20
        before = try list.option("--before")
        reference = try list.positionals(atMost: 1).first
    }

    func run(_ context: Context) async throws {
        let viewModel = ProfileViewModel(reference: reference, services: try context.services())
        viewModel.selectedFilter = tab
        await viewModel.load(limit: limit, before: before)
        try check(viewModel.error)
        guard let user = viewModel.user, let stats = viewModel.stats else { return }
        try context.emit(
            ProfileJSON(user: user, stats: stats, tweets: viewModel.tweets), human: human(viewModel, user, context))
    }

    private func human(_ viewModel: ProfileViewModel, _ user: User, _ context: Context) -> String {
        let style = context.style
        var text = context.userRenderer.header(user, stats: viewModel.stats, actionTitle: viewModel.actionButtonTitle)
        let tabs = TweetFilter.allCases.map { $0 == tab ? style.bold("[\($0.title)]") : style.dim($0.title) }
        text += "\n" + tabs.joined(separator: "  ") + "\n\n"
        if viewModel.tweets.isEmpty {
            text += before == nil ? "Nothing here yet.\n" : "Nothing older.\n"
        } else {
            text += context.tweetRenderer.render(viewModel.tweets)
        }
        return text
    }
}
