import TweetCore

#if canImport(Glibc)
    import Glibc
#endif

/// `tweetcli __complete WORDS... CURRENT`, the hidden command the shell scripts call at each Tab
/// (as gh's `__complete`): the candidates for the word being completed, one a line, each with a
/// tab and a description when it has one. A last line `:files` asks the shell to add file names.
/// It never writes, never prompts and never prints an error: on any failure it offers nothing.
@MainActor
enum CompletionCandidates {
    /// The hidden command's name: not in the command table, so not in help, completions or the man page.
    static let commandName = "__complete"
    /// The most usernames offered: a shell's menu of more helps nobody, and the read stays short.
    static let maximumUsers = 50
    /// The line that asks the shell to complete file names itself.
    static let filesDirective = ":files"

    /// One word to offer, and what it is.
    struct Candidate: Equatable {
        var word: String
        var description = ""
    }

    /// What the word being completed is, worked out from the words before it.
    enum Kind: Equatable {
        /// These words (filtered by what is typed).
        case words([Candidate])
        /// File and directory names, which the shell knows best.
        case files
        /// `@username`s of the store.
        case users
        /// The short IDs of the last listing.
        case tweets
        case nothing
    }

    /// The word being completed, and what completes it.
    struct Analysis: Equatable {
        var kind: Kind
        /// What is typed of the value: after `=` in `--color=al`, else the whole word.
        var typed: String
        /// What goes before each candidate: `--color=` in `--color=al`, else nothing.
        var prefix = ""
        /// `--store` as given on the line, so that usernames come from that store.
        var storePath: String?
    }

    /// The words to complete when `arguments` run the hidden command (after global options, which
    /// stay among the words), else `nil`.
    static func words(of arguments: [String]) -> [String]? {
        var index = 0
        while index < arguments.count {
            let (name, inline) = ArgumentList.split(arguments[index])
            switch name {
            case commandName:
                return Array(arguments[..<index] + arguments[(index + 1)...])
            case "--json", "--no-pager": index += 1
            case "--store", "--color", "--colour": index += inline == nil ? 2 : 1
            default: return nil
            }
        }
        return nil
    }

    /// Works out what `words` (the words after `tweetcli`, the last one being completed) ask for.
    static func analyse(_ words: [String]) -> Analysis {
        let current = words.last ?? ""
        var storePath: String?
        var command: (any Command.Type)?
        var positionals: [String] = []
        var awaiting: Option?
        var afterDashes = false
        for word in words.dropLast() {
            if let option = awaiting {
                if option.name == "--store" { storePath = word }
                awaiting = nil
            } else if afterDashes || word == "-" || !word.hasPrefix("-") {
                guard command != nil else {
                    // An unknown command has no arguments to offer.
                    guard let found = CommandLineTool.command(named: word) else {
                        return Analysis(kind: .nothing, typed: current, storePath: storePath)
                    }
                    command = found
                    continue
                }
                positionals.append(word)
            } else if word == "--" {
                afterDashes = true
            } else {
                let (name, inline) = ArgumentList.split(word)
                if name == "--store", let inline { storePath = inline }
                if let option = option(named: name, of: command), option.value != nil, inline == nil {
                    awaiting = option
                }
            }
        }
        if let option = awaiting {
            return Analysis(kind: value(of: option), typed: current, storePath: storePath)
        }
        if !afterDashes && current.hasPrefix("-") {
            let (name, inline) = ArgumentList.split(current)
            if let inline {
                guard let option = option(named: name, of: command), option.value != nil else {
                    return Analysis(kind: .nothing, typed: current, storePath: storePath)
                }
                return Analysis(kind: value(of: option), typed: inline, prefix: name + "=", storePath: storePath)
            }
            var options = (command?.options ?? []) + [.help] + GlobalOptions.table
            if command == nil { options.append(Option("--version", "print the version")) }
            let candidates = options.map { Candidate(word: $0.name, description: $0.help) }
            return Analysis(kind: .words(candidates), typed: current, storePath: storePath)
        }
        guard let command else {
            let candidates = CommandLineTool.commands.map { Candidate(word: $0.name, description: $0.summary) }
            return Analysis(kind: .words(candidates), typed: current, storePath: storePath)
        }
        return Analysis(kind: argument(of: command, after: positionals), typed: current, storePath: storePath)
    }

    /// The option `name` spells (long or short) among the command's and the global ones.
    private static func option(named name: String, of command: (any Command.Type)?) -> Option? {
        let name = name == "--colour" ? "--color" : name
        return ((command?.options ?? []) + GlobalOptions.table).first { option in
            option.name == name || option.short.map { "-\($0)" } == name
        }
    }

    /// What completes an option's value.
    private static func value(of option: Option) -> Kind {
        if !option.choices.isEmpty { return .words(option.choices.map { Candidate(word: $0) }) }
        guard let value = option.value else { return .nothing }
        if value == "PATH" || value.hasSuffix("FILE") { return .files }
        return value == "TWEET_ID" ? .tweets : .nothing
    }

    /// What completes the next positional argument of `command`, after `positionals`.
    private static func argument(of command: any Command.Type, after positionals: [String]) -> Kind {
        if command == ConfigCommand.self { return configArgument(after: positionals) }
        switch command.completes {
        case .files: return .files
        case .nothing: return .nothing
        // Each of these commands takes one such argument.
        case .choices(let choices): return positionals.isEmpty ? .words(choices.map { Candidate(word: $0) }) : .nothing
        case .users: return positionals.isEmpty ? .users : .nothing
        case .tweets: return positionals.isEmpty ? .tweets : .nothing
        }
    }

    /// `config VERB KEY VALUE`: the verbs, then the keys, then the values a key takes.
    private static func configArgument(after positionals: [String]) -> Kind {
        switch positionals.count {
        case 0:
            guard case .choices(let verbs) = ConfigCommand.completes else { return .nothing }
            return .words(verbs.map { Candidate(word: $0) })
        case 1 where ["get", "set", "unset"].contains(positionals[0]):
            return .words(ConfigFile.Key.allCases.map { Candidate(word: $0.rawValue, description: $0.help) })
        case 2 where positionals[0] == "set":
            switch ConfigFile.Key(rawValue: positionals[1]) {
            case .store: return .files
            case .color: return .words([ColorChoice.auto, .always, .never].map { Candidate(word: $0.rawValue) })
            case .images: return .words(ImageChoice.allCases.map { Candidate(word: $0.rawValue) })
            case .limit, .postgresConnectTimeout, .postgresStatementTimeout, .postgresLockTimeout, nil:
                return .nothing
            }
        default: return .nothing
        }
    }

    // MARK: Answering

    /// The lines to print for `analysis`: fixed words filtered here; usernames and tweet IDs from
    /// the closures, which read the store and the last listing.
    static func lines(
        for analysis: Analysis, usernames: (String) async -> [String], listing: () -> LastListing
    ) async -> [String] {
        let typed = analysis.typed
        let candidates: [Candidate]
        switch analysis.kind {
        case .nothing: return []
        case .files: return [filesDirective]
        case .words(let words): candidates = words.filter { $0.word.hasPrefix(typed) }
        case .users:
            // `@` is how users are named in tweetcli; a bare start of a name completes bare.
            let at = typed.isEmpty || typed.hasPrefix("@")
            let start = typed.hasPrefix("@") ? String(typed.dropFirst()) : typed
            guard start.utf8.count <= 64 else { return [] }
            candidates = await usernames(start).map { Candidate(word: (at ? "@" : "") + $0) }
                .filter { $0.word.hasPrefix(typed) }
        case .tweets:
            candidates = listing().entries.filter { $0.id.hasPrefix(typed) }.map {
                Candidate(word: $0.id, description: $0.description)
            }
        }
        return candidates.map { candidate in
            analysis.prefix + candidate.word + (candidate.description.isEmpty ? "" : "\t" + candidate.description)
        }
    }

    /// Runs the hidden command: prints the candidates and returns 0, whatever happens.
    static func main(words: [String], environment: [String: String]) async -> Int32 {
        silenceStandardError()
        // A PostgreSQL server that does not answer must not hold the shell's line for long.
        var environment = environment
        environment["PGCONNECT_TIMEOUT"] = environment["PGCONNECT_TIMEOUT"] ?? "2"
        let analysis = analyse(words)
        let context = makeContext(storePath: analysis.storePath, environment: environment)
        let answer = await lines(
            for: analysis,
            usernames: { start in
                do {
                    return try await context.services().users.usernames(startingWith: start, limit: maximumUsers)
                } catch {
                    return []  // No store, or one that cannot be read: no names to offer.
                }
            },
            listing: {
                LastListing.load(
                    path: LastListing.path(
                        forStore: context.storeKey, stateDirectory: AppPaths.stateDirectory(environment: environment)))
            })
        guard !answer.isEmpty else { return 0 }
        // A closed pipe or a full disk: the shell gets nothing, which is all it can be told.
        try? Output.write(answer.joined(separator: "\n") + "\n")
        return 0
    }

    /// The context of a command that only reads: the store chosen as any command chooses it, the
    /// config file read leniently so that a bad line does not stop completion.
    private static func makeContext(storePath: String?, environment: [String: String]) -> Context {
        let path = ConfigFile.path(environment: environment)
        // A config file that cannot be read at all is no config file, for completion.
        let config = (try? ConfigFile(path: path, lenient: true)) ?? ConfigFile(empty: path)
        var options = GlobalOptions()
        options.storePath = storePath.flatMap { $0.isEmpty ? nil : $0 }
        return Context(
            options: options, terminal: Terminal(environment: environment), environment: environment, config: config,
            createsStore: false)
    }

    /// Points stderr at /dev/null: anything written there would land in the middle of the line
    /// the person is editing.
    private static func silenceStandardError() {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard null >= 0 else { return }
        dup2(null, STDERR_FILENO)
        close(null)
    }
}
