import TweetCore

struct LoginCommand: Command {
    static let name = "login"
    static let usage = "login (--email E | --username U) [--password-stdin]"
    static let summary = "Sign in by email or username"

    var identifier: AuthService.Identifier
    var passwordFromStdin: Bool

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        passwordFromStdin = list.flag("--password-stdin")
        let email = try list.option("--email")
        let username = try list.option("--username")
        _ = try list.positionals(atMost: 0)
        switch (email, username) {
        case (let email?, nil): identifier = .email(email)
        case (nil, let username?): identifier = .username(username)
        default: throw UsageError("login needs either --email or --username", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let password =
            passwordFromStdin ? try PasswordReader.readLineFromStdin() : try PasswordReader.prompt("Password: ")
        let viewModel = AuthViewModel(services: try context.services())
        await viewModel.login(identifier, password: password)
        try check(viewModel.error)
        guard let user = viewModel.currentUser else { return }
        try context.emit(user, human: "Signed in as \(user.fullname) (@\(user.username)).\n")
    }
}
