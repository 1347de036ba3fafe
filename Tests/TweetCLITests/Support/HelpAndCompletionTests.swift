import Foundation
import Testing

@testable import TweetCLI

/// Help, the completions and the man page come from one command table: every command and every
/// option appears in each of them.
@MainActor
struct HelpAndCompletionTests {
    @Test func everyOptionIsInItsCommandsHelpWithItsDescription() throws {
        for command in CommandLineTool.commands {
            try checkHelp(of: command)
        }
    }

    func checkHelp(of command: any Command.Type) throws {
        let name = command.name
        let help = HelpText.help(for: command)
        #expect(help.contains("usage: tweetcli \(command.usage)"))
        for option in command.options + [.help] {
            #expect(help.contains(option.synopsis + " "), "\(name) help lacks \(option.synopsis)")
            #expect(help.contains(option.help))
        }
        for option in command.options {
            #expect(command.usage.contains(option.name), "\(name) usage lacks \(option.name)")
        }
    }

    @Test func theOverviewListsEveryCommandAndGlobalOption() {
        let overview = HelpText.overview()
        for command in CommandLineTool.commands { #expect(overview.contains("  \(command.name) ")) }
        for option in GlobalOptions.table { #expect(overview.contains(option.synopsis)) }
        #expect(overview.contains(CommandLineTool.version))
    }

    /// The scripts hold no lists: every shell asks `tweetcli __complete`, whose words come from
    /// the command table (``CompletionCandidatesTests`` checks that every option is among them).
    @Test(arguments: ShellCompletions.Shell.allCases)
    func everyShellsScriptAsksTheHiddenCommand(_ shell: ShellCompletions.Shell) {
        let script = ShellCompletions.script(for: shell)
        #expect(script.contains(" \(CompletionCandidates.commandName) "))
        #expect(script.contains(CompletionCandidates.filesDirective))
        for command in CommandLineTool.commands where command.name.count > 4 && command.name != "completions" {
            #expect(!script.contains(command.name), "\(shell) still lists \(command.name)")
        }
    }

    @Test func theManPageHasEveryCommandAndOptionInRoff() {
        let page = ManPage.page()
        #expect(page.hasPrefix(".TH TWEETCLI 1"))
        for command in CommandLineTool.commands {
            #expect(page.contains(".SS \(ManPage.escape(command.name))"))
            for option in command.options { #expect(page.contains(ManPage.escape(option.name))) }
        }
        // No text line starts with a roff control character by accident.
        for line in page.split(separator: "\n") where !line.hasPrefix(".") {
            #expect(!line.hasPrefix("'"))
        }
    }

    /// Runs `shell -n` (parse only) on `script`, when that shell is installed.
    func parses(_ script: String, with shell: String) throws -> Bool? {
        guard let path = ["/usr/bin/\(shell)", "/bin/\(shell)"].first(where: FileManager.default.isExecutableFile)
        else { return nil }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("completion-\(UUID()).\(shell)")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }  // A temporary file: best effort.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-n", file.path]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Sourced into a real bash, with `tweetcli` a function that answers as `__complete` would:
    /// the words are split at blanks only, descriptions are dropped, and the part of the word that
    /// bash does not replace (up to a `:` or `=`) is taken off each candidate.
    @Test func bashAcceptsTheBashScriptAndItCompletes() throws {
        let script = ShellCompletions.script(for: .bash)
        #expect(try parses(script, with: "bash") == true)
        let probe =
            script + """
                exec 3>&2
                tweetcli() { printf '%s|' "$@" >&3; printf '%s\\n' "$ANSWER"; }
                ask() { COMP_LINE="$1"; COMP_POINT=${#1}; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
                  _tweetcli; echo "${COMPREPLY[*]}"; }
                ANSWER=$'feed\\tshow the feed'; ask "tweetcli fe" tweetcli fe
                ANSWER=$'@ada\\tAda'; ask "tweetcli --store postgresql:///x follow @a" tweetcli --store postgresql : ///x follow @ a
                ANSWER=$'--color=always'; ask "tweetcli feed --color=al" tweetcli feed --color = al
                ANSWER=''; ask "tweetcli like " tweetcli like ""
                """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", probe]
        let (output, errors) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let asked = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text == "feed\n@ada\nalways\n\n")
        #expect(
            asked == "__complete|fe|__complete|--store|postgresql:///x|follow|@a|__complete|feed|--color=al|"
                + "__complete|like||")
    }

    @Test func zshAcceptsTheZshScriptWhenZshIsInstalled() throws {
        guard let parsed = try parses(ShellCompletions.script(for: .zsh), with: "zsh") else { return }
        #expect(parsed)
    }
}
