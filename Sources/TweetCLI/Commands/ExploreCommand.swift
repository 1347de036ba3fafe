import TweetCore
import TweetStore

struct ExploreCommand: Command {
    static let name = "explore"
    static let usage = "explore [QUERY] [--limit N] [--offset N]"
    static let summary = "List users, or search them by username or full name"
    static let options = [
        .limit("users"), Option("--offset", value: "N", "skip the first N matches (the \"More:\" line gives it)"),
    ]

    var query: String
    var limit: Int?
    var offset: Int

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        limit = try list.number("--limit", in: Limits.page)
        offset = try list.number("--offset", in: 0...1_000_000) ?? 0
        query = try list.positionals().concatenated(separator: " ")
    }

    func run(_ context: Context) async throws {
        let viewModel = ExploreViewModel(services: try context.services())
        viewModel.searchText = query
        try await viewModel.fetchUsers(limit: context.pageLimit(limit), offset: offset)
        var avatars: [String: [String]] = [:]
        if context.drawsPhotos {
            for user in viewModel.users { avatars[user.id] = await context.avatarLines(for: user, small: true) }
        }
        try context.emit(viewModel.users, human: human(viewModel, context, avatars: avatars))
    }

    private func human(_ viewModel: ExploreViewModel, _ context: Context, avatars: [String: [String]])
        -> TerminalText
    {
        let users = viewModel.users
        guard !users.isEmpty else {
            if offset > 0 { return "No more users.\n" }
            return query.isEmpty
                ? context.hint(
                    "Nobody is here yet. Register with: \(context.suggest("register --email E --username U --fullname F"))\n"
                )
                : "No users match \"\(query)\".\n"
        }
        var text = users.map { context.userRenderer.row($0, avatar: avatars[$0.id] ?? []) }.joined()
        if viewModel.hasMore {
            let arguments = "explore" + (query.isEmpty ? "" : " " + ShellQuote.quote(query))
            text += context.moreLine(arguments, limit: limit, "--offset", String(offset + users.count))
        }
        return text
    }
}
