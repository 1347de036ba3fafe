import TweetCore
import TweetStore

struct RegisterCommand: Command {
    static let name = "register"
    static let usage = "register --email E --username U --fullname F [--password-stdin]"
    static let summary = "Create an account and sign in"
    static let createsStore = true
    static let options = [
        Option("--email", value: "E", "your email, to sign in with (only you see it)"),
        Option("--username", value: "U", "your @username: 1–15 letters, digits or underscores"),
        Option("--fullname", value: "F", "your name as others see it, 1–50 characters"), .passwordStdin,
    ]

    var email: String
    var username: String
    var fullname: String
    var passwordFromStdin: Bool

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        passwordFromStdin = try list.flag("--password-stdin")
        let email = try list.option("--email")
        let username = try list.option("--username")
        let fullname = try list.option("--fullname")
        _ = try list.positionals(atMost: 0)
        guard let email, let username, let fullname else {
            throw UsageError("register needs --email, --username and --fullname", usage: Self.usage)
        }
        (self.email, self.username, self.fullname) = (email, username, fullname)
    }

    func run(_ context: Context) async throws {
        let password: String
        if passwordFromStdin {
            password = try Prompt.passwordFromStdin()
        } else {
            password = try Prompt.password("Password (at least \(AuthService.minimumPasswordLength) characters): ")
            guard password.count >= AuthService.minimumPasswordLength else { throw AuthError.passwordTooShort }
            guard try Prompt.password("Repeat the password: ") == password else {
                throw CommandFailure("the two passwords differ; nothing was registered")
            }
        }
        let viewModel = AuthViewModel(services: try context.services())
        try await viewModel.register(email: email, password: password, fullname: fullname, username: username)
        guard let user = viewModel.currentUser else { return }
        try context.emit(
            user,
            human: "Welcome, \(user.fullname)! You are signed in as @\(user.username).\n"
                + "Post your first tweet with: \(context.suggest("post \"Hello, world\""))\n")
    }
}
