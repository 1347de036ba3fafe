import Foundation
import TweetCore

/// The entry point: global options, dispatch, and one place that turns errors into exit codes.
@MainActor
enum CommandLineTool {
    static let commands: [any Command.Type] = [
        RegisterCommand.self, LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, PostCommand.self,
        FeedCommand.self, ProfileCommand.self, ExploreCommand.self, LikeCommand.self, UnlikeCommand.self,
        DeleteCommand.self, FollowUserCommand.self, UnfollowUserCommand.self, EditProfileCommand.self,
        SeedCommand.self, ExportCommand.self, DoctorCommand.self,
    ]

    static let globalUsage = "tweetcli [--store PATH] [--json] [--color auto|always|never] COMMAND"

    /// Runs one command line and returns the exit code: 0, 1 for a failure, 64 for a usage error.
    static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        var arguments = arguments
        do {
            let options = try GlobalOptions.extract(from: &arguments)
            guard let name = arguments.first else {
                Output.writeError(overview())
                return 64
            }
            let rest = Array(arguments.dropFirst())
            if name == "help" || name == "-h" || name == "--help" {
                Output.write(try help(for: rest.first))
                return 0
            }
            guard let type = commands.first(where: { $0.name == name }) else {
                throw UsageError("unknown command '\(name)'; run 'tweetcli help' to see the commands")
            }
            let flags = rest.prefix { $0 != "--" }  // after `--`, "-h" is a caption, not a flag
            if flags.contains("-h") || flags.contains("--help") {
                Output.write(try help(for: name))
                return 0
            }
            let command = try type.init(arguments: rest)
            try command.validate()
            let context = Context(
                options: options, terminal: Terminal(environment: environment), environment: environment,
                createsStore: type.createsStore)
            try await command.run(context)
            return 0
        } catch let error as UsageError {
            Output.writeError(
                "error: \(error.message)\nusage: \(error.usage.map { "tweetcli " + $0 } ?? globalUsage)\n")
            return 64
        } catch {
            let message = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            Output.writeError("error: \(message)\n")
            return 1
        }
    }

    /// One command's help, or the overview when `name` is `nil`.
    static func help(for name: String?) throws -> String {
        guard let name else { return overview() }
        guard let type = commands.first(where: { $0.name == name }) else {
            throw UsageError("unknown command '\(name)'; run 'tweetcli help' to see the commands")
        }
        return "\(type.summary).\n\nusage: tweetcli \(type.usage)\n"
    }

    static func overview() -> String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let lines = commands.map {
            "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.summary)"
        }
        return """
            tweetcli: the SwiftUI + Firebase Twitter clone, in your terminal.

            usage: \(globalUsage)

            Commands:
            \(lines.joined(separator: "\n"))

            Options (before or after the command):
              --store PATH   the store directory (default: $TWEETCLI_STORE, else ~/.local/share/tweetcli)
              --json         print the data as JSON
              --color WHEN   auto (default), always or never; NO_COLOR turns colour off

            Run 'tweetcli help COMMAND' for a command's usage.

            """
    }
}
