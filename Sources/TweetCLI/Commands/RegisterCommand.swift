import TweetCore
import TweetStore

struct RegisterCommand: Command {
    static let name = "register"
    static let usage = "register [--email E] [--username U] [--fullname F] [--password-stdin]"
    static let summary = "Create an account and sign in (asks for what is missing on a terminal)"
    static let createsStore = true
    static let options = [
        Option("--email", value: "E", "your email, to sign in with (only you see it)"),
        Option("--username", value: "U", "your @username: 1–15 letters, digits or underscores"),
        Option("--fullname", value: "F", "your name as others see it, 1–50 characters"), .passwordStdin,
    ]

    var email: String?
    var username: String?
    var fullname: String?
    var passwordFromStdin: Bool

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        passwordFromStdin = try list.flag("--password-stdin")
        let email = try list.option("--email")
        let username = try list.option("--username")
        let fullname = try list.option("--fullname")
        _ = try list.positionals(atMost: 0)
        (self.email, self.username, self.fullname) = (email, username, fullname)
    }

    func run(_ context: Context) async throws {
        // On a terminal, what the command line left out is asked for; without one, a usage error.
        let interactive = context.terminal.isStdinTerminal && !passwordFromStdin
        guard interactive || (email != nil && username != nil && fullname != nil) else {
            throw UsageError(
                "register needs --email, --username and --fullname when there is no terminal to ask on",
                usage: Self.usage)
        }
        let email = try self.email ?? Prompt.line("Email: ")
        let username = try self.username ?? Prompt.line("Username (1–15 letters, digits or _): ")
        let fullname = try self.fullname ?? Prompt.line("Full name: ")
        let password =
            passwordFromStdin
            ? try Prompt.passwordFromStdin() : try Prompt.newPassword(minimumLength: AuthService.minimumPasswordLength)
        let viewModel = AuthViewModel(services: try context.services())
        try await viewModel.register(email: email, password: password, fullname: fullname, username: username)
        guard let user = viewModel.currentUser else { return }
        try context.emit(
            user,
            human: "Welcome, \(user.fullname)! You are signed in as @\(user.username).\n"
                + "Post your first tweet with: \(context.suggest("post \"Hello, world\""))\n")
    }
}
