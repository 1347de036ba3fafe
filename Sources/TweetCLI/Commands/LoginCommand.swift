import TweetCore
import TweetStore

struct LoginCommand: Command {
    static let name = "login"
    static let usage = "login (--email E | --username U) [--password-stdin]"
    static let summary = "Sign in by email or username"
    static let options = [
        Option("--email", value: "E", "the account's email"),
        Option("--username", value: "U", "the account's @username"),
        .passwordStdin,
    ]

    var identifier: AuthService.Identifier
    var passwordFromStdin: Bool

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        passwordFromStdin = try list.flag("--password-stdin")
        let email = try list.option("--email")
        let username = try list.option("--username")
        _ = try list.positionals(atMost: 0)
        switch (email, username) {
        case (let email?, nil): identifier = .email(email)
        case (nil, let username?): identifier = .username(username)
        case (nil, nil): throw UsageError("login needs --email or --username", usage: Self.usage)
        case (_?, _?): throw UsageError("give one of --email and --username, not both", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let password = passwordFromStdin ? try Prompt.passwordFromStdin() : try Prompt.password("Password: ")
        let viewModel = AuthViewModel(services: try context.services())
        try await viewModel.login(identifier, password: password)
        guard let user = viewModel.currentUser else { return }
        try context.emit(user, human: "Signed in as \(UserRenderer().name(user)).\n")
    }
}
