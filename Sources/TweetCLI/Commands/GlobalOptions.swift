import TweetStorePostgres
import TweetSystem

/// `--store`, `--json`, `--color` and `--no-pager`, accepted before or after the command.
struct GlobalOptions: Equatable {
    var storePath: String?
    var json = false
    var color: ColorChoice?
    /// `--images`: photos as pictures (`auto`: on a terminal with colour, in the best way it has)
    /// or as lines of text.
    var images: ImageChoice?
    var pager = true
    /// `--as @user`: the signed-in account this command acts as, instead of the active one.
    var actingAs: String?

    /// The global options, as `help` and the completions list them.
    static let table: [Option] = [
        Option(
            "--store", value: "PATH",
            "the store directory (default: $TWEETCLI_STORE, the config file's store, else ~/.local/share/tweetcli)"),
        Option("--json", "print the data as JSON"),
        Option("--color", value: "WHEN", choices: ["auto", "always", "never"], "auto (default), always or never"),
        Option(
            "--images", value: "WHEN", choices: ImageChoice.allCases.map(\.rawValue),
            "photos as pictures: auto (on a terminal with colour, the best way it has; the default), always, "
                + "never (a line of text), or blocks, sixel, kitty or iterm2"),
        Option("--no-pager", "never page long output through $PAGER"),
        Option("--as", value: "@USER", "act as another account signed in here, for this command only"),
    ]

    /// A command line to suggest: `tweetcli ARGUMENTS`, with `--store` when it was given, so a
    /// hint works as typed.
    func suggest(_ arguments: String) -> String {
        guard let storePath else { return "tweetcli " + arguments }
        // A PostgreSQL URI without its password: a hint is printed, and a password never is.
        return "tweetcli --store \(ShellQuote.quote(PostgresLocation.redacted(storePath))) " + arguments
    }

    /// Takes the global flags out of `arguments`, leaving the command and its own arguments.
    /// Everything after `--` is left alone.
    static func extract(from arguments: inout [String]) throws -> GlobalOptions {
        var options = GlobalOptions()
        var rest: [String] = []
        var seen: Set<String> = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            var (name, inlineValue) = ArgumentList.split(argument)
            if name == "--colour" { name = "--color" }
            func value() throws -> String {
                if let inlineValue { return inlineValue }
                index += 1
                guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                return arguments[index]
            }
            /// The option's value as one of `Choice`'s, or a usage error that lists them.
            func parsed<Choice: RawRepresentable<String>>(_: Choice.Type, _ spelled: String) throws -> Choice {
                let choice = try value()
                guard let parsed = Choice(rawValue: choice) else {
                    throw UsageError("\(name) must be \(spelled), not '\(choice)'")
                }
                return parsed
            }
            func once() throws {
                guard seen.insert(name).inserted else { throw UsageError("\(name) was given twice; give it once") }
            }
            switch name {
            case "--store":
                try once()
                options.storePath = try value()
                if options.storePath!.isEmpty { throw UsageError("--store needs a path") }
            case "--as":
                try once()
                let user = try value().trimmed()
                guard !user.isEmpty, user != "@" else {
                    throw UsageError("--as needs the @username of an account signed in here")
                }
                options.actingAs = user
            case "--json", "--no-pager":
                try once()
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                if name == "--json" { options.json = true } else { options.pager = false }
            case "--color":
                try once()
                options.color = try parsed(ColorChoice.self, "auto, always or never")
            case "--images":
                try once()
                options.images = try parsed(ImageChoice.self, ImageChoice.spelled)
            default:
                rest.append(argument)
            }
            index += 1
        }
        arguments = rest
        return options
    }
}

/// When to colour output.
enum ColorChoice: String {
    case auto, always, never
}

/// When and how to draw photos: `auto` on a terminal with colour, `always` even when piped,
/// `never`; or in one way, whatever the terminal says (a terminal that hides what it can do).
enum ImageChoice: String, CaseIterable {
    case auto, always, never, blocks, sixel, kitty, iterm2

    /// The choices, as an error lists them.
    static let spelled = "auto, always, never, blocks, sixel, kitty or iterm2"
}
