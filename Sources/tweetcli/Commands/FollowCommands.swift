import TweetCore

/// `follow` and `unfollow`: one user, one `ProfileViewModel` action.
protocol FollowCommand: Command {
    var reference: String { get }
    init(reference: String)
    @MainActor func perform(_ viewModel: ProfileViewModel) async
}

extension FollowCommand {
    static var usage: String { "\(name) UID|@USERNAME" }

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        guard let reference = try list.positionals(atMost: 1).first, !reference.isEmpty else {
            throw UsageError("\(Self.name) needs a uid or @username", usage: Self.usage)
        }
        self.init(reference: reference)
    }

    func run(_ context: Context) async throws {
        let viewModel = ProfileViewModel(reference: reference, services: try context.services())
        await perform(viewModel)
        try check(viewModel.error)
        guard let user = viewModel.user, let stats = viewModel.stats else { return }
        let verb = viewModel.isFollowed ? "You follow" : "You no longer follow"
        try context.emit(
            FollowJSON(user: user, following: viewModel.isFollowed, stats: stats),
            human: "\(verb) \(user.fullname) (@\(user.username)).\n")
    }
}

/// The `follow --json` and `unfollow --json` shape.
struct FollowJSON: Encodable {
    var user: User
    var following: Bool
    var stats: UserStats
}

struct FollowUserCommand: FollowCommand {
    static let name = "follow"
    static let summary = "Follow a user"
    let reference: String

    func perform(_ viewModel: ProfileViewModel) async { await viewModel.follow() }
}

struct UnfollowUserCommand: FollowCommand {
    static let name = "unfollow"
    static let summary = "Stop following a user"
    let reference: String

    func perform(_ viewModel: ProfileViewModel) async { await viewModel.unfollow() }
}
