/// `tweetcli help` and `tweetcli help COMMAND`, generated from the command table.
@MainActor
enum HelpText {
    static func overview() -> String {
        let commands = CommandLineTool.commands
        let width = commands.map { $0.name.count }.max() ?? 0
        let lines = commands.map { "  " + pad($0.name, width + 2) + $0.summary }
        return """
            tweetcli \(CommandLineTool.version): the SwiftUI + Firebase Twitter clone, in your terminal.

            usage: \(CommandLineTool.globalUsage)

            Commands:
            \(lines.joined(separator: "\n"))

            Options (before or after the command):
            \(table(GlobalOptions.table + [Option("--version", short: "V", "print the version"), .help]))

            Run 'tweetcli help COMMAND' (or 'tweetcli COMMAND -h') for a command's options.

            """
    }

    /// One command's summary, usage line and every option with its default and range.
    static func help(for command: any Command.Type) -> String {
        var text = "\(command.summary).\n\nusage: tweetcli \(command.usage)\n"
        text += "\nOptions:\n" + table(command.options + [.help]) + "\n"
        text += "\nGlobal options: " + GlobalOptions.table.map(\.name).joined(separator: ", ")
        text += " (see tweetcli help)\n"
        return text
    }

    /// Options in two columns, one per line.
    static func table(_ options: [Option]) -> String {
        let width = options.map { $0.synopsis.count }.max() ?? 0
        return options.map { "  " + pad($0.synopsis, width + 3) + $0.help }.joined(separator: "\n")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - text.count))
    }
}
