import Foundation
import Testing
import TweetTestSupport

/// What people expect of a CLI they use every day: help and version, hints that work as typed,
/// private emails, the config file below flags and the environment.
struct ConventionTests {
    @Test func everyCommandHasHelpWithItsUsage() throws {
        let cli = try CLIRunner()
        let overview = try cli.run(["help"])
        #expect(overview.status == 0)
        let names = overview.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0 != "Commands:" }.dropFirst()
            .prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(names.count >= 20)
        for name in names {
            for arguments in [[name, "-h"], [name, "--help"], ["help", name]] {
                let help = try cli.run(arguments)
                #expect(help.status == 0, "\(arguments): \(help.stderr)")
                #expect(help.stdout.contains("usage: tweetcli \(name)"), "\(arguments)")
                #expect(help.stdout.contains("-h, --help"))
            }
        }
        #expect(try cli.run(["help", "nope"]).status == 64)
    }

    @Test func theVersionIsPrinted() throws {
        let cli = try CLIRunner()
        for arguments in [["--version"], ["version"], ["-V"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("tweetcli "))
        }
    }

    @Test func aStorePathThatIsAFileIsAnErrorNotAnEmptyStore() throws {
        let cli = try CLIRunner()
        let file = cli.home.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        let result = try cli.run(["--store", file.path, "feed"], store: false)
        #expect(result.status == 1)
        #expect(result.stderr == "error: cannot open the store at \(file.path): it is a file, not a directory\n")
    }

    @Test func otherUsersEmailsAreNeverShown() throws {
        let cli = try CLIRunner()
        try cli.register("alice", fullname: "Alice")
        _ = try cli.post("hello from alice")
        try cli.register("bob", fullname: "Bob")
        _ = try cli.post("hello from bob")
        let explore = try jsonArray(try cli.run(["explore", "--json"]).stdout)
        #expect(explore.count == 2)
        for user in explore {
            let mine = user["username"] as? String == "bob"
            #expect((user["email"] as? String) == (mine ? "bob@example.com" : nil))
        }
        let feed = try jsonArray(try cli.run(["feed", "--json"]).stdout)
        let authors = feed.compactMap { $0["user"] as? [String: Any] }
        #expect(authors.count == 2)
        #expect(authors.filter { $0["email"] != nil }.map { $0["username"] as? String } == ["bob"])
        let profile = try cli.run(["profile", "@alice"])
        #expect(!profile.stdout.contains("alice@example.com"))
        #expect(try cli.run(["profile"]).stdout.contains("bob@example.com"))
        #expect(try cli.run(["whoami"]).stdout.contains("bob@example.com"))
        let unfollow = try cli.run(["unfollow", "@alice"])
        #expect(unfollow.stdout == "You were not following Alice @alice; nothing changed.\n")
    }

    @Test func theConfigFileIsBelowFlagsAndTheEnvironment() throws {
        let cli = try CLIRunner()
        let config = cli.home.appendingPathComponent("config").path
        let environment = ["XDG_CONFIG_HOME": config]
        let configured = cli.home.appendingPathComponent("configured").path
        let set = try cli.run(["config", "set", "store", configured], environment: environment, store: false)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try cli.run(["config", "set", "limit", "2"], environment: environment, store: false).status == 0)
        #expect(try cli.run(["config", "get", "limit"], environment: environment, store: false).stdout == "2\n")
        let seeded = try cli.run(["seed", "--users", "3"], environment: environment, store: false)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        #expect(FileManager.default.fileExists(atPath: configured + "/journal.jsonl"))
        // The config's limit is the page size, and the More line does not repeat it.
        let feed = try cli.run(["feed"], environment: environment, store: false)
        #expect(feed.stdout.components(separatedBy: "\n♡").count - 1 == 2)
        #expect(feed.stderr.contains("More: tweetcli feed --before"))
        // TWEETCLI_STORE and --store win over the config file.
        let other = cli.home.appendingPathComponent("other").path
        let viaEnvironment = try cli.run(
            ["feed"], environment: environment.merging(["TWEETCLI_STORE": other]) { $1 }, store: false)
        #expect(viaEnvironment.stderr.hasPrefix("No tweets yet"))
        #expect(
            try cli.run(["--store", other, "feed"], environment: environment, store: false).stderr
                .hasPrefix("No tweets yet"))
        // A bad line names itself, for every command.
        try "limit = 2\ncolour = never\n".write(toFile: config + "/tweetcli/config", atomically: true, encoding: .utf8)
        let broken = try cli.run(["feed"], environment: environment, store: false)
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("config line 2: unknown key 'colour'"))
    }

    @Test func signingInWhereThereIsNoStoreSaysSo() throws {
        let cli = try CLIRunner()
        let result = try cli.run(["login", "--username", "bob", "--password-stdin"], stdin: "password123\n")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: there is no store at \(cli.store.path) yet; create one with: "))
        #expect(!FileManager.default.fileExists(atPath: cli.store.path))
    }

    @Test func aBrokenConfigFileCanBeMendedWithConfigAndDoesNotStopHelp() throws {
        let cli = try CLIRunner()
        let config = cli.home.appendingPathComponent("config").path
        let environment = ["XDG_CONFIG_HOME": config]
        try FileManager.default.createDirectory(atPath: config + "/tweetcli", withIntermediateDirectories: true)
        try "# mine\ncolour = never\n".write(toFile: config + "/tweetcli/config", atomically: true, encoding: .utf8)
        #expect(try cli.run(["feed"], environment: environment).status == 1)
        for arguments in [["version"], ["help"], ["feed", "-h"], ["completions", "bash"], ["manpage"]] {
            #expect(try cli.run(arguments, environment: environment).status == 0, "\(arguments)")
        }
        let list = try cli.run(["config", "list"], environment: environment)
        #expect(list.status == 0)
        #expect(list.stderr.contains("warning: ") && list.stderr.contains("unknown key 'colour'"))
        #expect(try cli.run(["config", "unset", "colour"], environment: environment).status == 0)
        #expect(try cli.run(["config", "set", "color", "never"], environment: environment).status == 0)
        #expect(try cli.run(["feed"], environment: environment).status == 0)
        let text = try String(contentsOfFile: config + "/tweetcli/config", encoding: .utf8)
        #expect(text == "# mine\ncolor = never\n")
    }

    @Test func aSessionFileEditedToAnotherUidSignsNobodyIn() throws {
        let cli = try CLIRunner()
        let alice = try cli.register("alice", fullname: "Alice")
        #expect(try cli.run(["logout"]).status == 0)  // The file then holds Bob's session only.
        let bob = try cli.register("bob", fullname: "Bob")
        let sessions = cli.home.appendingPathComponent("state/tweetcli/sessions")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: sessions.path).first)
        let path = sessions.appendingPathComponent(file)
        let original = try String(contentsOf: path, encoding: .utf8)
        #expect(original.contains(bob))
        try original.replacingOccurrences(of: bob, with: alice).write(to: path, atomically: true, encoding: .utf8)
        let forged = try cli.run(["whoami"])
        #expect(forged.status == 1)
        #expect(forged.stderr.hasPrefix("error: you are not signed in"))
        #expect(try cli.run(["post", "as alice?"]).status == 1)
        // Signing out makes the store forget the token: the old file, put back, signs nobody in.
        try original.write(to: path, atomically: true, encoding: .utf8)
        #expect(try cli.run(["whoami"]).stdout.contains("@bob"))
        #expect(try cli.run(["logout"]).status == 0)
        try original.write(to: path, atomically: true, encoding: .utf8)
        #expect(try cli.run(["whoami"]).status == 1)
    }

    @Test func passwordsWithNulOrInvalidUTF8AreRefused() throws {
        let cli = try CLIRunner()
        let register = [
            "register", "--email", "a@example.com", "--username", "ada", "--fullname", "Ada", "--password-stdin",
        ]
        let nul = try cli.run(register, stdinBytes: Data("\0\0\0\0\0\0\0\0\n".utf8))
        #expect(nul.status == 1)
        #expect(nul.stderr == "error: the password cannot contain a NUL character\n")
        // Two different invalid passwords would both have read as U+FFFD U+FFFD … and matched.
        let invalid = try cli.run(register, stdinBytes: Data([0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0xFA, 0xF9, 0xF8, 0x0A]))
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("not valid UTF-8"))
        #expect(!FileManager.default.fileExists(atPath: cli.store.path))
        try cli.register("ada", fullname: "Ada", password: "secret-password")
        try cli.run(["logout"])
        let truncated = try cli.run(
            ["login", "--username", "ada", "--password-stdin"], stdinBytes: Data("secret-password\0more\n".utf8))
        #expect(truncated.status == 1)
        #expect(try cli.run(["whoami"]).status == 1)
    }

    @Test func sizesAreCappedInBytesAsWellAsCharacters() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let flood = "a" + String(repeating: "\u{301}", count: 60_000)
        let name = try cli.run(["edit-profile", "--fullname", flood])
        #expect(name.status == 1)
        #expect(name.stderr == "error: the full name takes more than 256 bytes; shorten it\n")
        let family = String(repeating: "👨‍👩‍👧‍👦", count: 3_000)
        let caption = try cli.run(["post", "-"], stdin: family)
        #expect(caption.status == 1)
        #expect(caption.stderr == "error: the caption takes more than 16384 bytes; shorten it\n")
        #expect(try jsonArray(try cli.run(["feed", "--json"]).stdout).isEmpty)
    }

    /// Runs tweetcli with stdout going to `output`, and returns the exit status and stderr.
    func run(_ cli: CLIRunner, _ arguments: [String], stdout output: FileHandle, shell: String? = nil) throws
        -> (Int32, String)
    {
        let process = Process()
        let command = [CLIRunner.executable.path, "--store", cli.store.path] + arguments
        if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell + "; exec \"$@\"", "sh"] + command
        } else {
            process.executableURL = CLIRunner.executable
            process.arguments = Array(command.dropFirst())
        }
        process.environment = ["HOME": cli.home.path, "XDG_STATE_HOME": cli.home.appendingPathComponent("state").path]
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func outputThatCannotBeWrittenIsAnErrorAndACommittedWriteSaysItWasSaved() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let (status, stderr) = try run(cli, ["post", "saved though unseen"], stdout: full)
        #expect(status == 1)
        #expect(
            stderr == "error: the change was saved, but the output could not be written (No space left on device)\n")
        #expect(
            try jsonArray(try cli.run(["feed", "--json"]).stdout).first?["caption"] as? String == "saved though unseen")
        // A closed pipe is a reader that stopped early (`| head`): status 0 and no message, not a
        // death by SIGPIPE, for a read and for a write alike, and the write is kept.
        for arguments in [["feed"], ["post", "read by nobody"]] {
            let pipe = Pipe()
            try pipe.fileHandleForReading.close()
            let (closed, message) = try run(cli, arguments, stdout: pipe.fileHandleForWriting)
            #expect(closed == 0, "\(arguments)")
            #expect(message == "", "\(arguments)")
        }
        #expect(try jsonArray(try cli.run(["feed", "--json"]).stdout).first?["caption"] as? String == "read by nobody")
    }

    @Test func aFileSizeLimitIsAnErrorNotADeathBySignal() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        // The journal already holds the account, more than the limit allows: the post cannot be
        // appended, and the process is not killed by SIGXFSZ (which would be status 153).
        let (big, bigError) = try run(
            cli, ["post", String(repeating: "x", count: 270)], stdout: FileHandle.nullDevice, shell: "ulimit -f 1")
        #expect(big == 1, "\(bigError)")
        #expect(bigError.contains("File too large"), "\(bigError)")
        #expect(try cli.run(["doctor"]).status == 0)
    }

    @Test func windowsLineEndingsAreOneLineBreak() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let posted = try cli.run(["post", "-", "--json"], stdin: "first\r\nsecond\r\n")
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(try json(posted.stdout)["caption"] as? String == "first\nsecond")
        let lone = try cli.run(["post", "a\rb"])
        #expect(lone.status == 1)
        #expect(lone.stderr.contains("U+000D"))
    }

    @Test func aFailedSeedOrRegisterLeavesNoStoreBehind() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "2", "--follows", "5"]).status == 64)
        // Within every option's range, but ten billion follows fit on no machine's disk (and, before
        // this check, in no machine's memory either: the kernel killed the seed): refused in one
        // sentence before anything is made.
        let huge = try cli.run(["seed", "--users", "1000000", "--follows", "9999"])
        #expect(huge.status == 1, "\(huge.stderr)")
        #expect(huge.stderr.contains("GiB of disk") || huge.stderr.contains("GiB of memory"), "\(huge.stderr)")
        #expect(huge.stderr.split(separator: "\n").count == 1, "\(huge.stderr)")
        let register = try cli.run(
            ["register", "--email", "not-an-email", "--username", "x", "--fullname", "X", "--password-stdin"],
            stdin: "password123\n")
        #expect(register.status == 1)
        #expect(!FileManager.default.fileExists(atPath: cli.store.path))
        // A session that cannot be saved (the state directory is a file): no account either.
        let state = cli.home.appendingPathComponent("state-file")
        try Data("x".utf8).write(to: state)
        let unsaved = try cli.run(
            ["register", "--email", "a@example.com", "--username", "ada", "--fullname", "Ada", "--password-stdin"],
            stdin: "password123\n", environment: ["XDG_STATE_HOME": state.path])
        #expect(unsaved.status == 1)
        #expect(unsaved.stderr.contains("cannot use the session file"), "\(unsaved.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.store.path))
    }

    @Test func aSeedOrRegisterThatRunsOutOfDiskLeavesNoStoreBehind() throws {
        let cli = try CLIRunner()
        // The segment outgrows the limit halfway through: the new store goes again.
        let (seed, seedError) = try run(
            cli, ["seed", "--users", "40", "--tweets", "2000"], stdout: FileHandle.nullDevice, shell: "ulimit -f 100")
        #expect(seed == 1)
        #expect(seedError.contains("File too large"), "\(seedError)")
        #expect(!FileManager.default.fileExists(atPath: cli.store.path))
        // The session file fits and the account's record does not: no store, and no session.
        let password = cli.home.appendingPathComponent("password.txt")
        try Data("correct horse\n".utf8).write(to: password)
        let (register, registerError) = try run(
            cli,
            ["register", "--email", "a@example.com", "--username", "ada", "--fullname", "Ada", "--password-stdin"],
            stdout: FileHandle.nullDevice, shell: "ulimit -f 1; exec <'\(password.path)'")
        #expect(register == 1)
        #expect(registerError.contains("File too large"), "\(registerError)")
        #expect(!FileManager.default.fileExists(atPath: cli.store.path))
        #expect(try cli.run(["whoami"]).status == 1)
        // A store that holds something stays, whatever fails next.
        try cli.register("ada", fullname: "Ada")
        let (again, _) = try run(
            cli, ["seed", "--users", "40", "--tweets", "2000"], stdout: FileHandle.nullDevice, shell: "ulimit -f 100")
        #expect(again == 1)
        #expect(try cli.run(["whoami"]).status == 0)
        #expect(try cli.run(["doctor"]).status == 0)
    }

    @Test func pipedOutputIsNeverWrappedAndAFeedHintRepeatsItsFlags() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let caption = String(repeating: "word ", count: 50).trimmingCharacters(in: .whitespaces)
        _ = try cli.post(caption)
        _ = try cli.post("second")
        _ = try cli.post(caption)
        // COLUMNS does not make piped output wrap.
        let feed = try cli.run(["feed", "--following", "-n", "1"], environment: ["COLUMNS": "40"])
        #expect(feed.stdout.split(separator: "\n").contains { $0 == caption }, "\(feed.stdout)")
        // The "More:" line guides a person, so a pipe does not get it: stderr does.
        #expect(!feed.stdout.contains("More:"))
        #expect(feed.stderr.contains("More: tweetcli --store \(cli.store.path) feed --following --limit 1 --before "))
        let profile = try cli.run(["profile", "--tab", "tweets", "-n", "1"])
        #expect(profile.stderr.contains("More: tweetcli --store \(cli.store.path) profile @ada --tab tweets --limit 1"))
    }
}
