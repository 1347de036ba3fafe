import FoundationEssentials
import TweetCore
import TweetStore

struct ExportCommand: Command {
    static let name = "export"
    static let usage = "export [--twtxt [--user @USERNAME|UID] [--url URL]]"
    static let summary =
        "Print every document as JSON Lines: {\"data\":{…},\"path\":\"collection/id\"}; --twtxt, one account's tweets as a twtxt feed"
    static let options = [
        Option("--twtxt", "print one account's tweets, oldest first, as a twtxt file (twtxt.readthedocs.io)"),
        Option("--user", value: "@USERNAME|UID", "whose tweets --twtxt prints (default: the signed-in user)"),
        Option("--url", value: "URL", "where the twtxt file will be published, for its # url = line"),
    ]

    var twtxt: Bool
    var user: String?
    var url: String?

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        twtxt = try list.flag("--twtxt")
        user = try list.option("--user")
        url = try list.option("--url")
        _ = try list.positionals(atMost: 0)
        if !twtxt && (user != nil || url != nil) {
            throw UsageError("--user and --url go with --twtxt", usage: Self.usage)
        }
        if let url, !(url.hasPrefix("https://") || url.hasPrefix("http://")) || url.contains(where: \.isWhitespace) {
            throw UsageError("--url must be an http:// or https:// address without spaces", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let viewModel = ExportViewModel(services: try context.services())
        if twtxt {
            try await viewModel.exportTwtxt(user: user, url: url) { try Output.write(bytes: $0) }
        } else {
            // Only when the lines go to a file or a pipe: on a terminal they would tear the line.
            let progress = ProgressLine("Exporting")
            let shown = !context.terminal.isStdoutTerminal
            defer { progress.clear() }
            try await viewModel.export {
                try Output.write(bytes: $0)
            } progress: {
                if shown { progress.update($0) }
            }
            progress.clear()
        }
    }
}
