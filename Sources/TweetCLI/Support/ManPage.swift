import TweetSystem

/// `tweetcli manpage`: a roff man page (section 1), generated from the command table.
@MainActor
enum ManPage {
    /// Text safe in roff: backslashes and hyphens escaped, no line starting with a control character.
    static func escape(_ text: String) -> String {
        text.replacingEvery("\\", with: "\\e").replacingEvery("-", with: "\\-")
    }

    private static func line(_ text: String) -> String {
        let escaped = escape(text)
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }

    private static func options(_ options: [Option]) -> [String] {
        options.flatMap { option -> [String] in
            var synopsis = (option.short.map { "\\fB\\-\($0)\\fR, " } ?? "") + "\\fB\(escape(option.name))\\fR"
            if let value = option.value { synopsis += " \\fI\(escape(value))\\fR" }
            return [".TP", synopsis, line(option.help)]
        }
    }

    static func page() -> String {
        var lines = [
            ".TH TWEETCLI 1 \"\" \"tweetcli \(CommandLineTool.version)\" \"User Commands\"",
            ".SH NAME",
            "tweetcli \\- the SwiftUI + Firebase Twitter clone, in your terminal",
            ".SH SYNOPSIS",
            line(CommandLineTool.globalUsage) + " [\\fIOPTIONS\\fR]",
            ".SH DESCRIPTION",
            line(
                "A feed, profiles with Tweets, Replies and Likes tabs, an explore screen that searches users, "
                    + "a composer, likes, follows and email and password sign-in, over a local store of JSON Lines files."
            ),
            ".SH GLOBAL OPTIONS",
        ]
        lines += options(GlobalOptions.table + [Option("--version", short: "V", "print the version"), .help])
        lines.append(".SH COMMANDS")
        for command in CommandLineTool.commands {
            lines += [
                ".SS \(escape(command.name))", line(command.summary + "."), ".PP",
                "\\fBtweetcli \(escape(command.usage))\\fR",
            ]
            let list = command.options
            if !list.isEmpty { lines += [".RS"] + options(list) + [".RE"] }
        }
        lines += [
            ".SH ENVIRONMENT",
            ".TP", "\\fBTWEETCLI_STORE\\fR", line("the store directory, below --store"),
            ".TP", "\\fBXDG_DATA_HOME\\fR, \\fBXDG_STATE_HOME\\fR, \\fBXDG_CONFIG_HOME\\fR",
            line("where the store, the session and the config file live by default"),
            ".TP", "\\fBNO_COLOR\\fR", line("when set and not empty, no colour"),
            ".TP", "\\fBPAGER\\fR", line("the pager for long output on a terminal (default: less -FRX)"),
            ".TP", "\\fBVISUAL\\fR, \\fBEDITOR\\fR", line("the editor 'post' opens when no caption is given"),
            ".TP", "\\fBTZ\\fR, \\fBLANG\\fR", line("the time zone and language of dates"),
            ".SH FILES",
            ".TP", "\\fI~/.config/tweetcli/config\\fR",
            line("key = value settings: " + ConfigFile.Key.allCases.map(\.rawValue).joined(separator: ", ")),
            ".TP", "\\fI~/.local/share/tweetcli/\\fR", line("the store"),
            ".TP", "\\fI~/.local/state/tweetcli/\\fR", line("sessions and drafts"),
            ".SH EXIT STATUS",
            line("0 on success, 1 when a command fails, 64 for a usage error."),
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
