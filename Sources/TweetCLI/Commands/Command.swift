import TweetCore
import TweetStore

/// One subcommand: parse, validate, run (swift-argument-parser's shape, without the package).
@MainActor
protocol Command {
    /// The name typed after `tweetcli`.
    static var name: String { get }
    /// The usage line, without "tweetcli".
    static var usage: String { get }
    /// One line for `tweetcli help`.
    static var summary: String { get }
    /// Every option the command takes, for parsing, help, completions and the man page.
    static var options: [Option] { get }
    /// What the positional arguments complete to: users, tweet IDs, files, a few words, or nothing.
    static var completes: Completion { get }
    /// Whether the command may create the store when there is none (only `register` and `seed`).
    static var createsStore: Bool { get }
    /// Whether the command reads the config file (not help, version, completions, man page, config).
    static var readsConfig: Bool { get }
    /// Whether the command sorts a whole store's worth of entries in memory-bounded runs (seed,
    /// doctor), so that its heap is held to what it uses (``MemoryTuning``). Not import or export:
    /// there mapping each large block anew cost more time than the memory it saved.
    static var movesBulkData: Bool { get }
    /// Whether the command changes the store, so that output lost afterwards must say it was saved.
    var commits: Bool { get }

    /// Parses the command's own arguments.
    /// - Throws: ``UsageError``.
    init(arguments: [String]) throws
    /// Checks values that parse but cannot be right.
    func validate() throws
    /// Builds one view model, runs it and renders its state.
    func run(_ context: Context) async throws
}

/// What a command's positional arguments are, for shell completion.
enum Completion: Sendable {
    case nothing, files, choices([String])
    /// `@username`s of the store.
    case users
    /// The short IDs of the tweets the last listing showed.
    case tweets
}

extension Command {
    func validate() throws {}

    static var createsStore: Bool { false }
    static var readsConfig: Bool { true }
    static var movesBulkData: Bool { false }
    var commits: Bool { false }
    static var options: [Option] { [] }
    static var completes: Completion { .nothing }

    /// The command's arguments, with its options' short names and repeats understood.
    static func arguments(_ arguments: [String]) throws -> ArgumentList {
        try ArgumentList(arguments, options: options, usage: usage)
    }
}

/// A command that takes no arguments of its own: `whoami`, `accounts`, `blocks`.
protocol ArgumentlessCommand: Command {
    init()
}

extension ArgumentlessCommand {
    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        _ = try list.positionals(atMost: 0)
        self.init()
    }
}

/// A failure that is not a usage error: exit 1 with one sentence and no usage line.
struct CommandFailure: Error, Equatable, CustomStringConvertible {
    let description: String
    /// What to do next, if anything helps.
    var hint: String?

    init(_ description: String, hint: String? = nil) {
        self.description = description
        self.hint = hint
    }
}
