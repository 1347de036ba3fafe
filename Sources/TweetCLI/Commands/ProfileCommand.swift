import TweetCore
import TweetStore

struct ProfileCommand: Command {
    static let name = "profile"
    static let usage = "profile [UID | @USERNAME] [--tab tweets|replies|likes] [--limit N] [--before TWEET_ID]"
    static let summary = "Show a profile with its Tweets, Replies or Likes tab (default: yours)"
    static let completes = Completion.users
    static let options = [
        Option("--tab", value: "TAB", choices: ["tweets", "replies", "likes"], "tweets (default), replies or likes"),
        .limit("tweets"), .before,
    ]

    var reference: String?
    var tab: TweetFilter
    var tabGiven: Bool
    var limit: Int?
    var before: String?

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        let tabName = try list.option("--tab")
        guard let tab = TweetFilter(rawValue: (tabName ?? "tweets").lowercased()) else {
            throw UsageError("--tab must be tweets, replies or likes, not '\(tabName ?? "")'", usage: Self.usage)
        }
        (self.tab, tabGiven) = (tab, tabName != nil)
        limit = try list.number("--limit", in: Limits.page)
        before = try list.option("--before")
        reference = try list.positionals(atMost: 1).first
    }

    func run(_ context: Context) async throws {
        let viewModel = ProfileViewModel(reference: reference, services: try context.services())
        viewModel.selectedFilter = tab
        let before = try await context.cursor(before)
        try await context.loadPage {
            try await viewModel.load(limit: context.pageLimit(limit), before: before)
            return viewModel.tweets
        }
        guard let user = viewModel.user, let stats = viewModel.stats else { return }
        let avatar = await context.avatarLines(for: user)
        try context.emit(
            ProfileJSON(
                user: user, stats: stats, status: viewModel.isCurrentUser ? nil : viewModel.followStatus,
                tweetsAreProtected: viewModel.tweetsAreProtected, tweets: viewModel.tweets),
            human: human(viewModel, user, context, avatar: avatar))
    }

    private func human(_ viewModel: ProfileViewModel, _ user: User, _ context: Context, avatar: [String])
        -> TerminalText
    {
        var text = context.userRenderer.header(
            user, stats: viewModel.stats, actionTitle: viewModel.actionButtonTitle, avatar: avatar)
        let tabs = TweetFilter.allCases.map { $0 == tab ? TerminalText.bold("[\($0.title)]") : .dim($0.title) }
        text += "\n" + tabs.joined(separator: "  ") + "\n\n"
        if viewModel.tweetsAreProtected {
            let name = "@" + user.username
            let ask =
                viewModel.followStatus == .requested
                ? "You asked to follow \(name); they have not answered yet."
                : "Ask to follow them with: " + context.suggest("follow " + name)
            return text + TerminalText("🔒 \(name)'s tweets are protected: only the followers they approve see them.")
                + "\n" + context.hint(TerminalText(ask) + "\n")
        }
        guard let last = viewModel.tweets.last else {
            return text + (before == nil ? "Nothing here yet.\n" : "Nothing older.\n")
        }
        text += context.tweetRenderer.render(viewModel.tweets)
        if viewModel.hasMore {
            var arguments = "profile " + ShellQuote.quote(reference ?? "@" + user.username)
            if tabGiven { arguments += " --tab \(tab.rawValue)" }
            text += context.moreLine(arguments, limit: limit, "--before", last.cursor)
        }
        return text
    }
}
