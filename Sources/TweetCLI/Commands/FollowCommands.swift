import TweetCore
import TweetStore

/// `follow` and `unfollow`: one user, one `ProfileViewModel` action.
protocol FollowCommand: Command {
    var reference: String { get }
    init(reference: String)
    @MainActor func perform(_ viewModel: ProfileViewModel) async throws
}

extension FollowCommand {
    var commits: Bool { true }

    static var usage: String { "\(name) UID|@USERNAME" }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        guard let reference = try list.positionals(atMost: 1).first, !reference.isEmpty else {
            throw UsageError("\(Self.name) needs a uid or @username", usage: Self.usage)
        }
        self.init(reference: reference)
    }

    func run(_ context: Context) async throws {
        let viewModel = ProfileViewModel(reference: reference, services: try context.services())
        try await perform(viewModel)
        guard let user = viewModel.user, let stats = viewModel.stats else { return }
        let name = context.userRenderer.name(user)
        let sentence: TerminalText
        switch (viewModel.isFollowed, viewModel.didChangeFollow) {
        case (true, true): sentence = "You follow \(name) now."
        case (true, false): sentence = "You already follow \(name)."
        case (false, true): sentence = "You no longer follow \(name)."
        case (false, false): sentence = "You were not following \(name); nothing changed."
        }
        try context.emit(
            FollowJSON(user: user, following: viewModel.isFollowed, changed: viewModel.didChangeFollow, stats: stats),
            human: sentence + "\n")
    }
}

/// The `follow --json` and `unfollow --json` shape.
struct FollowJSON: Encodable {
    var user: User
    var following: Bool
    /// Whether this command changed anything (following twice changes nothing).
    var changed: Bool
    var stats: UserStats
}

struct FollowUserCommand: FollowCommand {
    static let name = "follow"
    static let summary = "Follow a user"
    let reference: String

    func perform(_ viewModel: ProfileViewModel) async throws { try await viewModel.follow() }
}

struct UnfollowUserCommand: FollowCommand {
    static let name = "unfollow"
    static let summary = "Stop following a user"
    let reference: String

    func perform(_ viewModel: ProfileViewModel) async throws { try await viewModel.unfollow() }
}
