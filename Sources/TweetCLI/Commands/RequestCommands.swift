import FoundationEssentials
import TweetCore
import TweetStore

/// `requests`: who asked to follow your protected account, the newest first.
struct RequestsCommand: Command {
    static let name = "requests"
    static let usage = "requests [--limit N] [--before UID]"
    static let summary = "List the requests to follow your protected account"
    static let options = [.limit("requests"), Option("--before", value: "UID", "the requests older than this one's")]

    var limit: Int?
    var before: String?

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        limit = try list.number("--limit", in: Limits.page)
        before = try list.option("--before")?.trimmed()
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = FollowRequestsViewModel(services: try context.services())
        try await viewModel.load(limit: context.pageLimit(limit), before: before)
        let rows = viewModel.requests.map { RequestJSON(uid: $0.uid, user: $0.user, time: $0.time) }
        try context.emit(rows, human: human(viewModel, context: context))
    }

    private func human(_ viewModel: FollowRequestsViewModel, context: Context) -> TerminalText {
        guard let last = viewModel.requests.last else {
            if before != nil { return "No older requests.\n" }
            return "No one is waiting for an answer.\n"
        }
        let time = RelativeTime(environment: context.environment)
        var text: TerminalText = ""
        for request in viewModel.requests {
            let name = request.user.map { context.userRenderer.name($0) } ?? TerminalText("(a deleted account)")
            text = text + name + .dim(" · " + time.string(for: request.time, now: Date())) + "\n"
        }
        if let first = viewModel.requests.first?.user {
            let approve = context.suggest("approve @" + first.username)
            let deny = context.suggest("deny @" + first.username)
            text += context.hint("\nAnswer with: \(approve) or \(deny)\n")
        }
        if viewModel.hasMore {
            text += context.moreLine("requests", limit: limit, "--before", last.uid)
        }
        return text
    }
}

/// A request in `requests --json`.
struct RequestJSON: Encodable {
    var uid: String
    var user: User?
    var time: Date
}

/// `approve` and `deny`: one request, one `FollowRequestsViewModel` action.
protocol AnsweringCommand: Command {
    var reference: String { get }
    init(reference: String)
    static var approves: Bool { get }
}

extension AnsweringCommand {
    var commits: Bool { true }
    static var completes: Completion { .users }
    static var usage: String { "\(name) @USERNAME" }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        guard let reference = try list.positionals(atMost: 1).first?.trimmed(), !reference.isEmpty else {
            throw UsageError(
                "\(Self.name) needs the @username of an account that asked to follow you", usage: Self.usage)
        }
        self.init(reference: reference)
    }

    func run(_ context: Context) async throws {
        let viewModel = FollowRequestsViewModel(services: try context.services())
        try await viewModel.answer(reference, approving: Self.approves)
        guard let user = viewModel.user else { return }
        let name = context.userRenderer.name(user)
        let sentence: TerminalText =
            Self.approves
            ? "\(name) follows you now, and sees your tweets."
            : "You denied \(name)'s request. They are not told, and may ask again."
        try context.emit(AnswerJSON(user: user, approved: Self.approves), human: sentence + "\n")
    }
}

struct ApproveCommand: AnsweringCommand {
    static let name = "approve"
    static let summary = "Let an account that asked follow your protected account"
    static let approves = true
    var reference: String
}

struct DenyCommand: AnsweringCommand {
    static let name = "deny"
    static let summary = "Turn down a request to follow your protected account"
    static let approves = false
    var reference: String
}

/// The `approve --json` and `deny --json` shape.
struct AnswerJSON: Encodable {
    var user: User
    var approved: Bool
}
