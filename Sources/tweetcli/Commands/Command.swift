import Foundation
import TweetCore

/// One subcommand: parse, validate, run (swift-argument-parser's shape, without the package).
@MainActor
protocol Command {
    /// The name typed after `tweetcli`.
    static var name: String { get }
    /// The usage line, without "tweetcli".
    static var usage: String { get }
    /// One line for `tweetcli help`.
    static var summary: String { get }
    /// Whether the command may create the store when there is none (only `register` and `seed`).
    static var createsStore: Bool { get }

    /// Parses the command's own arguments.
    /// - Throws: ``UsageError``.
    init(arguments: [String]) throws
    /// Checks values that parse but cannot be right.
    func validate() throws
    /// Builds one view model, runs it and renders its state.
    func run(_ context: Context) async throws
}

extension Command {
    func validate() throws {}

    static var createsStore: Bool { false }
}

/// What a command runs with: the global options, the store's services, the terminal.
@MainActor
final class Context {
    let options: GlobalOptions
    let terminal: Terminal
    let environment: [String: String]
    private var opened: AppServices?

    /// Whether the running command may create a missing store.
    let createsStore: Bool

    init(options: GlobalOptions, terminal: Terminal, environment: [String: String], createsStore: Bool) {
        self.options = options
        self.terminal = terminal
        self.environment = environment
        self.createsStore = createsStore
    }

    /// The services of the selected store, opened on first use.
    func services() throws -> AppServices {
        if let opened { return opened }
        // TWEETCLI_FOLD_THRESHOLD tunes how often the journal is folded (the safety tests fold often).
        let threshold = environment["TWEETCLI_FOLD_THRESHOLD"].flatMap(Int.init).map { max(1, $0) } ?? 128
        let services = try AppServices.local(
            storeDirectory: AppPaths.storeDirectory(option: options.storePath, environment: environment),
            stateDirectory: AppPaths.stateDirectory(environment: environment), foldThreshold: threshold,
            createIfMissing: createsStore)
        opened = services
        return services
    }

    var style: Style { Style(enabled: terminal.usesColor(options.color)) }

    var tweetRenderer: TweetRenderer { TweetRenderer(style: style, width: terminal.width, now: Date()) }

    var userRenderer: UserRenderer { UserRenderer(style: style, width: terminal.width) }

    /// Prints `value` as JSON with `--json`, else the human text.
    func emit(_ value: some Encodable, human: @autoclosure () -> String) throws {
        Output.write(options.json ? try JSONOutput.render(value) : human())
    }
}

/// A view model's `error`, thrown so the entry point reports it and exits 1.
func check(_ error: (any Error)?) throws {
    if let error { throw error }
}
