import TweetCore

struct ExploreCommand: Command {
    static let name = "explore"
    static let usage = "explore [QUERY] [--limit N]"
    static let summary = "List users, or search them by username or full name"

    var query: String
    var limit: Int

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        limit = try list.number("--limit", in: 1...200) ?? 20
        query = try list.positionals().joined(separator: " ")
    }

    func run(_ context: Context) async throws {
        let viewModel = ExploreViewModel(services: try context.services())
        viewModel.searchText = query
        await viewModel.fetchUsers(limit: limit)
        try check(viewModel.error)
        let users = viewModel.searchableUsers
        let empty =
            query.isEmpty
            ? "Nobody is here yet. Register with: tweetcli register --email E --username U --fullname F\n"
            : "No users match \"\(query)\".\n"
        try context.emit(users, human: users.isEmpty ? empty : users.map(context.userRenderer.row).joined())
    }
}
