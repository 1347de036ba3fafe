import FoundationEssentials
import TweetCore
import TweetStore

struct FeedCommand: Command {
    static let name = "feed"
    static let usage = "feed [--following] [--limit N] [--before TWEET_ID | --watch]"
    static let summary = "Show the newest tweets, everyone's or only those you follow"
    static let options = [
        Option(
            "--following",
            "only your tweets and those of the people you follow, with the twtxt feeds you follow (follow --twtxt)"),
        .limit("tweets"), .before,
        Option("--watch", "then keep going: each new tweet as it comes, in a pipe too (Ctrl-C stops)"),
    ]

    var following: Bool
    var limit: Int?
    var before: String?
    var watch: Bool

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        following = try list.flag("--following")
        limit = try list.number("--limit", in: Limits.page)
        before = try list.option("--before")
        watch = try list.flag("--watch")
        _ = try list.positionals(atMost: 0)
        if watch, before != nil {
            throw UsageError(
                "--watch shows what comes after now, so it cannot start --before a tweet", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let viewModel = FeedViewModel(
            services: try context.services(), source: following ? .following : .everyone,
            twtxt: following ? TwtxtFetcher(environment: context.environment) : nil)
        let limit = context.pageLimit(self.limit)
        // Watched from before the first page is read, so nothing posted in between is missed.
        let changes = watch ? try context.services().store.watchChanges() : nil
        if watch { context.streams = true }
        let before = try await context.cursor(before)
        try await context.loadPage {
            try await viewModel.fetchTweets(limit: limit, before: before)
            return viewModel.tweets
        }
        // Feeds that could not be read, and lines that are not entries: notes, not failures.
        for problem in viewModel.twtxtProblems {
            Output.writeError(TerminalText("note: \(problem)\n").rendered(color: false))
        }
        for (url, count) in viewModel.twtxtSkipped.sorted(by: { $0.key < $1.key }) {
            Output.writeError(
                TerminalText(
                    "note: skipped \(count) line\(count == 1 ? "" : "s") of \(url) that are not twtxt entries\n"
                )
                .rendered(color: false))
        }
        if viewModel.twtxtLeftOut > 0 {
            Output.writeError(
                "note: \(viewModel.twtxtLeftOut) more twtxt entries of this page's span are not shown; a larger --limit shows them\n"
            )
        }
        let rows = FeedRow.merged(viewModel.tweets, viewModel.twtxtEntries)
        guard let changes else {
            try context.emit(rows, human: human(viewModel, rows: rows, context: context))
            return
        }
        if context.options.json {
            for row in rows { try Output.write(try JSONOutput.line(row)) }
        } else {
            try context.screen.write(human(viewModel, rows: rows, context: context))
        }
        // One account throughout, as an open app is (for the following feed and the likes shown).
        // The wakes read tweets only: a followed twtxt feed is another server's, fetched once above
        // rather than at every write to the store.
        let tweets = FeedViewModel(services: try context.services(), source: following ? .following : .everyone)
        try await context.services().auth.withViewer {
            try await Self.watch(changes, tweets, shown: viewModel.tweets, context: context)
        }
    }

    /// `--watch`: waits for the store to change (no polling), then prints the tweets that came
    /// since the newest shown, oldest first, so that the newest is last, as in a chat; in a pipe,
    /// each as soon as it comes. Runs until interrupted, or until the output is closed.
    private static func watch(
        _ changes: any StoreChangeWatch, _ viewModel: FeedViewModel, shown: [Tweet], context: Context
    ) async throws {
        var seen = Set(shown.map(\.cursor))
        var newest = shown.map(FeedRow.tweet).map(\.time).max() ?? .distantPast
        try context.screen.write(context.hint(.dim("Watching for new tweets; Ctrl-C stops.") + "\n"))
        while true {
            guard try changes.wait() else { continue }
            // What the session check read along (whom the account follows) may be what changed.
            try context.services().auth.forgetCheckedDocuments()
            var fresh: [Tweet] = []
            var before: String?
            // Page by page down to the newest shown, so a burst larger than a page is not cut;
            // a flood stops at a few pages, the newest of it.
            pages: for _ in 0..<10 {
                var page: [Tweet] = []
                try await context.loadPage {
                    try await viewModel.fetchTweets(limit: Limits.page.upperBound, before: before)
                    page = viewModel.tweets
                    return page
                }
                for tweet in page {
                    if FeedRow.tweet(tweet).time < newest { break pages }
                    if !seen.contains(tweet.cursor) { fresh.append(tweet) }
                }
                guard viewModel.hasMore, let last = page.last else { break }
                before = last.cursor
            }
            guard !fresh.isEmpty else { continue }
            fresh.reverse()
            for tweet in fresh {
                seen.insert(tweet.cursor)
                newest = max(newest, FeedRow.tweet(tweet).time)
            }
            if context.options.json {
                for tweet in fresh { try Output.write(try JSONOutput.line(FeedRow.tweet(tweet))) }
            } else {
                try context.screen.write("\n" + context.tweetRenderer.render(fresh))
            }
        }
    }

    private func human(_ viewModel: FeedViewModel, rows: [FeedRow], context: Context) -> TerminalText {
        let tweets = viewModel.tweets
        guard let last = tweets.last else {
            if !rows.isEmpty { return FeedRow.render(rows, context.tweetRenderer) + "\n" }
            if before != nil { return "No older tweets.\n" }
            if following {
                return context.hint(
                    "No tweets from you or anyone you follow yet. Find people with: \(context.suggest("explore"))\n")
            }
            if viewModel.isSignedIn {
                return context.hint(
                    "No tweets yet. Post the first one with: \(context.suggest("post \"Hello, world\""))\n")
            }
            return context.hint(
                """
                No tweets yet. Create an account and post:
                  \(context.suggest("register --email you@example.com --username you --fullname \"Your Name\""))
                  \(context.suggest("post \"Hello, world\""))
                Or fill a demo store with: \(context.suggest("seed"))

                """)
        }
        var text = FeedRow.render(rows, context.tweetRenderer)
        let unread = viewModel.unreadNotifications
        if unread > 0 && before == nil {
            let line = "\(unread) new notification\(unread == 1 ? "" : "s"): \(context.suggest("notifications"))"
            text = context.hint(.styled(line, .accent) + "\n\n") + text
        }
        if viewModel.hasMore, !watch {
            text += context.moreLine("feed" + (following ? " --following" : ""), limit: limit, "--before", last.cursor)
        }
        return text
    }
}

/// A row of the feed: a tweet, or an entry of a followed twtxt feed.
enum FeedRow: Encodable {
    case tweet(Tweet)
    case twtxt(TwtxtEntry)

    var time: Date {
        switch self {
        case .tweet(let tweet): tweet.retweetedAt ?? tweet.timestamp
        case .twtxt(let entry): entry.timestamp
        }
    }

    /// The tweets in their order, each entry placed before the first tweet older than it.
    static func merged(_ tweets: [Tweet], _ entries: [TwtxtEntry]) -> [FeedRow] {
        guard !entries.isEmpty else { return tweets.map(FeedRow.tweet) }
        var rows: [FeedRow] = []
        rows.reserveCapacity(tweets.count + entries.count)
        var pending = entries[...]
        for tweet in tweets {
            let row = FeedRow.tweet(tweet)
            while let entry = pending.first, entry.timestamp > row.time {
                rows.append(.twtxt(entry))
                pending = pending.dropFirst()
            }
            rows.append(row)
        }
        return rows + pending.map(FeedRow.twtxt)
    }

    static func render(_ rows: [FeedRow], _ renderer: TweetRenderer) -> TerminalText {
        rows.map { row in
            switch row {
            case .tweet(let tweet): return renderer.render(tweet)
            case .twtxt(let entry):
                return .bold(entry.nick) + " "
                    + .dim("(twtxt) · " + renderer.time.string(for: entry.timestamp, now: renderer.now))
                    + "\n" + TerminalText(entry.text, multiline: true) + "\n" + .dim(entry.url) + "\n"
            }
        }.joined(separator: "\n")
    }

    /// A tweet as `feed --json` has always printed it; an entry as its time, text and feed.
    func encode(to encoder: any Encoder) throws {
        switch self {
        case .tweet(let tweet): try tweet.encode(to: encoder)
        case .twtxt(let entry):
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(entry.timestamp, forKey: .timestamp)
            try container.encode(entry.text, forKey: .caption)
            try container.encode(["nick": entry.nick, "url": entry.url], forKey: .twtxt)
        }
    }

    private enum Keys: String, CodingKey { case timestamp, caption, twtxt }
}
