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

    @Test(arguments: ShellCompletions.Shell.allCases)
    func everyCommandAndOptionIsInTheCompletions(_ shell: ShellCompletions.Shell) {
        let script = ShellCompletions.script(for: shell)
        for command in CommandLineTool.commands {
            #expect(script.contains(command.name))
            for option in command.options {
                let spelled = shell == .fish ? "-l \(option.name.dropFirst(2))" : option.name
                #expect(script.contains(spelled), "\(shell) lacks \(command.name) \(option.name)")
                if !option.choices.isEmpty { #expect(script.contains(option.choices.joined(separator: " "))) }
            }
        }
        for option in GlobalOptions.table { #expect(script.contains(option.name.dropFirst(2))) }
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

    @Test func bashAcceptsTheBashScriptAndItCompletes() throws {
        let script = ShellCompletions.script(for: .bash)
        #expect(try parses(script, with: "bash") == true)
        // Sourced into a real bash, it completes commands and an option's values.
        let probe =
            script + """
                COMP_WORDS=(tweetcli fe); COMP_CWORD=1; _tweetcli; echo "${COMPREPLY[*]}"
                COMP_WORDS=(tweetcli profile --tab ""); COMP_CWORD=3; _tweetcli; echo "${COMPREPLY[*]}"
                COMP_WORDS=(tweetcli --store /tmp feed --fol); COMP_CWORD=4; _tweetcli; echo "${COMPREPLY[*]}"
                """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", probe]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text == "feed\ntweets replies likes\n--following\n")
    }

    @Test func zshAcceptsTheZshScriptWhenZshIsInstalled() throws {
        guard let parsed = try parses(ShellCompletions.script(for: .zsh), with: "zsh") else { return }
        #expect(parsed)
    }
}
