import FoundationEssentials
import TweetCore
import TweetDemo
import TweetStore
import TweetSystem

/// The one place errors become what the user reads: a sentence, what to do next, and the exit
/// code (argument-parser's `MessageInfo`). TweetCore's errors say what happened; the hints that
/// name commands and flags are added here, with `--store` kept so they work as typed.
@MainActor
enum ErrorPresenter {
    struct Presentation: Equatable {
        var message: String
        var usage: String?
        var exitCode: Int32

        /// What goes to stderr: `error: …`, and the usage line for a usage error. The message is
        /// neutralised, since it may quote what someone stored.
        var text: String {
            var text = "error: " + TerminalText.neutralize(message, multiline: false) + "\n"
            if let usage { text += "usage: " + usage + "\n" }
            return text
        }
    }

    static func present(_ error: any Error, options: GlobalOptions) -> Presentation {
        let suggest = options.suggest
        func failure(_ message: String, _ hint: String? = nil) -> Presentation {
            Presentation(message: message + (hint.map { "; " + $0 } ?? ""), usage: nil, exitCode: 1)
        }
        func usage(_ message: String, command: String) -> Presentation {
            let line = CommandLineTool.command(named: command).map { "tweetcli " + $0.usage }
            return Presentation(message: message, usage: line, exitCode: 64)
        }
        let description = error.sentence
        switch error {
        case let error as UsageError:
            return Presentation(
                message: error.message, usage: error.usage.map { "tweetcli " + $0 } ?? CommandLineTool.globalUsage,
                exitCode: 64)
        case let error as OutputError:
            return failure(error.description)
        case let error as CommandFailure:
            return failure(error.description, error.hint)
        case SeedError.tooManyFollows(let users):
            return usage("--follows must be less than --users (\(users))", command: "seed")
        case SeedError.tooManyLikes(let maximum):
            return usage("--likes must be at most \(maximum), half of --users × --tweets", command: "seed")
        case SeedError.negativeCounts:
            return usage(description, command: "seed")
        case SeedError.storeNotEmpty:
            return failure(
                description, "seed an empty store, for example: " + "tweetcli --store /tmp/tweetcli-demo seed")
        case AuthError.notSignedIn:
            return failure(
                description,
                "sign in with: \(suggest("login --username NAME")), or create an account with: "
                    + suggest("register --email E --username U --fullname F"))
        case AuthError.notSignedInAs(let username), AuthError.sessionEnded(let username):
            let name = username.hasPrefix("@") ? String(username.dropFirst()) : username
            return failure(
                description,
                "sign in with: \(suggest("login " + ShellQuote.quote(name))); see who is with: \(suggest("accounts"))")
        case AuthError.sessionUnavailable:
            return failure(description, "reset it with: \(suggest("logout"))")
        case StoreError.corruptRecord:
            return failure(description, "see what is wrong with: \(suggest("doctor"))")
        case StoreError.noStore:
            return failure(
                description,
                "create one with: \(suggest("register --email E --username U --fullname F")), or fill a demo store "
                    + "with: \(suggest("seed"))")
        case StoreError.unsupportedFormat:
            return failure(description, "upgrade tweetcli")
        case UserError.notFound:
            return failure(description, "find people with: \(suggest("explore"))")
        case TweetError.notFound:
            return failure(description, "tweet IDs are shown under each tweet in: \(suggest("feed"))")
        default:
            return failure(description)
        }
    }
}
