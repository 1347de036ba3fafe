import FoundationEssentials
import TweetCore
import TweetStore

/// `delete-account`: the signed-in account and everything of it, for good, once its password is
/// given. The question says how to keep the tweets first.
struct DeleteAccountCommand: Command {
    static let name = "delete-account"
    static let usage = "delete-account [--password-stdin]"
    static let summary = "Delete your account and all it holds, for good (asks for your password)"
    static let options = [Option.passwordStdin]

    var passwordFromStdin: Bool

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        passwordFromStdin = try list.flag("--password-stdin")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = DeleteAccountViewModel(services: try context.services())
        try await viewModel.load()
        guard let user = viewModel.user, let stats = viewModel.stats else { return }
        let password: String
        if passwordFromStdin {
            password = try Prompt.passwordFromStdin()
        } else {
            guard context.terminal.isStdinTerminal else {
                throw CommandFailure(
                    "there is no terminal to ask for your password on; nothing was deleted",
                    hint: "give it on standard input with: \(context.suggest("delete-account --password-stdin"))")
            }
            let keep = context.suggest("export --twtxt > my-tweets.txt")
            let tweets = counted(stats.tweets, "tweet")
            var question: TerminalText = "This deletes " + context.userRenderer.name(user)
            question += TerminalText(" for good: \(tweets), and every like, retweet, bookmark, follow and notification")
            question += TerminalText(" of yours.") + "\n" + TerminalText("Keep your tweets first with: \(keep)") + "\n"
            Output.writeError(context.screen.render(question))
            password = try Prompt.password("Your password, to delete the account (Ctrl-C to keep it): ")
        }
        try await viewModel.delete(password: password)
        guard let report = viewModel.report else { return }
        let parts = [
            counted(report.tweets, "tweet"), counted(report.retweets, "retweet"), counted(report.likes, "like"),
            counted(report.bookmarks, "bookmark"), counted(report.follows, "follow"),
        ]
        try context.emit(
            report,
            human: TerminalText(
                "Deleted @\(user.username) with \(parts.joined(separator: ", ")). You are signed out of it.") + "\n")
    }
}
