import TweetCore
import TweetStore

struct LogoutCommand: Command {
    static let name = "logout"
    static let usage = "logout"
    static let summary = "Sign out"

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = AuthViewModel(services: try context.services())
        try await viewModel.signOut()
        try context.emit(["signedIn": false], human: "Signed out.\n")
    }
}

struct WhoamiCommand: Command {
    static let name = "whoami"
    static let usage = "whoami"
    static let summary = "Show the signed-in user"

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        _ = try list.positionals(atMost: 0)
    }

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
