import FoundationEssentials
import TweetCore
import TweetStore
import TwitterText

/// `follow` and `unfollow`: one user, one `ProfileViewModel` action; or with `--twtxt`, a twtxt
/// feed, one `TwtxtFollowViewModel` action.
protocol FollowCommand: Command {
    var reference: String { get }
    /// `--twtxt`: a feed's http(s) address or a local file, instead of a user.
    var twtxt: String? { get }
    /// `--nick`: what the feed's entries show under (`follow` only).
    var nick: String? { get }
    init(reference: String, twtxt: String?, nick: String?)
    @MainActor func perform(_ viewModel: ProfileViewModel) async throws
    /// Whether this is `follow`.
    static var follows: Bool { get }
}

extension FollowCommand {
    var commits: Bool { true }
    static var completes: Completion { .users }

    static var usage: String {
        "\(name) UID|@USERNAME | \(name) --twtxt URL|FILE" + (follows ? " [--nick NICK]" : "")
    }

    static var options: [Option] {
        [Option("--twtxt", value: "URL|FILE", "a twtxt feed (an http(s) address, or a local file) instead of a user")]
            + (follows
                ? [Option("--nick", value: "NICK", "the name its entries show under (default: its # nick)")] : [])
    }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        let twtxt = try list.option("--twtxt")
        let nick = Self.follows ? try list.option("--nick") : nil
        let positionals = try list.positionals(atMost: 1)
        if let twtxt {
            guard positionals.isEmpty, !twtxt.isEmpty else {
                throw UsageError("\(Self.name) --twtxt takes one feed and no user", usage: Self.usage)
            }
            if let nick {
                guard !nick.isEmpty, nick.count <= 30, TextRules.forbiddenCharacter(in: nick, multiline: false) == nil
                else { throw UsageError("--nick must be 1 to 30 characters on one line", usage: Self.usage) }
            }
            self.init(reference: "", twtxt: twtxt, nick: nick)
            return
        }
        guard nick == nil else { throw UsageError("--nick goes with --twtxt", usage: Self.usage) }
        guard let reference = positionals.first, !reference.isEmpty else {
            throw UsageError("\(Self.name) needs a uid or @username, or --twtxt and a feed", usage: Self.usage)
        }
        self.init(reference: reference, twtxt: nil, nick: nil)
    }

    func run(_ context: Context) async throws {
        if let twtxt { return try await runTwtxt(twtxt, context) }
        let viewModel = ProfileViewModel(reference: reference, services: try context.services())
        try await perform(viewModel)
        guard let user = viewModel.user, let stats = viewModel.stats else { return }
        let name = context.userRenderer.name(user)
        let sentence: TerminalText
        switch (viewModel.followStatus, viewModel.didChangeFollow) {
        case (.following, true): sentence = "You follow \(name) now."
        case (.following, false): sentence = "You already follow \(name)."
        case (.requested, true): sentence = "\(name) is protected: you asked to follow them, and they will answer."
        case (.requested, false): sentence = "You asked to follow \(name) already; they have not answered yet."
        case (.none, true):
            sentence =
                viewModel.previousFollowStatus == .requested
                ? "You withdrew your request to follow \(name)." : "You no longer follow \(name)."
        case (.none, false): sentence = "You were not following \(name); nothing changed."
        }
        try context.emit(
            FollowJSON(
                user: user, following: viewModel.isFollowed, status: viewModel.followStatus,
                changed: viewModel.didChangeFollow, stats: stats),
            human: sentence + "\n")
    }

    private func runTwtxt(_ source: String, _ context: Context) async throws {
        let url = try TwtxtSource.url(source, mustExist: Self.follows)
        let viewModel = TwtxtFollowViewModel(
            services: try context.services(), loader: TwtxtFetcher(environment: context.environment))
        if Self.follows {
            try await viewModel.follow(url: url, nick: nick, fallbackNick: TwtxtSource.nick(for: url))
        } else {
            try await viewModel.unfollow(url: url)
        }
        let nick = viewModel.feed?.nick ?? nick ?? TwtxtSource.nick(for: url)
        let sentence: String
        switch (Self.follows, viewModel.changed) {
        case (true, true):
            sentence =
                "You follow \(nick)'s twtxt feed now (\(counted(viewModel.entries, "entry", plural: "entries"))); feed --following shows them."
        case (true, false): sentence = "You already follow \(nick)'s twtxt feed."
        case (false, true): sentence = "You no longer follow \(nick)'s twtxt feed."
        case (false, false): sentence = "You were not following the twtxt feed \(url); nothing changed."
        }
        try context.emit(
            TwtxtFollowJSON(url: url, nick: nick, following: Self.follows, changed: viewModel.changed),
            human: TerminalText(sentence) + "\n")
    }
}

/// The `follow --twtxt --json` and `unfollow --twtxt --json` shape.
struct TwtxtFollowJSON: Encodable {
    var url: String
    var nick: String
    var following: Bool
    var changed: Bool
}

/// What `--twtxt` names: an http(s) address as it is, a local file as its absolute `file://` URL.
enum TwtxtSource {
    static func url(_ source: String, mustExist: Bool) throws -> String {
        let lowered = source.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let url = TwtxtService.webAddress(source) else {
                throw TwtxtError.badSource(source, reason: "it is not a web address")
            }
            return url
        }
        if lowered.hasPrefix("file://") {
            guard let path = TwtxtFetcher.filePath(source) else {
                throw TwtxtError.badSource(source, reason: "it is not a file URL")
            }
            return try url(path, mustExist: mustExist)
        }
        guard !lowered.contains("://") else {
            throw TwtxtError.badSource(source, reason: "only http, https and local files are followed")
        }
        let file = URL(fileURLWithPath: source).standardizedFileURL
        var isFolder = false
        if mustExist {
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) else {
                throw TwtxtError.badSource(source, reason: "there is no such file")
            }
            guard !isFolder else { throw TwtxtError.badSource(source, reason: "it is a folder") }
        }
        return file.absoluteString
    }

    /// A nick for a feed that names none: its file's name, or its host.
    static func nick(for url: String) -> String {
        guard let parsed = URL(string: url) else { return "twtxt" }
        if parsed.isFileURL {
            let name = parsed.deletingPathExtension().lastPathComponent
            return name.isEmpty || name == "twtxt" ? "twtxt" : name
        }
        return parsed.host ?? "twtxt"
    }
}

/// The `follow --json` and `unfollow --json` shape.
struct FollowJSON: Encodable {
    var user: User
    var following: Bool
    /// `following`, `requested` (a protected account has not answered yet) or `none`.
    var status: FollowStatus
    /// Whether this command changed anything (following twice changes nothing).
    var changed: Bool
    var stats: UserStats
}

struct FollowUserCommand: FollowCommand {
    static let name = "follow"
    static let summary = "Follow a user, or a twtxt feed"
    static let follows = true
    let reference: String
    let twtxt: String?
    let nick: String?

    func perform(_ viewModel: ProfileViewModel) async throws { try await viewModel.follow() }
}

struct UnfollowUserCommand: FollowCommand {
    static let name = "unfollow"
    static let summary = "Stop following a user, or a twtxt feed"
    static let follows = false
    let reference: String
    let twtxt: String?
    let nick: String?

    func perform(_ viewModel: ProfileViewModel) async throws { try await viewModel.unfollow() }
}
