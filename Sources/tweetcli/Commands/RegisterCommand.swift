import TweetCore

struct RegisterCommand: Command {
    static let name = "register"
    static let usage = "register --email E --username U --fullname F [--password-stdin]"
    static let summary = "Create an account and sign in"
    static let createsStore = true

    var email: String
    var username: String
    var fullname: String
    var passwordFromStdin: Bool

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        passwordFromStdin = list.flag("--password-stdin")
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
            password = try PasswordReader.readLineFromStdin()
        } else {
            password = try PasswordReader.prompt(
                "Password (at least \(AuthService.minimumPasswordLength) characters): ")
            guard try PasswordReader.prompt("Repeat the password: ") == password else {
                throw UsageError("the two passwords differ; nothing was registered")
            }
        }
        let viewModel = AuthViewModel(services: try context.services())
        await viewModel.register(email: email, password: password, fullname: fullname, username: username)
        try check(viewModel.error)
        guard let user = viewModel.currentUser else { return }
        try context.emit(
            user,
            human: "Welcome, \(user.fullname)! You are signed in as @\(user.username).\n"
                + "Post your first tweet with: tweetcli post \"Hello, world\"\n")
    }
}
