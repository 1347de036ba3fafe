import FoundationEssentials
import TweetCore
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// The entry point: global options, dispatch, and one place that turns errors into exit codes.
@MainActor
public enum CommandLineTool {
    /// tweetcli's version, for `--version`.
    public static let version = "0.9.0"

    /// Every command, in the order `help` lists them: help, the completions and the man page are
    /// generated from this table, so they cannot drift apart.
    static let commands: [any Command.Type] = [
        RegisterCommand.self, LoginCommand.self, LogoutCommand.self, AccountsCommand.self, SwitchCommand.self,
        PasswordCommand.self, DeleteAccountCommand.self, WhoamiCommand.self, PostCommand.self,
        FeedCommand.self, TUICommand.self, ProfileCommand.self, ExploreCommand.self, SearchCommand.self,
        TrendsCommand.self,
        ThreadCommand.self, ShowCommand.self, NotificationsCommand.self,
        BookmarksCommand.self, LikeCommand.self, UnlikeCommand.self, RetweetCommand.self, UnretweetCommand.self,
        BookmarkCommand.self, UnbookmarkCommand.self, DeleteCommand.self, FollowUserCommand.self,
        UnfollowUserCommand.self, BlockCommand.self, UnblockCommand.self, BlocksCommand.self, MuteCommand.self,
        UnmuteCommand.self, MutesCommand.self, RequestsCommand.self, ApproveCommand.self, DenyCommand.self,
        EditProfileCommand.self,
        SeedCommand.self, ExportCommand.self, ImportCommand.self, DoctorCommand.self, CompactCommand.self,
        ReindexCommand.self, AdminCommand.self,
        ConfigCommand.self,
        CompletionsCommand.self,
        ManpageCommand.self, VersionCommand.self, HelpCommand.self,
    ]

    static let globalUsage = "tweetcli [--store PATH] [--json] [--color auto|always|never] [--no-pager] COMMAND"

    /// The environment variables tweetcli reads, and only those: building ProcessInfo's whole
    /// dictionary costs more than the rest of a short command's set-up.
    static let variables = [
        "HOME", "TWEETCLI_STORE", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "NO_COLOR", "TERM",
        "COLUMNS", "PAGER", "VISUAL", "EDITOR", "LANG", "LC_ALL", "LC_TIME", "TWEETCLI_FOLD_THRESHOLD",
        "XDG_CACHE_HOME", "TWEETCLI_TWTXT_TIMEOUT", "TWEETCLI_TWTXT_MAX_AGE", "TWEETCLI_FETCH",
        "TWEETCLI_PHOTO_GRACE",
        // What the terminal says of itself: its colours, and how it draws pictures (Graphics).
        "COLORTERM", "TERM_PROGRAM", "KITTY_WINDOW_ID", "TMUX",
    ]

    /// Runs the process's command line and returns its exit code.
    public static func main(arguments: [String]) async -> Int32 {
        // A closed stdout or a file size limit is an error with a message (EPIPE, EFBIG), not a
        // silent death by signal in the middle of a command.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        var environment = [String: String](minimumCapacity: variables.count)
        for name in variables {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return await run(arguments: arguments, environment: environment)
    }

    /// Runs one command line and returns the exit code: 0, 1 for a failure, 64 for a usage error.
    static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        // Shell completion's hidden entry, before anything that could print an error on the line
        // being edited.
        if let words = CompletionCandidates.words(of: arguments) {
            return await CompletionCandidates.main(words: words, environment: environment)
        }
        var arguments = arguments
        var options = GlobalOptions()
        do {
            options = try GlobalOptions.extract(from: &arguments)
            guard var name = arguments.first else {
                // On a terminal, a first look: the everyday commands, as data the reader asked for.
                // Anywhere else a command is missing: a usage error.
                guard isatty(STDOUT_FILENO) == 1 else {
                    Output.writeError(HelpText.short())
                    return 64
                }
                let width = Terminal(environment: environment).width
                try Output.write(
                    TerminalText(stringLiteral: HelpText.short(width: width)).wrapped(width: width).rendered(
                        color: false))
                return 0
            }
            var rest = Array(arguments.dropFirst())
            if name == "-h" || name == "--help" { name = "help" }
            if name == "--version" || name == "-V" { name = "version" }
            guard let type = command(named: name) else {
                if name.hasPrefix("-") {
                    let known = (GlobalOptions.table + [.help]).map(\.name) + ["--version"]
                    throw UsageError(
                        "unknown option '\(ArgumentList.split(name).0)'"
                            + Suggestion.clause(for: ArgumentList.split(name).0, among: known))
                }
                let names = commands.map { $0.name }
                guard let suggestion = Suggestion.closest(to: name, among: names) else {
                    throw UsageError("unknown command '\(name)'; run 'tweetcli help' to see the commands")
                }
                throw UsageError("unknown command '\(name)'; did you mean '\(suggestion)'?")
            }
            let flags = rest.prefix { $0 != "--" }  // after `--`, "-h" is a caption, not a flag
            if type != HelpCommand.self && (flags.contains("-h") || flags.contains("--help")) {
                (name, rest) = ("help", [type.name])
                return try await run(HelpCommand(arguments: rest), options: options, environment: environment)
            }
            return try await run(type.init(arguments: rest), options: options, environment: environment)
        } catch {
            if let error = error as? OutputError, error.isClosedPipe { return 0 }
            let presentation = ErrorPresenter.present(error, options: options)
            Output.writeError(Terminal.wrappedForStderr(presentation.text))
            return presentation.exitCode
        }
    }

    private static func run(_ command: any Command, options: GlobalOptions, environment: [String: String])
        async throws -> Int32
    {
        try command.validate()
        if type(of: command).movesBulkData { MemoryTuning.holdHeapToUse() }
        // Help, the version, completions, the man page and `config` itself work whatever the file says.
        let config =
            type(of: command).readsConfig
            ? try ConfigFile(path: ConfigFile.path(environment: environment))
            : ConfigFile(empty: ConfigFile.path(environment: environment))
        let context = Context(
            options: options, terminal: Terminal(environment: environment), environment: environment, config: config,
            createsStore: type(of: command).createsStore)
        do {
            try await command.run(context)
            context.saveListing()
        } catch let error as OutputError where error.isClosedPipe {
            // The reader stopped early (`| head`): what it read is what it wanted.
            return 0
        } catch UserError.notFound(let reference) where reference.hasPrefix("@") || reference.utf8.count <= 15 {
            throw await Self.suggestingUser(for: reference, context: context)
        } catch let error as OutputError where command.commits {
            // The change is in the store: say so, since the output that would have shown it is lost.
            throw CommandFailure("the change was saved, but \(error.description)")
        }
        return 0
    }

    /// "there is no user @alan61", with the nearest username as a hint when one is near: read from
    /// the usernames that share its first letter (one range of the username index, bounded).
    private static func suggestingUser(for reference: String, context: Context) async -> any Error {
        let typed = (reference.hasPrefix("@") ? String(reference.dropFirst()) : reference).lowercased()
        let failure = CommandFailure(UserError.notFound(reference).sentence)
        guard let first = typed.first,
            // No suggestion is worth a second error: the sentence about the missing user stands.
            let names = try? await context.services().users.usernames(startingWith: String(first), limit: 500),
            let near = Suggestion.closest(to: typed, among: names)
        else {
            return CommandFailure(failure.description, hint: "find people with: \(context.suggest("explore"))")
        }
        return CommandFailure(failure.description, hint: "did you mean @\(near)?")
    }

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.name == name }
    }
}
