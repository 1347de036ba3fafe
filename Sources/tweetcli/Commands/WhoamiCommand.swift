import TweetCore

struct WhoamiCommand: Command {
    static let name = "whoami"
    static let usage = "whoami"
    static let summary = "Show the signed-in user"

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = AuthViewModel(services: try context.services())
        await viewModel.fetchUser()
        try check(viewModel.error)
        guard let user = viewModel.currentUser else { throw AuthError.notSignedIn }
        try context.emit(user, human: context.userRenderer.row(user))
    }
}
