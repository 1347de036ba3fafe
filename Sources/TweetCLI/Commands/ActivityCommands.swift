import FoundationEssentials
import TweetCore
import TweetStore
import TweetSystem

/// `notifications`: the bell. Showing the newest page moves the marker of what was seen.
struct NotificationsCommand: Command {
    static let name = "notifications"
    static let usage = "notifications [--unread] [--limit N] [--before NOTIFICATION_ID | --watch]"
    static let summary = "Show who liked, retweeted, quoted or replied to you, mentioned you or followed you"
    static let options = [
        Option("--unread", "only the notifications you have not seen"), .limit("notifications"),
        Option(
            "--before", value: "NOTIFICATION_ID", "only notifications older than this one (the \"More:\" line gives it)"
        ),
        Option("--watch", "then keep going: each new notification as it comes, in a pipe too (Ctrl-C stops)"),
    ]

    var unread: Bool
    var limit: Int?
    var before: String?
    var watch: Bool

    var commits: Bool { true }  // The marker of what was seen moves.

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        unread = try list.flag("--unread")
        limit = try list.number("--limit", in: Limits.page)
        before = try list.option("--before")
        watch = try list.flag("--watch")
        _ = try list.positionals(atMost: 0)
        if watch, before != nil {
            throw UsageError(
                "--watch shows what comes after now, so it cannot start --before a notification", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let viewModel = NotificationsViewModel(services: try context.services())
        guard watch else {
            try await viewModel.load(limit: context.pageLimit(limit), before: before, unreadOnly: unread)
            try context.emit(viewModel.notifications, human: human(viewModel, context: context))
            // Seen once shown: output that could not be written leaves them unread.
            try await viewModel.markShownAsSeen(unreadOnly: unread, isFirstPage: before == nil)
            return
        }
        // One account throughout, as an open app is: another terminal's `switch` or `login`
        // does not turn this one's notifications into someone else's.
        try await context.services().auth.withViewer { try await watching(viewModel, context: context) }
    }

    /// `--watch`: the first page, then each notification as it comes.
    private func watching(_ viewModel: NotificationsViewModel, context: Context) async throws {
        // Watched from before the first page is read, so nothing that comes in between is missed.
        let changes = try context.services().store.watchChanges()
        context.streams = true
        try await viewModel.load(limit: context.pageLimit(limit), unreadOnly: unread)
        try show(viewModel.notifications, context: context, first: true)
        try await viewModel.markShownAsSeen(unreadOnly: false, isFirstPage: true)
        var seen = Set(viewModel.notifications.map(\.id))
        var newest = viewModel.notifications.first?.timestamp ?? .distantPast
        try context.screen.write(context.hint(.dim("Watching for new notifications; Ctrl-C stops.") + "\n"))
        // Marking what was shown as seen is a write too: the wake it causes finds nothing new.
        while true {
            guard try changes.wait() else { continue }
            // The notification state the session check read may be what changed.
            try context.services().auth.forgetCheckedDocuments()
            try await viewModel.load(limit: Limits.page.upperBound, unreadOnly: unread)
            let fresh = viewModel.notifications.filter { !seen.contains($0.id) && $0.timestamp >= newest }
            guard !fresh.isEmpty else { continue }
            seen.formUnion(fresh.map(\.id))
            newest = max(newest, fresh[0].timestamp)
            try show(fresh.reversed(), context: context, first: false)
            try await viewModel.markShownAsSeen(unreadOnly: false, isFirstPage: true)
        }
    }

    /// `--watch`'s rows: the first page as it is, then what comes, oldest first; with `--json`,
    /// one object a line.
    private func show(_ notifications: [ActivityNotification], context: Context, first: Bool) throws {
        if context.options.json {
            for notification in notifications { try Output.write(try JSONOutput.line(notification)) }
        } else if !notifications.isEmpty {
            try context.screen.write(
                (first ? "" : "\n") + NotificationRenderer(tweets: context.tweetRenderer).render(notifications))
        }
    }

    private func human(_ viewModel: NotificationsViewModel, context: Context) -> TerminalText {
        guard let last = viewModel.notifications.last else {
            if before != nil { return "No older notifications.\n" }
            return unread ? "No new notifications.\n" : "No notifications yet.\n"
        }
        var text = NotificationRenderer(tweets: context.tweetRenderer).render(viewModel.notifications)
        if viewModel.hasMore, !watch {
            text += context.moreLine("notifications" + (unread ? " --unread" : ""), limit: limit, "--before", last.id)
        }
        return text
    }
}

/// `bookmarks`: the signed-in user's saved tweets, newest bookmarked first.
struct BookmarksCommand: Command {
    static let name = "bookmarks"
    static let usage = "bookmarks [--limit N] [--before TWEET_ID]"
    static let summary = "Show the tweets you bookmarked"
    static let options = [.limit("tweets"), Option.before]

    var limit: Int?
    var before: String?

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        limit = try list.number("--limit", in: Limits.page)
        before = try list.option("--before")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = BookmarksViewModel(services: try context.services())
        let before = try await context.cursor(before)
        try await context.loadPage {
            try await viewModel.load(limit: context.pageLimit(limit), before: before)
            return viewModel.tweets
        }
        try context.emit(viewModel.tweets, human: human(viewModel, context: context))
    }

    private func human(_ viewModel: BookmarksViewModel, context: Context) -> TerminalText {
        guard let last = viewModel.tweets.last else {
            if before != nil { return "No older bookmarks.\n" }
            return context.hint("No bookmarks yet. Save a tweet with: \(context.suggest("bookmark TWEET_ID"))\n")
        }
        var text = context.tweetRenderer.render(viewModel.tweets)
        if viewModel.hasMore {
            text += context.moreLine("bookmarks", limit: limit, "--before", last.id)
        }
        return text
    }
}

/// `show`: one tweet, its photos as large as the terminal allows.
struct ShowCommand: Command {
    static let name = "show"
    static let usage = "show TWEET_ID"
    static let completes = Completion.tweets
    static let summary = "Show one tweet, its photos as large as the terminal allows"
    static let options: [Option] = []

    var tweetID: String

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        guard let id = try list.positionals(atMost: 1).first, !id.isEmpty else {
            throw UsageError("show needs a tweet ID", usage: Self.usage)
        }
        tweetID = id
    }

    func run(_ context: Context) async throws {
        let id = try await context.tweetID(tweetID)
        let services = try context.services()
        context.largePhotos = true
        var shown: Tweet?
        try await context.loadPage {
            let tweet = try await services.tweets.fetchTweet(withID: id)
            shown = tweet
            return [tweet]
        }
        guard let tweet = shown else { return }
        try context.emit(tweet, human: context.tweetRenderer.render(tweet))
    }
}

/// `thread`: a tweet in its conversation.
struct ThreadCommand: Command {
    static let name = "thread"
    static let usage = "thread TWEET_ID [--limit N]"
    static let completes = Completion.tweets
    static let summary = "Show a tweet with the tweets it replies to and the replies below it"
    static let options = [Option.limit("replies")]

    var tweetID: String
    var limit: Int?

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        limit = try list.number("--limit", in: Limits.page)
        guard let id = try list.positionals(atMost: 1).first, !id.isEmpty else {
            throw UsageError("thread needs a tweet ID", usage: Self.usage)
        }
        tweetID = id
    }

    func run(_ context: Context) async throws {
        let id = try await context.tweetID(tweetID)
        let viewModel = ThreadViewModel(tweetID: id, services: try context.services())
        try await context.loadPage {
            try await viewModel.load(limit: context.pageLimit(limit))
            guard let conversation = viewModel.conversation else { return [] }
            return conversation.ancestors + [conversation.tweet] + conversation.replies
        }
        guard let conversation = viewModel.conversation else { return }
        try context.emit(conversation, human: human(conversation, context: context))
    }

    private func human(_ conversation: Conversation, context: Context) -> TerminalText {
        let renderer = context.tweetRenderer
        var text = TerminalText()
        if let deleted = conversation.deletedAncestor {
            text += .dim("↳ the conversation continues above a deleted tweet (\(deleted))") + "\n\n"
        }
        if conversation.ancestorsAbove > 0, let top = conversation.ancestors.first {
            let count = conversation.ancestorsAbove
            let number = conversation.ancestorsAboveIsLowerBound ? "more than \(count)" : "\(count)"
            let tweets = count == 1 && !conversation.ancestorsAboveIsLowerBound ? "earlier tweet" : "earlier tweets"
            text +=
                .dim("↑ \(number) \(tweets) above; see them with: " + context.suggest("thread \(top.id)")) + "\n\n"
        }
        for ancestor in conversation.ancestors { text += renderer.render(ancestor) + .dim("  │") + "\n" }
        text += renderer.render(conversation.tweet)
        if !conversation.replies.isEmpty { text += "\n" + .bold("Replies") + "\n" }
        for reply in conversation.replies {
            let indent = String(repeating: "  ", count: max(0, (reply.depth ?? 1) - 1))
            text += "\n" + TerminalText.indenting(renderer.render(reply), by: indent)
        }
        if conversation.hasMoreReplies {
            let shown = context.pageLimit(limit)
            if shown < Limits.page.upperBound {
                let more = context.suggest(
                    "thread \(conversation.tweet.id) --limit \(min(Limits.page.upperBound, 2 * shown))")
                text += "\n" + .dim("More replies: " + more) + "\n"
            } else {
                text += "\n" + .dim("More replies are not shown: open one of them with thread TWEET_ID.") + "\n"
            }
        }
        return text
    }
}

/// The bell's rows: likes, retweets and follows of the same tweet grouped ("Bob and 2 others
/// liked your tweet"), replies, quotes and mentions one each with the tweet.
struct NotificationRenderer {
    let tweets: TweetRenderer

    func render(_ notifications: [ActivityNotification]) -> TerminalText {
        // Each group where its newest notification is; replies, quotes and mentions stay apart.
        var groups: [[ActivityNotification]] = []
        var placed: [String: Int] = [:]
        for notification in notifications {
            let key = "\(notification.type.rawValue) \(notification.tweetId ?? "")"
            if Self.groups(notification.type), let position = placed[key] {
                groups[position].append(notification)
            } else {
                placed[key] = groups.count
                groups.append([notification])
            }
        }
        return groups.map(renderGroup).joined(separator: "\n")
    }

    private static func groups(_ kind: ActivityNotification.Kind) -> Bool {
        kind == .like || kind == .retweet || kind == .follow || kind == .request
    }

    private func renderGroup(_ group: [ActivityNotification]) -> TerminalText {
        let first = group[0]
        let name: TerminalText = first.from.map { .bold($0.fullname) } ?? .dim("someone")
        let others = group.count - 1
        let who: TerminalText = others == 0 ? name : name + " and \(others) other\(others == 1 ? "" : "s")"
        let action: String =
            switch first.type {
            case .like: "liked your tweet"
            case .retweet: "retweeted your tweet"
            case .follow: "followed you"
            case .reply: "replied to you"
            case .quote: "quoted your tweet"
            case .mention: "mentioned you"
            case .request: "asked to follow you"
            }
        let marker: TerminalText = group.contains { !$0.read } ? .styled("● ", .accent) : "  "
        var text =
            marker + who + " " + TerminalText(action) + " "
            + .dim("· " + tweets.time.string(for: first.timestamp, now: tweets.now)) + "\n"
        if let tweet = first.tweet {
            text += TerminalText.indenting(tweets.render(tweet), by: "    ")
        }
        return text
    }
}

/// `search`: tweets by words, #hashtags, @mentions and from:author.
struct SearchCommand: Command {
    static let name = "search"
    static let usage = "search QUERY... [--limit N] [--before TWEET_ID]"
    static let summary = "Find tweets by words, #hashtags, @mentions and from:username, newest first"
    static let options = [.limit("tweets"), Option.before]

    var words: [String]
    var limit: Int?
    var before: String?

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        limit = try list.number("--limit", in: Limits.page)
        before = try list.option("--before")
        words = try list.positionals()
        guard words.contains(where: { !$0.trimmedSpaces().isEmpty }) else {
            throw UsageError("search needs something to search for", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let viewModel = SearchViewModel(services: try context.services())
        let query = words.concatenated(separator: " ")
        let before = try await context.cursor(before)
        try await context.loadPage {
            try await viewModel.search(query, limit: context.pageLimit(limit), before: before)
            return viewModel.tweets
        }
        try context.emit(viewModel.tweets, human: human(viewModel, query: query, context: context))
    }

    private func human(_ viewModel: SearchViewModel, query: String, context: Context) -> TerminalText {
        guard let last = viewModel.tweets.last else {
            return before == nil ? "No tweets match \(TerminalText(query)).\n" : "No older tweets match.\n"
        }
        var text = context.tweetRenderer.render(viewModel.tweets)
        if viewModel.hasMore {
            let arguments = "search " + words.map(ShellQuote.quote).concatenated(separator: " ")
            text += context.moreLine(arguments, limit: limit, "--before", last.id)
        }
        return text
    }
}

/// `trends`: Explore's "What's happening".
struct TrendsCommand: Command {
    static let name = "trends"
    static let usage = "trends [--hours N] [--limit N]"
    static let summary = "Show the most used hashtags of the last hours"
    static let options = [
        Option(
            "--hours", value: "N",
            "the window, \(Limits.trendHours.lowerBound)–\(Limits.trendHours.upperBound) hours (default 24)"),
        .limit("hashtags"),
    ]

    var hours: Int
    var limit: Int?

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        hours = try list.number("--hours", in: Limits.trendHours) ?? 24
        limit = try list.number("--limit", in: Limits.page)
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = TrendsViewModel(services: try context.services())
        try await viewModel.load(hours: hours, limit: limit ?? 10)
        guard let trends = viewModel.trends else { return }
        try context.emit(trends.trends, human: human(trends, context: context))
    }

    private func human(_ trends: Trends, context: Context) -> TerminalText {
        guard !trends.trends.isEmpty else { return "No hashtags in the last \(hours) hours.\n" }
        let window = "the last \(hours) hour\(hours == 1 ? "" : "s")"
        var text: TerminalText =
            trends.endsAtNewestHashtag
            ? .bold("What was happening")
                + .dim(" (no hashtags in \(window); the \(hours) hours up to the newest)")
                + "\n"
            : .bold("What's happening") + .dim(" (\(window))") + "\n"
        for (rank, trend) in trends.trends.enumerated() {
            text += "\(rank + 1). " + .styled(trend.hashtag, .accent)
            text += .dim(" · \(trend.tweets) tweet\(trend.tweets == 1 ? "" : "s")") + "\n"
        }
        return text
    }
}
