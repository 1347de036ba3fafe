import TweetCore
import TweetStore

/// `help [COMMAND]`: the overview, or one command's options.
struct HelpCommand: Command {
    static let readsConfig = false
    static let name = "help"
    static let usage = "help [COMMAND]"
    static let summary = "Show the commands, or one command's options"
    static var completes: Completion { .choices(CommandLineTool.commands.map { $0.name }) }

    var topic: String?

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments.filter { $0 != "-h" && $0 != "--help" })
        // `help -h` is help about help, as `help help` is.
        topic = try list.positionals(atMost: 1).first ?? (arguments.isEmpty ? nil : Self.name)
    }

    func validate() throws {
        if let topic, CommandLineTool.command(named: topic) == nil {
            throw UsageError("unknown command '\(topic)'; run 'tweetcli help' to see the commands", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let width = context.terminal.width
        let text =
            topic.flatMap(CommandLineTool.command(named:)).map { HelpText.help(for: $0, width: width) }
            ?? HelpText.overview(width: width)
        try context.screen.write(TerminalText(stringLiteral: text))
    }
}

/// `version` and `--version`.
struct VersionCommand: ArgumentlessCommand {
    static let readsConfig = false
    static let name = "version"
    static let usage = "version"
    static let summary = "Print tweetcli's version"

    func run(_ context: Context) async throws {
        try context.emit(["version": CommandLineTool.version], human: "tweetcli \(CommandLineTool.version)\n")
    }
}

/// `completions bash|zsh|fish`: a completion script, generated from the command table.
struct CompletionsCommand: Command {
    static let readsConfig = false
    static let name = "completions"
    static let usage = "completions bash|zsh|fish"
    static let summary = "Print a shell completion script (bash: source <(tweetcli completions bash))"
    static let completes = Completion.choices(ShellCompletions.Shell.allCases.map(\.rawValue))

    var shell: ShellCompletions.Shell

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        let values = try list.positionals(atMost: 1)
        guard let name = values.first else {
            throw UsageError("completions needs bash, zsh or fish", usage: Self.usage)
        }
        guard let shell = ShellCompletions.Shell(rawValue: name) else {
            throw UsageError("completions are for bash, zsh or fish, not '\(name)'", usage: Self.usage)
        }
        self.shell = shell
    }

    func run(_ context: Context) async throws {
        try Output.write(ShellCompletions.script(for: shell))
    }
}

/// `manpage`: the man page in roff (`tweetcli manpage > ~/.local/share/man/man1/tweetcli.1`).
struct ManpageCommand: ArgumentlessCommand {
    static let readsConfig = false
    static let name = "manpage"
    static let usage = "manpage"
    static let summary = "Print the man page in roff (tweetcli manpage | man -l -)"

    func run(_ context: Context) async throws {
        try Output.write(ManPage.page())
    }
}

/// `config list|get KEY|set KEY VALUE|unset KEY`: the settings in the config file.
struct ConfigCommand: Command {
    static let readsConfig = false
    static let name = "config"
    static let usage = "config list | get KEY | set KEY VALUE | unset KEY"
    static let summary =
        "Show or change the settings in ~/.config/tweetcli/config (store, color, limit, PostgreSQL timeouts)"
    static let completes = Completion.choices(["list", "get", "set", "unset"])

    enum Action: Equatable {
        case list
        case get(ConfigFile.Key)
        case set(ConfigFile.Key, String)
        /// A key name, known or not: unsetting a mistyped key mends the file.
        case unset(String)
    }

    var action: Action

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        let values = try list.positionals()
        func key(_ index: Int) throws -> ConfigFile.Key {
            guard index < values.count else { throw UsageError("config \(values[0]) needs a KEY", usage: Self.usage) }
            guard let key = ConfigFile.Key(rawValue: values[index]) else {
                throw UsageError(
                    "unknown key '\(values[index])'; the keys are "
                        + ConfigFile.Key.allCases.map(\.rawValue).joined(separator: ", "), usage: Self.usage)
            }
            return key
        }
        let counts = ["list": 1, "get": 2, "set": 3, "unset": 2]
        guard let verb = values.first ?? Optional("list"), let count = counts[verb] else {
            throw UsageError("config takes list, get, set or unset, not '\(values[0])'", usage: Self.usage)
        }
        guard values.count <= max(count, 1) else {
            throw UsageError("unexpected argument '\(values[count])'", usage: Self.usage)
        }
        switch verb {
        case "get": action = .get(try key(1))
        case "unset":
            guard values.count == 2 else { throw UsageError("config unset needs a KEY", usage: Self.usage) }
            action = .unset(values[1])
        case "set":
            let key = try key(1)
            guard values.count == 3 else { throw UsageError("config set needs a KEY and a VALUE", usage: Self.usage) }
            if let problem = key.problem(with: values[2]) { throw UsageError(problem, usage: Self.usage) }
            action = .set(key, values[2])
        default: action = .list
        }
    }

    /// The value `key` has for a command run now, and where it comes from: the file, the
    /// environment, or tweetcli's default.
    static func effective(_ key: ConfigFile.Key, file: ConfigFile, environment: [String: String]) -> (
        value: String, source: String
    ) {
        if let value = file[key] { return (value, "set in \(file.path)") }
        let unset = "not set in \(file.path)"
        switch key {
        case .store:
            if let store = environment["TWEETCLI_STORE"], !store.isEmpty {
                return (store, "from $TWEETCLI_STORE; \(unset)")
            }
            return (AppPaths.storeDirectory(option: nil, environment: environment), "the default; \(unset)")
        case .color:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return ("never", "from $NO_COLOR; \(unset)") }
            return (ColorChoice.auto.rawValue, "the default; \(unset)")
        case .images:
            return (ImageChoice.auto.rawValue, "the default; \(unset)")
        case .limit:
            return (String(Limits.defaultPage), "the default; \(unset)")
        case .postgresConnectTimeout, .postgresStatementTimeout, .postgresLockTimeout:
            if key == .postgresConnectTimeout, let seconds = environment["PGCONNECT_TIMEOUT"], !seconds.isEmpty {
                return (seconds, "from $PGCONNECT_TIMEOUT; \(unset)")
            }
            return (String(key.defaultSeconds ?? 0), "the default; \(unset)")
        }
    }

    func run(_ context: Context) async throws {
        // Lenient, so a file with a bad line can still be listed and mended from here.
        var file = try ConfigFile(path: ConfigFile.path(environment: context.environment), lenient: true)
        for problem in file.problems {
            Output.writeError("warning: " + TerminalText.neutralize(problem, multiline: false) + "\n")
        }
        switch action {
        case .list:
            try context.emit(
                Dictionary(file.entries.map { ($0.key.rawValue, $0.value) }) { _, last in last },
                human: file.entries.isEmpty
                    ? "No settings in \(file.path). The keys are: \(ConfigFile.Key.allCases.map(\.rawValue).joined(separator: ", ")).\n"
                    : TerminalText(file.text, multiline: true))
        case .get(let key):
            let (value, source) = Self.effective(key, file: file, environment: context.environment)
            try context.emit(
                [key.rawValue: value, "source": source],
                human: TerminalText(value) + context.hint(.dim("  (\(source))")) + "\n")
        case .set(let key, let value):
            file.set(key, value)
            try file.save()
            try context.emit([key.rawValue: value], human: "\(key.rawValue) = \(value)\n")
        case .unset(let name):
            file.unset(name)
            try file.save()
            try context.emit(["unset": name], human: "\(name) is no longer set.\n")
        }
    }
}
