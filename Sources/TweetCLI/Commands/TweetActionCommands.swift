import TweetCore
import TweetStore

/// `like`, `retweet`, `bookmark`, their undoing, and `delete`: one tweet, named by its ID or a
/// unique start of it, and one `TweetRowViewModel` action.
protocol TweetActionCommand: Command {
    var tweetID: String { get }
    /// - Parameter flags: the command's flags that were given.
    init(tweetID: String, flags: Set<String>)
    /// Runs the action on the tweet `id` names.
    @MainActor func perform(_ viewModel: TweetRowViewModel, id: String, context: Context) async throws
    /// The line that says what the action did to `tweet` ("@ada's tweet 0VZdnn3w “…”"), or, when it
    /// changed nothing, that it was already so.
    static func report(changed: Bool, tweet: TerminalText) -> TerminalText
}

extension TweetActionCommand {
    var commits: Bool { true }
    static var completes: Completion { .tweets }

    /// Built for every action's arguments, so without `joined()`: the standard library's is
    /// generic over the collection, and its first use in a process looks up protocol conformances
    /// at run time.
    static var usage: String { options.reduce(into: "\(name) TWEET_ID") { $0 += " [\($1.name)]" } }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        var flags: Set<String> = []
        for option in Self.options where try list.flag(option.name) { flags.insert(option.name) }
        let values = try list.positionals(atMost: 1)
        guard let id = values.first, !id.trimmed().isEmpty else {
            throw UsageError("\(Self.name) needs a tweet ID", usage: Self.usage)
        }
        self.init(tweetID: id, flags: flags)
    }

    func run(_ context: Context) async throws {
        let id = try await context.tweetID(tweetID)
        let viewModel = TweetRowViewModel(tweetID: id, services: try context.services())
        try await perform(viewModel, id: id, context: context)
        guard let tweet = viewModel.tweet else { return }
        if !context.options.json { try await context.loadShortIDs(of: [tweet]) }
        try context.emit(
            tweet, human: Self.report(changed: viewModel.changed, tweet: TweetSummary(context).describe(tweet)) + "\n")
    }
}

/// A tweet named in one line: whose it is, its short ID and the start of its caption.
@MainActor
struct TweetSummary {
    let renderer: TweetRenderer
    let width: Int

    init(_ context: Context) {
        renderer = context.tweetRenderer
        width = context.terminal.width ?? 80
    }

    /// "@ada's tweet 0VZdnn3w “First words of it…”", the caption cut to fit the terminal.
    func describe(_ tweet: Tweet) -> TerminalText {
        let author = tweet.user.map { "@" + $0.username + "'s" } ?? "a"
        let firstLine = TerminalText.lines(of: tweet.caption).first ?? ""
        let room = max(12, min(60, width - 40))
        let quote = firstLine.count > room ? String(firstLine.prefix(room - 1)) + "…" : String(firstLine)
        var text = TerminalText(author + " tweet ")
        text += .dim(renderer.shortID(tweet.id))
        text += TerminalText(" “" + quote + "”")
        return text
    }
}

struct LikeCommand: TweetActionCommand {
    static let name = "like"
    static let summary = "Like a tweet"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, id: String, context: Context) async throws {
        try await viewModel.likeTweet()
    }

    static func report(changed: Bool, tweet: TerminalText) -> TerminalText {
        "♥ " + (changed ? "Liked " : "You already like ") + tweet
    }
}

struct UnlikeCommand: TweetActionCommand {
    static let name = "unlike"
    static let summary = "Stop liking a tweet"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, id: String, context: Context) async throws {
        try await viewModel.unlikeTweet()
    }

    static func report(changed: Bool, tweet: TerminalText) -> TerminalText {
        changed ? "♡ Unliked " + tweet : "♡ You did not like " + tweet + "; nothing changed."
    }
}

struct RetweetCommand: TweetActionCommand {
    static let name = "retweet"
    static let summary = "Retweet a tweet to your followers"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, id: String, context: Context) async throws {
        try await viewModel.retweet()
    }

    static func report(changed: Bool, tweet: TerminalText) -> TerminalText {
        "↻ " + (changed ? "Retweeted " : "You already retweeted ") + tweet
    }
}

struct UnretweetCommand: TweetActionCommand {
    static let name = "unretweet"
    static let summary = "Take back your retweet of a tweet"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, id: String, context: Context) async throws {
        try await viewModel.unretweet()
    }

    static func report(changed: Bool, tweet: TerminalText) -> TerminalText {
        changed
            ? "↻ Took back your retweet of " + tweet
            : "↻ You had not retweeted " + tweet + "; nothing changed."
    }
}

struct BookmarkCommand: TweetActionCommand {
    static let name = "bookmark"
    static let summary = "Save a tweet to your bookmarks (only you see them)"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, id: String, context: Context) async throws {
        try await viewModel.bookmark()
    }

    static func report(changed: Bool, tweet: TerminalText) -> TerminalText {
        "⚑ " + (changed ? "Bookmarked " : "You already bookmarked ") + tweet
    }
}

struct UnbookmarkCommand: TweetActionCommand {
    static let name = "unbookmark"
    static let summary = "Remove a tweet from your bookmarks"
    let tweetID: String

    init(tweetID: String, flags: Set<String>) { self.tweetID = tweetID }

    func perform(_ viewModel: TweetRowViewModel, id: String, context: Context) async throws {
        try await viewModel.unbookmark()
    }

    static func report(changed: Bool, tweet: TerminalText) -> TerminalText {
        changed
            ? "⚐ Removed " + tweet + " from your bookmarks."
            : "⚐ " + tweet + " is not in your bookmarks; nothing changed."
    }
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

    /// The tweet is found, and checked to be yours, before anyone is asked; the question shows it.
    func run(_ context: Context) async throws {
        let id = try await context.tweetID(tweetID)
        let viewModel = TweetRowViewModel(tweetID: id, services: try context.services())
        try await viewModel.loadForDeleting()
        guard let tweet = viewModel.tweet else { return }
        try await context.loadShortIDs(of: [tweet])
        let summary = TweetSummary(context).describe(tweet)
        if !force {
            guard context.terminal.isStdinTerminal else {
                throw CommandFailure(
                    "there is no terminal to confirm the deletion on; nothing was deleted",
                    hint: "delete without asking with: \(context.suggest("delete \(tweetID.trimmed()) --force"))")
            }
            let question = "Delete " + summary + "? This cannot be undone."
            guard Prompt.confirm(context.screen.render(question)) else {
                try context.screen.write("Nothing was deleted.\n")
                return
            }
        }
        try await perform(viewModel, id: id, context: context)
        try context.emit(["deleted": id], human: Self.report(changed: true, tweet: summary) + "\n")
    }

    func perform(_ viewModel: TweetRowViewModel, id: String, context: Context) async throws {
        try await viewModel.deleteTweet()
    }

    static func report(changed: Bool, tweet: TerminalText) -> TerminalText { "Deleted " + tweet }
}
