import Foundation
import Testing
import TweetSystem
import TweetTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `tweetcli tui` with another program between it and tmux, as people run it: GNU screen, and
/// ssh to a server the test starts. Through either, the app opens, moves, likes, shows another
/// process's tweet waiting, lays itself out again at 40 columns, suspends and resumes, and `q`
/// leaves the shell it ran in with the settings it had.
@Suite(.enabled(if: TmuxSession.isAvailable), .serialized)
struct TUIHostTests {
    /// The programs that stand between tmux and the app.
    enum Host: String, CaseIterable {
        case screen, ssh

        var program: String { self == .screen ? "/usr/bin/screen" : "/usr/sbin/sshd" }
    }

    @Test(arguments: Host.allCases)
    func theAppWorksThrough(_ host: Host) throws {
        guard FileManager.default.isExecutableFile(atPath: host.program) else {
            // CI installs both (Scripts/packages.sh) and asks for the terminal tests: there a
            // missing one fails rather than pass unseen.
            #expect(!XtermDisplay.isRequired, "\(host.program) is missing; Scripts/packages.sh installs it")
            return
        }
        let session = try TmuxSession(width: 100, height: 30)
        try session.tweetcli(
            ["register", "--email", "ada@example.com", "--username", "ada", "--fullname", "Ada", "--password-stdin"],
            stdin: "correct horse battery\n")
        for number in 1...3 { try session.tweetcli(["post", "tweet number \(number)"]) }
        let home = session.home.path
        let rcfile = session.home.appendingPathComponent("bashrc").path
        var server: SSHServer?
        var leftover: () -> Void = {}
        defer {
            server?.stop()
            leftover()
        }
        switch host {
        case .screen:
            // screen's own socket directory, no system or user rc file but one line, and the same
            // shell as the session's inside.
            let sockets = session.home.appendingPathComponent("screens")
            try FileManager.default.createDirectory(
                at: sockets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let rc = session.home.appendingPathComponent("screenrc")
            try "startup_message off\n".write(to: rc, atomically: true, encoding: .utf8)
            // A test that fails half-way leaves screen detached when tmux goes: it is ended here.
            leftover = {
                _ = try? ChildProcess.run(  // Best effort: a screen that ended has nothing to quit.
                    "/usr/bin/screen", arguments: ["screen", "-S", "tweetcli-test", "-X", "quit"],
                    options: .init(environment: ["SCREENDIR=" + sockets.path]))
            }
            try session.type(
                "clear; SCREENDIR='\(sockets.path)' SYSSCREENRC=/dev/null screen -S tweetcli-test -c '\(rc.path)' "
                    + "bash --noprofile --rcfile '\(rcfile)'")
        case .ssh:
            server = try SSHServer(directory: session.home)
            let environment = [
                "HOME": home, "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
                "TWEETCLI_STORE": session.store, "LANG": "C.UTF-8", "TZ": "UTC",
            ].map { "\($0.key)='\($0.value)'" }.sorted().joined(separator: " ")
            try session.type(
                "clear; " + server!.client(command: "exec env \(environment) bash --noprofile --rcfile '\(rcfile)'"))
        }
        // The first command runs in the shell inside, once it has started (ssh connects first).
        #expect(try session.run("cd '\(home)'; stty -g > before.txt", timeout: 20).status == 0)
        if host == .screen {
            let term = try session.run("echo \"term=$TERM\"").screen
            #expect(term.contains { $0.hasPrefix("term=screen") }, "inside screen: \(term.joined(separator: "\n"))")
        } else {
            let connection = try session.run("echo \"from=${SSH_CONNECTION%% *}\"").screen
            #expect(connection.contains("from=127.0.0.1"), "over ssh: \(connection.joined(separator: "\n"))")
        }

        try session.type("clear; tweetcli tui")
        try session.waitFor(selected: "tweet number 3")
        var screen = try session.waitFor("j/k move")
        #expect(screen[0].contains("Home") && screen[0].contains("everyone"), "\(screen.joined(separator: "\n"))")
        try session.press("j")
        try session.waitFor(selected: "tweet number 2")
        try session.press("l")
        try session.waitFor("Liked.")

        let posted = Date()
        try session.tweetcli(["post", "from another process"])
        try session.waitFor("the new-tweet bar", timeout: 5) { $0.contains("↑ 1 new tweet · press . to show") }
        let took = Date().timeIntervalSince(posted)
        #expect(took < 1.5, "the bar showed after \(took) s")
        try session.press(".")
        try session.waitFor(selected: "from another process")

        // The window narrows: screen and ssh pass the new size on, and the app lays itself out.
        try session.tmux(["resize-window", "-x", "40", "-y", "30"])
        screen = try session.waitFor("a narrow title") { $0.hasPrefix(" tweetcli  Home") && $0.count <= 40 }
        #expect(screen.allSatisfy { $0.count <= 40 }, "\(screen.joined(separator: "\n"))")
        try session.tmux(["resize-window", "-x", "100", "-y", "30"])
        try session.waitFor("a wide title again") { $0.hasPrefix(" tweetcli  Home") && $0.count > 60 }

        try session.press("C-z")
        try session.waitFor("Stopped")
        try session.waitForPrompt()
        try session.type("fg")
        try session.waitFor("j/k move")
        try session.press("q")
        try session.waitForPrompt()
        try session.type("echo tui=$?")
        #expect(try session.waitForStatus("tui").status == 0)
        let same = try session.run("stty -g > after.txt; cmp -s before.txt after.txt")
        #expect(same.status == 0, "the terminal's settings (stty -g) differ after q")

        // Out of screen or ssh: tmux's own screen, not an alternate one left behind.
        try session.type("exit")
        let deadline = Date().addingTimeInterval(10)
        while try session.tmux(["display-message", "-p", "#{pane_current_command}"]).trimmingCharacters(
            in: .whitespacesAndNewlines) != "bash", Date() < deadline
        {
            usleep(50_000)
        }
        let alternate = try session.tmux(["display-message", "-p", "#{alternate_on}"])
        #expect(alternate.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let feed = try session.tweetcli(["feed", "--json", "--limit", "4"])
        let tweets = try jsonArray(feed)
        #expect(
            tweets.first { $0["caption"] as? String == "tweet number 2" }?["likes"] as? Int == 1, "liked in the store")
    }
}

extension TmuxSession {
    /// Waits until `caption` is on a row of the selected tweet (marked at the left edge), beside
    /// its author's picture or not.
    @discardableResult
    func waitFor(selected caption: String) throws -> [String] {
        try waitFor("▌ … \(caption)") { $0.hasPrefix("▌ ") && $0.hasSuffix(caption) }
    }
}

/// An sshd of the test's own on the loopback, as root or the user running the tests, which lets
/// in one key made for it; its host key and log are in `directory`.
struct SSHServer {
    let directory: URL
    let port: Int
    private var key: String { directory.appendingPathComponent("ssh-user").path }

    init(directory: URL) throws {
        self.directory = directory
        let keygen = "/usr/bin/ssh-keygen"
        for name in ["ssh-host", "ssh-user"] {
            let made = try ChildProcess.run(
                keygen,
                arguments: [keygen, "-q", "-t", "ed25519", "-N", "", "-f", directory.appendingPathComponent(name).path])
            guard made == .exited(0) else { throw SSHServerError("ssh-keygen could not make \(name)") }
        }
        try FileManager.default.copyItem(
            at: directory.appendingPathComponent("ssh-user.pub"), to: directory.appendingPathComponent("ssh-authorized")
        )
        // As root, sshd wants the directory it drops privileges into; Debian's package makes it
        // only when the service starts.
        if getuid() == 0 {
            try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        }
        // A port another test or program holds makes sshd exit at once: another is tried.
        for _ in 0..<10 {
            let port = Int.random(in: 20_000..<60_000)
            let config = directory.appendingPathComponent("sshd_config")
            try """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(directory.appendingPathComponent("ssh-host").path)
            AuthorizedKeysFile \(directory.appendingPathComponent("ssh-authorized").path)
            PidFile \(directory.appendingPathComponent("sshd.pid").path)
            StrictModes no
            UsePAM no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password

            """.write(to: config, atomically: true, encoding: .utf8)
            // Without -D it binds, then leaves a daemon behind and exits 0.
            let started = try ChildProcess.run(
                "/usr/sbin/sshd",
                arguments: [
                    "/usr/sbin/sshd", "-f", config.path, "-E", directory.appendingPathComponent("sshd.log").path,
                ])
            if started == .exited(0) {
                self.port = port
                return
            }
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("sshd.log"), encoding: .utf8)) ?? ""
        throw SSHServerError("sshd did not start: \(log)")
    }

    /// The ssh command line that runs `command` in a terminal on the server.
    func client(command: String) -> String {
        "ssh -F /dev/null -tt -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "
            + "-o BatchMode=yes -i '\(key)' -p \(port) 127.0.0.1 \"\(command)\""
    }

    /// Ends the daemon and the sessions it started.
    func stop() {
        let file = directory.appendingPathComponent("sshd.pid")
        // A daemon that wrote no pid file did not stay: nothing to end.
        guard let text = try? String(contentsOf: file, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            return
        }
        kill(pid, SIGTERM)
    }
}

struct SSHServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
