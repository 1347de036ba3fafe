import TweetCore
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// `login`: signs an account in on this device, as the active one, beside any signed in already.
struct LoginCommand: Command {
    static let name = "login"
    static let usage = "login [USERNAME | EMAIL] [--email E | --username U] [--password-stdin]"
    static let summary = "Sign in by username or email (asks for what is missing on a terminal)"
    static let options = [
        Option("--email", value: "E", "the account's email"),
        Option("--username", value: "U", "the account's @username"),
        .passwordStdin,
    ]

    /// The account, when the command line names it.
    var identifier: AuthService.Identifier?
    var passwordFromStdin: Bool

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        passwordFromStdin = try list.flag("--password-stdin")
        let email = try list.option("--email")
        let username = try list.option("--username")
        let named = try list.positionals(atMost: 1).first
        switch (email, username, named) {
        case (let email?, nil, nil): identifier = .email(email)
        case (nil, let username?, nil): identifier = .username(username)
        case (nil, nil, let named?): identifier = Self.identifier(named)
        case (nil, nil, nil): identifier = nil
        default:
            throw UsageError("name the account once: a USERNAME, an EMAIL, --email or --username", usage: Self.usage)
        }
    }

    /// `ada@example.com` is an email; `ada` and `@ada` are usernames.
    static func identifier(_ text: String) -> AuthService.Identifier {
        let text = text.trimmed()
        return text.dropFirst().contains("@") ? .email(text) : .username(text)
    }

    func run(_ context: Context) async throws {
        let interactive = context.terminal.isStdinTerminal && !passwordFromStdin
        let asked = interactive && identifier == nil ? Self.identifier(try Prompt.line("Username or email: ")) : nil
        guard let identifier = identifier ?? asked else {
            throw UsageError("login needs a USERNAME or EMAIL when there is no terminal to ask on", usage: Self.usage)
        }
        let password = passwordFromStdin ? try Prompt.passwordFromStdin() : try Prompt.password("Password: ")
        let viewModel = AuthViewModel(services: try context.services())
        try await viewModel.login(identifier, password: password)
        guard let user = viewModel.currentUser else { return }
        try context.emit(user, human: "Signed in as \(UserRenderer().name(user)).\n")
    }
}
