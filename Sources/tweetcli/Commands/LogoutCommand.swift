import TweetCore

struct LogoutCommand: Command {
    static let name = "logout"
    static let usage = "logout"
    static let summary = "Sign out"

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = AuthViewModel(services: try context.services())
        await viewModel.signOut()
        try check(viewModel.error)
        try context.emit(["signedIn": false], human: "Signed out.\n")
    }
}
