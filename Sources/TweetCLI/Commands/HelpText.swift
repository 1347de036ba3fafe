/// `tweetcli help` and `tweetcli help COMMAND`, generated from the command table.
@MainActor
enum HelpText {
    /// The commands of every day, which bare `tweetcli` shows.
    static let everyday = [
        "feed", "post", "like", "retweet", "thread", "profile", "search", "notifications", "follow", "login",
        "register",
    ]

    /// What bare `tweetcli` prints: the everyday commands, and how to see them all.
    static func short(width: Int? = nil) -> String {
        let commands = everyday.compactMap(CommandLineTool.command(named:))
        let column = (commands.map { $0.name.count }.max() ?? 0) + 4
        let lines = commands.map { columns("  " + $0.name, $0.summary, column: column, width: width) }
        return """
            tweetcli \(CommandLineTool.version): the SwiftUI + Firebase Twitter clone, in your terminal.

            Everyday commands:
            \(lines.joined(separator: "\n"))

            See all \(CommandLineTool.commands.count) commands with 'tweetcli help', and one command's options with 'tweetcli help COMMAND'.

            """
    }

    static func overview(width: Int? = nil) -> String {
        let commands = CommandLineTool.commands
        let column = (commands.map { $0.name.count }.max() ?? 0) + 4
        let lines = commands.map { columns("  " + $0.name, $0.summary, column: column, width: width) }
        return """
            tweetcli \(CommandLineTool.version): the SwiftUI + Firebase Twitter clone, in your terminal.

            usage: \(CommandLineTool.globalUsage)

            Commands:
            \(lines.joined(separator: "\n"))

            Options (before or after the command):
            \(table(GlobalOptions.table + [Option("--version", short: "V", "print the version"), .help], width: width))

            Run 'tweetcli help COMMAND' (or 'tweetcli COMMAND -h') for a command's options.

            """
    }

    /// One command's summary, usage line and every option with its default and range.
    static func help(for command: any Command.Type, width: Int? = nil) -> String {
        var text = "\(command.summary).\n\nusage: tweetcli \(command.usage)\n"
        text += "\nOptions:\n" + table(command.options + [.help], width: width) + "\n"
        text += "\nGlobal options: " + GlobalOptions.table.map(\.name).joined(separator: ", ")
        text += " (see tweetcli help)\n"
        return text
    }

    /// Options in two columns, one per line.
    static func table(_ options: [Option], width: Int? = nil) -> String {
        let column = (options.map { $0.synopsis.count }.max() ?? 0) + 5
        return options.map { columns("  " + $0.synopsis, $0.help, column: column, width: width) }.joined(
            separator: "\n")
    }

    /// `term`, then `text` from `column` on, wrapped at words to `width` with its lines starting at
    /// `column` too (on a terminal too narrow for that, under the term, indented by four).
    static func columns(_ term: String, _ text: String, column: Int, width: Int?) -> String {
        guard let width else { return pad(term, column) + text }
        let start = column + 20 <= width ? column : 6
        let lines = wrap(text, width: max(10, width - start))
        let indent = String(repeating: " ", count: start)
        let first = start == column ? pad(term, column) + lines[0] : term + "\n" + indent + lines[0]
        return ([first] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a longer word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [line]
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - text.count))
    }
}
