import Foundation
import Testing
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A real terminal for end-to-end tests: a tmux server of its own, one window of a given size
/// running bash (or zsh or fish), driven with `send-keys` and read with `capture-pane`, as a person
/// would type.
package final class TmuxSession {
    /// The shells a session can run, each with no rc file but ours: a `$ ` prompt, `tweetcli` on
    /// the PATH, and no history written.
    package enum Shell: String, Sendable {
        case bash, zsh, fish
    }

    package let home: URL
    package let socket: String
    package let shell: Shell
    package var store: String { home.appendingPathComponent("store").path }

    /// The tweetcli built beside the test bundle.
    package static var executable: URL { CLIRunner.executable }

    package static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    /// Whether tmux and `shell` are installed (Scripts/packages.sh installs all three shells).
    package static func isAvailable(_ shell: Shell) -> Bool {
        isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/\(shell.rawValue)")
    }

    /// Starts `shell` in a `width` × `height` window, with `tweetcli` on its PATH and a home of its own.
    package init(
        width: Int, height: Int = 40, environment: [String: String] = [:], shell: Shell = .bash
    ) throws {
        self.shell = shell
        home = FileManager.default.temporaryDirectory.appendingPathComponent("tweetcli-tmux-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        socket = "tweetcli-test-\(UUID().uuidString.prefix(8))"
        let bin = Self.executable.deletingLastPathComponent().path
        var variables = [
            "HOME": home.path, "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "TWEETCLI_STORE": store,
            "TERM": "xterm-256color", "LANG": "C.UTF-8",
            "TZ": "UTC", "PAGER": "less -FRX", "LESS": "", "EDITOR": "vim -u NONE -N -n -i NONE",
        ]
        variables.merge(environment) { _, new in new }
        let exports = variables.flatMap { ["-e", "\($0.key)=\($0.value)"] }
        // A shell takes its prompt, and tmux a new pane's PATH, from elsewhere than -e: an rc file sets
        // both, and leaves no history behind (a shell would write it as it exits, after deinit removed
        // the home).
        try tmux(
            ["new-session", "-d", "-x", "\(width)", "-y", "\(height)"] + exports
                + [try Self.startShell(shell, bin: bin, home: home)])
        try tmux(["set-option", "-g", "status", "off"])
        try waitForPrompt()
    }

    /// Writes `shell`'s rc file into `home` and returns the command that starts it with that file only.
    private static func startShell(_ shell: Shell, bin: String, home: URL) throws -> String {
        switch shell {
        case .bash:
            let rcfile = home.appendingPathComponent("bashrc")
            try "PS1='$ '\nexport PATH='\(bin)':/usr/bin:/bin\nunset HISTFILE\n"
                .write(to: rcfile, atomically: true, encoding: .utf8)
            return "bash --noprofile --rcfile \(rcfile.path)"
        case .zsh:
            // -d skips the system's rc files, so zsh reads only ZDOTDIR's; zsh sets no HISTFILE itself.
            let directory = home.appendingPathComponent("zsh")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try "PS1='$ '\nexport PATH='\(bin)':/usr/bin:/bin\nautoload -Uz compinit && compinit -u -D\n"
                .write(to: directory.appendingPathComponent(".zshrc"), atomically: true, encoding: .utf8)
            return "ZDOTDIR='\(directory.path)' zsh -d"
        case .fish:
            // No greeting, and no autosuggestion, whose grey rest of a remembered line capture-pane
            // would show as typed text.
            let rcfile = home.appendingPathComponent("config.fish")
            let rc = """
                function fish_prompt; echo -n '$ '; end
                set -g fish_greeting
                set -g fish_autosuggestion_enabled 0
                set -gx PATH '\(bin)' /usr/bin /bin

                """
            try rc.write(to: rcfile, atomically: true, encoding: .utf8)
            return "fish --private --no-config --init-command 'source \(rcfile.path)'"
        }
    }

    deinit {
        _ = try? tmux(["kill-server"])  // Best effort: the server may have exited with its shell.
        try? FileManager.default.removeItem(at: home)  // Best effort: a temporary directory.
    }

    /// Runs a tmux command on this session's server and returns what it printed.
    @discardableResult
    package func tmux(_ arguments: [String]) throws -> String {
        // posix_spawn and waitpid, with the output in a file: the server that new-session starts
        // keeps its client's descriptors, so neither a pipe nor Foundation's Process would see an end.
        let file = home.appendingPathComponent("tmux-output").path
        let words = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        // The test runner blocks signals that tmux needs (kill-server is SIGTERM to the server):
        // the child starts with none blocked and every disposition at its default.
        _ = try ChildProcess.run(
            "/usr/bin/tmux", arguments: words,
            options: .init(standardOutput: .file(file), standardError: .descriptor(1)))
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)
    }

    /// Types `text` literally, then Enter when asked.
    package func type(_ text: String, enter: Bool = true) throws {
        try tmux(["send-keys", "-l", text])
        if enter { try tmux(["send-keys", "Enter"]) }
    }

    /// Presses keys by tmux's names: `Escape`, `Enter`, `q`.
    package func press(_ keys: String...) throws {
        try tmux(["send-keys"] + keys)
    }

    /// The visible screen, one string per row, trailing spaces removed.
    package func screen() throws -> [String] {
        try tmux(["capture-pane", "-p"]).split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
    }

    /// Waits until a row of the screen satisfies `matches` (10 s at most) and returns the screen.
    @discardableResult
    package func waitFor(
        _ description: String, timeout: TimeInterval = 10, row matches: (String) -> Bool
    ) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let rows = try screen()
            if rows.contains(where: matches) { return rows }
            guard Date() < deadline else {
                Issue.record("the screen never showed \(description):\n\(rows.joined(separator: "\n"))")
                return rows
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Waits until the screen shows `text`.
    @discardableResult
    package func waitFor(_ text: String) throws -> [String] {
        try waitFor(text.debugDescription) { $0.contains(text) }
    }

    /// Waits until `text` shows on `count` rows of the screen: the `count`th time a question is asked.
    @discardableResult
    package func waitFor(_ text: String, count: Int) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let rows = try screen()
            if rows.filter({ $0.contains(text) }).count >= count { return rows }
            guard Date() < deadline else {
                let screen = rows.joined(separator: "\n")
                Issue.record("the screen never showed \(text.debugDescription) \(count) times:\n\(screen)")
                return rows
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Waits for the shell's prompt on an empty line.
    package func waitForPrompt() throws {
        try waitFor("the prompt") { $0 == "$" }
    }

    /// Waits for the row `NAME=STATUS` that `echo NAME=$?` prints, and returns the status.
    package func waitForStatus(_ name: String, timeout: TimeInterval = 10) throws -> (status: Int, screen: [String]) {
        let rows = try waitFor("\(name)=STATUS", timeout: timeout) { row in
            row.hasPrefix(name + "=") && !row.dropFirst(name.count + 1).isEmpty
                && row.dropFirst(name.count + 1).allSatisfy(\.isNumber)
        }
        let line = rows.last { $0.hasPrefix(name + "=") && $0.dropFirst(name.count + 1).allSatisfy(\.isNumber) }
        return (Int(line?.dropFirst(name.count + 1) ?? "") ?? -1, rows)
    }

    /// Runs a shell command line and waits for it to finish; returns its exit status and the screen.
    @discardableResult
    package func run(_ commandLine: String, timeout: TimeInterval = 10) throws -> (status: Int, screen: [String]) {
        let marker = "done\(UUID().uuidString.prefix(6))"
        try type("clear; " + commandLine + "; echo \(marker)=" + (shell == .fish ? "$status" : "$?"))
        return try waitForStatus(marker, timeout: timeout)
    }

    /// Runs tweetcli outside the terminal, with the same home and store, for setting up.
    @discardableResult
    package func tweetcli(_ arguments: [String], stdin: String = "") throws -> String {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--store", store] + arguments
        process.environment = [
            "HOME": home.path, "XDG_STATE_HOME": home.appendingPathComponent("state").path, "TZ": "UTC",
        ]
        let (input, output) = (Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "tweetcli \(arguments)")
        return String(decoding: data, as: UTF8.self)
    }
}
