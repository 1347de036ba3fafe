import TweetCore
import TweetImages
import TweetStore

struct ProfileCommand: Command {
    static let name = "profile"
    static let usage = "profile [UID | @USERNAME] [--tab tweets|replies|likes|media] [--limit N] [--before TWEET_ID]"
    static let summary = "Show a profile with its Tweets, Replies or Likes tab (default: yours)"
    static let completes = Completion.users
    static let options = [
        Option(
            "--tab", value: "TAB", choices: ["tweets", "replies", "likes", "media"],
            "tweets (default), replies, likes, or media (the photos, three across)"),
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
            throw UsageError(
                "--tab must be tweets, replies, likes or media, not '\(tabName ?? "")'", usage: Self.usage)
        }
        (self.tab, tabGiven) = (tab, tabName != nil)
        limit = try list.number("--limit", in: Limits.page)
        before = try list.option("--before")
        reference = try list.positionals(atMost: 1).first
    }

    func run(_ context: Context) async throws {
        let viewModel = ProfileViewModel(reference: reference, services: try context.services())
        viewModel.selectedFilter = tab
        context.photoGrid = tab == .media
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
        text += tab == .media ? grid(viewModel.tweets, context) : context.tweetRenderer.render(viewModel.tweets)
        if viewModel.hasMore {
            var arguments = "profile " + ShellQuote.quote(reference ?? "@" + user.username)
            if tabGiven { arguments += " --tab \(tab.rawValue)" }
            text += context.moreLine(arguments, limit: limit, "--before", last.cursor)
        }
        return text
    }

    /// The Media tab: each tweet's first photo, three across, its short ID under it; without
    /// pictures, a line for each with its short ID.
    private func grid(_ tweets: [Tweet], _ context: Context) -> TerminalText {
        let renderer = context.tweetRenderer
        var text = TerminalText()
        let columns = context.mosaicCells.columns
        for row in stride(from: 0, to: tweets.count, by: 3) {
            let cells = tweets[row..<min(row + 3, tweets.count)].map { tweet in
                (
                    tweet,
                    tweet.images?.first.flatMap { $0.thumbnail }.flatMap {
                        renderer.mosaics[TweetRenderer.mosaicKey($0, photos: 1)]
                    } ?? []
                )
            }
            let row = renderer.mosaics[TweetRenderer.rowKey(cells.compactMap { $0.0.images?.first?.thumbnail })]
            if let row {
                for line in row {
                    text.append(graphics: line)
                    text.append("\n")
                }
            }
            let height = row == nil ? cells.map(\.1.count).max() ?? 0 : 0
            for line in 0..<height {
                for (index, (_, lines)) in cells.enumerated() {
                    let drawn = line < lines.count ? lines[line] : ""
                    text.append(graphics: drawn)
                    if index < cells.count - 1 {
                        text.append(untrusted: String(repeating: " ", count: columns - Mosaic.visibleCount(drawn) + 2))
                    }
                }
                text.append("\n")
            }
            for (index, (tweet, lines)) in cells.enumerated() {
                let label = "id " + renderer.shortID(tweet.id)
                if lines.isEmpty, row == nil {
                    text.append(untrusted: label + "  ", .dim)
                    text.append(untrusted: tweet.images?.first.map(TweetRenderer.photoLine) ?? "", .dim)
                    text.append("\n")
                    continue
                }
                text.append(untrusted: label, .dim)
                if index < cells.count - 1 {
                    text.append(untrusted: String(repeating: " ", count: max(1, columns + 2 - label.count)))
                }
            }
            if row != nil || cells.contains(where: { !$0.1.isEmpty }) { text.append("\n") }
            text.append("\n")
        }
        return text
    }
}
