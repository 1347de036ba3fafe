import FoundationEssentials
import TweetCore
import TweetStore

/// `block` and `unblock`: one account, one `SafetyViewModel` action.
protocol BlockingCommand: Command {
    var reference: String { get }
    init(reference: String)
    static var blocks: Bool { get }
}

extension BlockingCommand {
    var commits: Bool { true }
    static var completes: Completion { .users }
    static var usage: String { "\(name) @USERNAME" }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        guard let reference = try list.positionals(atMost: 1).first?.trimmed(), !reference.isEmpty else {
            throw UsageError("\(Self.name) needs the @username of an account", usage: Self.usage)
        }
        self.init(reference: reference)
    }

    func run(_ context: Context) async throws {
        let viewModel = SafetyViewModel(services: try context.services())
        try await viewModel.setBlocked(Self.blocks, reference: reference)
        guard let user = viewModel.user else { return }
        let name = context.userRenderer.name(user)
        let sentence: TerminalText
        switch (Self.blocks, viewModel.changed) {
        case (true, true):
            sentence = "You blocked \(name). Neither of you follows the other now, and they cannot see or reach you."
        case (true, false): sentence = "You already block \(name)."
        case (false, true): sentence = "You unblocked \(name). Follows the block ended stay ended."
        case (false, false): sentence = "You were not blocking \(name); nothing changed."
        }
        try context.emit(
            SafetyJSON(user: user, blocked: Self.blocks, changed: viewModel.changed), human: sentence + "\n")
    }
}

struct BlockCommand: BlockingCommand {
    static let name = "block"
    static let summary = "Block an account: no follows either way, and neither sees or reaches the other"
    static let blocks = true
    var reference: String
}

struct UnblockCommand: BlockingCommand {
    static let name = "unblock"
    static let summary = "Unblock an account"
    static let blocks = false
    var reference: String
}

/// The `block --json` and `unblock --json` shape.
struct SafetyJSON: Encodable {
    var user: User
    var blocked: Bool
    var changed: Bool
}

/// `mute` and `unmute`: an account (`@user`), a hashtag (`#tag`) or words (`--word`).
protocol MutingCommand: Command {
    var target: MuteArgument { get }
    var duration: TimeInterval? { get }
    init(target: MuteArgument, duration: TimeInterval?)
    static var mutes: Bool { get }
}

/// What `mute` and `unmute` name.
enum MuteArgument: Equatable {
    case account(String)
    case words(String)
}

extension MutingCommand {
    var commits: Bool { true }
    static var completes: Completion { .users }

    static var usage: String {
        "\(name) @USERNAME | \(name) '#HASHTAG' | \(name) --word WORDS" + (mutes ? " [--for 24h|7d|30d]" : "")
    }

    static var options: [Option] {
        [Option("--word", value: "WORDS", "hide tweets with these words (as search matches them) instead")]
            + (mutes ? [Option("--for", value: "DURATION", "for a while only: hours or days, as 24h, 7d or 30d")] : [])
    }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        let word = try list.option("--word")
        var duration: TimeInterval?
        if Self.mutes, let text = try list.option("--for") { duration = try Self.duration(text) }
        let positionals = try list.positionals(atMost: 1)
        if let word {
            guard positionals.isEmpty else {
                throw UsageError("\(Self.name) takes --word or an account, not both", usage: Self.usage)
            }
            guard !word.trimmed().isEmpty else { throw UsageError("--word needs a word", usage: Self.usage) }
            self.init(target: .words(word.trimmed()), duration: duration)
            return
        }
        guard let reference = positionals.first?.trimmed(), !reference.isEmpty else {
            throw UsageError(
                "\(Self.name) needs an @username, a '#hashtag' (quoted, or the shell drops it) or --word",
                usage: Self.usage)
        }
        self.init(target: reference.hasPrefix("#") ? .words(reference) : .account(reference), duration: duration)
    }

    /// Seconds from `24h` or `7d`: whole hours or days, from an hour to a year.
    static func duration(_ text: String) throws -> TimeInterval {
        let unit = text.last
        guard let unit, unit == "h" || unit == "d", let count = Int(text.dropLast()), count > 0,
            count <= (unit == "h" ? 24 * 365 : 365)
        else {
            throw UsageError(
                "--for takes whole hours or days, from 1h to 365d (as 24h, 7d or 30d), not '\(text)'",
                usage: usage)
        }
        return TimeInterval(count) * (unit == "h" ? 3600 : 86_400)
    }

    func run(_ context: Context) async throws {
        let viewModel = SafetyViewModel(services: try context.services())
        let shown: TerminalText
        do {
            switch (target, Self.mutes) {
            case (.account(let reference), true): try await viewModel.muteAccount(reference, for: duration)
            case (.account(let reference), false): try await viewModel.unmuteAccount(reference)
            case (.words(let text), true): try await viewModel.muteWords(text, for: duration)
            case (.words(let text), false): try await viewModel.unmuteWords(text)
            }
        } catch UserError.notFound(let reference) where !reference.hasPrefix("@") {
            // A bare word was taken for a username; it may well have been meant as a word.
            throw CommandFailure(
                "there is no user \(reference)",
                hint: "\(Self.name) the word with: \(context.suggest("\(Self.name) --word \(reference)"))")
        }
        if let user = viewModel.user {
            shown = context.userRenderer.name(user)
        } else if case .words(let text) = target {
            shown = TerminalText("“\(text)”")
        } else {
            return
        }
        let until = duration.map { " for \(Self.spoken($0))" } ?? ""
        let sentence: TerminalText
        switch (Self.mutes, viewModel.changed) {
        case (true, true):
            sentence = "You muted \(shown)\(until)." + (viewModel.user == nil ? "" : " They are not told.")
        case (true, false): sentence = "You already mute \(shown)\(until)."
        case (false, true): sentence = "You unmuted \(shown)."
        case (false, false): sentence = "You were not muting \(shown); nothing changed."
        }
        try context.emit(
            MuteJSON(
                user: viewModel.user, words: viewModel.user == nil ? target.words : nil, muted: Self.mutes,
                seconds: duration.map { Int($0) }, changed: viewModel.changed),
            human: sentence + "\n")
    }

    /// "24 hours", "7 days", "1 day".
    static func spoken(_ seconds: TimeInterval) -> String {
        let hours = Int(seconds / 3600)
        return hours % 24 == 0 ? counted(hours / 24, "day") : counted(hours, "hour")
    }
}

extension MuteArgument {
    var words: String? {
        if case .words(let text) = self { return text }
        return nil
    }
}

struct MuteCommand: MutingCommand {
    static let name = "mute"
    static let summary = "Hide an account's tweets, or tweets with a word or #hashtag, from your feeds and searches"
    static let mutes = true
    var target: MuteArgument
    var duration: TimeInterval?
}

struct UnmuteCommand: MutingCommand {
    static let name = "unmute"
    static let summary = "Unmute an account, a word or a #hashtag"
    static let mutes = false
    var target: MuteArgument
    var duration: TimeInterval?
}

/// The `mute --json` and `unmute --json` shape.
struct MuteJSON: Encodable {
    var user: User?
    var words: String?
    var muted: Bool
    var seconds: Int?
    var changed: Bool
}

/// `blocks`: the accounts you block.
struct BlocksCommand: ArgumentlessCommand {
    static let name = "blocks"
    static let usage = "blocks"
    static let summary = "List the accounts you block"

    func run(_ context: Context) async throws {
        let viewModel = SafetyViewModel(services: try context.services())
        try await viewModel.loadBlocks()
        let rows = viewModel.blocked.map { ListedJSON(account: $0) }
        var text: TerminalText = rows.isEmpty ? "You block no one.\n" : ""
        for account in viewModel.blocked {
            text = text + Self.row(account, context) + "\n"
        }
        try context.emit(rows, human: text)
    }

    static func row(_ account: SafetyService.ListedAccount, _ context: Context, until: Date? = nil) -> TerminalText {
        let name = account.user.map { context.userRenderer.name($0) } ?? TerminalText("(a deleted account)")
        let time = RelativeTime(environment: context.environment)
        let since = TerminalText.dim(" · since " + time.string(for: account.since, now: Date()))
        let end = until.map { TerminalText.dim(" · until " + MutesCommand.readable($0)) } ?? ""
        return name + since + end
    }
}

/// `mutes`: the accounts and words you mute, and until when.
struct MutesCommand: ArgumentlessCommand {
    static let name = "mutes"
    static let usage = "mutes"
    static let summary = "List the accounts, words and hashtags you mute"

    func run(_ context: Context) async throws {
        let viewModel = SafetyViewModel(services: try context.services())
        try await viewModel.loadMutes()
        let json = MutesJSON(
            accounts: viewModel.mutedAccounts.map { ListedJSON(account: $0) },
            words: viewModel.mutedWords.map {
                MutesJSON.Word(text: $0.text, since: $0.mute.since, until: $0.mute.until)
            }
        )
        var text: TerminalText = ""
        if viewModel.mutedAccounts.isEmpty && viewModel.mutedWords.isEmpty { text = "You mute nothing.\n" }
        for account in viewModel.mutedAccounts {
            text = text + BlocksCommand.row(account, context, until: account.until) + "\n"
        }
        for (words, mute) in viewModel.mutedWords {
            let end = mute.until.map { TerminalText.dim(" · until " + MutesCommand.readable($0)) } ?? ""
            text = text + TerminalText("“\(words)”") + end + "\n"
        }
        try context.emit(json, human: text)
    }
}

extension MutesCommand {
    /// "2026-12-07 02:00 UTC": when a mute ends.
    static func readable(_ date: Date) -> String {
        let text = Timestamp.string(from: date)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5)) + " UTC"
    }
}

/// An account in `blocks --json` and `mutes --json`.
struct ListedJSON: Encodable {
    var uid: String
    var user: User?
    var since: Date
    var until: Date?

    init(account: SafetyService.ListedAccount) {
        uid = account.uid
        user = account.user
        since = account.since
        until = account.until
    }
}

/// The `mutes --json` shape.
struct MutesJSON: Encodable {
    struct Word: Encodable {
        var text: String
        var since: Date
        var until: Date?
    }

    var accounts: [ListedJSON]
    var words: [Word]
}
