import TweetCore
import TweetStore

struct LogoutCommand: Command {
    static let name = "logout"
    static let usage = "logout [--all]"
    static let summary = "Sign out the active account (--all: every account)"
    static let options = [Option("--all", "sign out every account signed in on this device")]

    var all: Bool

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        all = try list.flag("--all")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = AuthViewModel(services: try context.services())
        if all {
            try await viewModel.signOutAll()
            return try context.emit(["signedIn": false], human: "Signed out of every account.\n")
        }
        try await viewModel.signOut()
        guard let active = viewModel.activeAfterSignOut else {
            return try context.emit(["signedIn": false], human: "Signed out.\n")
        }
        try context.emit(["active": active], human: "Signed out. Active now: \(TerminalText("@" + active)).\n")
    }
}

/// `accounts`: the accounts signed in on this device, the active one marked (`gh auth status`).
struct AccountsCommand: ArgumentlessCommand {
    static let name = "accounts"
    static let usage = "accounts"
    static let summary = "List the accounts signed in here; switch between them with switch"

    func run(_ context: Context) async throws {
        let viewModel = AuthViewModel(services: try context.services())
        try await viewModel.loadAccounts()
        let accounts = viewModel.accounts
        guard !accounts.isEmpty else {
            return try context.emit(
                [AccountJSON](),
                human: context.hint("No account is signed in here. Sign in with: \(context.suggest("login"))\n"))
        }
        var text = TerminalText()
        for account in accounts {
            text += account.isActive ? "* " : "  "
            let name = "@" + (account.username ?? account.uid)
            text += account.isActive ? .bold(name) : TerminalText(name)
            if !account.isSignedIn { text += .dim("  (session ended: sign in again)") }
            text += "\n"
        }
        try context.emit(accounts.map(AccountJSON.init), human: text)
    }

    struct AccountJSON: Encodable {
        var uid: String
        var username: String?
        var active: Bool
        var signedIn: Bool

        init(_ account: AuthService.Account) {
            (uid, username, active, signedIn) = (account.uid, account.username, account.isActive, account.isSignedIn)
        }
    }
}

/// `switch @user`: makes another signed-in account the active one, without a password.
struct SwitchCommand: Command {
    static let name = "switch"
    static let usage = "switch @USERNAME"
    static let summary = "Make another account signed in here the active one"

    var username: String

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        guard let username = try list.positionals(atMost: 1).first?.trimmed(), !username.isEmpty else {
            throw UsageError("switch needs the @username of an account signed in here", usage: Self.usage)
        }
        self.username = username
    }

    func run(_ context: Context) async throws {
        let viewModel = AuthViewModel(services: try context.services())
        try await viewModel.switchAccount(to: username)
        guard let user = viewModel.currentUser else { throw AuthError.sessionEnded(username) }
        try context.emit(user, human: "Active now: \(UserRenderer().name(user)).\n")
    }
}

/// `password`: changes the signed-in account's password; its other sessions are signed out.
struct PasswordCommand: Command {
    static let name = "password"
    static let usage = "password [--password-stdin]"
    static let summary = "Change your password (signs out your other sessions)"
    static let options = [
        Option(
            "--password-stdin", "read the current password, then the new one, a line each, from standard input")
    ]

    var passwordFromStdin: Bool

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        passwordFromStdin = try list.flag("--password-stdin")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = AuthViewModel(services: try context.services())
        let current: String
        let new: String
        if passwordFromStdin {
            (current, new) = (try Prompt.passwordFromStdin(), try Prompt.passwordFromStdin())
        } else {
            current = try Prompt.password("Current password: ")
            new = try Prompt.newPassword(minimumLength: AuthService.minimumPasswordLength, label: "New password")
        }
        try await viewModel.changePassword(current: current, new: new)
        let ended = viewModel.sessionsEnded
        try context.emit(
            ["signedOutSessions": ended],
            human: "Password changed."
                + (ended > 0 ? " Signed out \(counted(ended, "other session")).\n" : "\n"))
    }
}

struct WhoamiCommand: ArgumentlessCommand {
    static let name = "whoami"
    static let usage = "whoami"
    static let summary = "Show the signed-in user"

    func run(_ context: Context) async throws {
        let viewModel = AuthViewModel(services: try context.services())
        try await viewModel.fetchUser()
        guard let user = viewModel.currentUser else { throw AuthError.notSignedIn }
        let email: TerminalText = user.email.map { "  \(TerminalText.dim($0))" } ?? ""
        var text = context.userRenderer.row(user, trailing: email)
        let unread = viewModel.unreadNotifications
        if unread > 0 {
            text += context.hint(
                "\(unread) new notification\(unread == 1 ? "" : "s"): \(context.suggest("notifications"))\n")
        }
        try context.emit(WhoamiJSON(user: user, unreadNotifications: unread), human: text)
    }
}

/// `whoami --json`: the user's fields and the unread count.
struct WhoamiJSON: Encodable {
    let user: User
    let unreadNotifications: Int

    private enum CodingKeys: String, CodingKey { case unreadNotifications }

    func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(unreadNotifications, forKey: .unreadNotifications)
    }
}
