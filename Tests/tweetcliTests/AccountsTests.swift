import Foundation
import Testing
import TweetTestSupport

/// Several accounts on one device, as `gh auth switch` and `toot activate` keep them: each sign-in
/// adds one, one is active, `switch` and `--as` need no password, and `logout` signs out one or all;
/// the same on both engines.
struct AccountsTests {
    static var engines: [String] { ["local"] + (PostgresCluster.isAvailable ? ["postgresql"] : []) }

    private func makeCLI(_ engine: String) throws -> CLIRunner {
        engine == "local" ? try CLIRunner() : try CLIRunner(location: try PostgresCluster.setUpLocation())
    }

    @Test(arguments: engines)
    func accountsAreAddedSwitchedBorrowedAndSignedOut(_ engine: String) throws {
        let cli = try makeCLI(engine)
        try cli.register("ada", fullname: "Ada")
        try cli.register("bob", fullname: "Bob")
        #expect(try cli.run(["accounts"]).stdout == "  @ada\n* @bob\n")
        let listed = try jsonArray(try cli.run(["accounts", "--json"]).stdout)
        #expect(listed.map { $0["username"] as? String } == ["ada", "bob"])
        #expect(listed.map { $0["active"] as? Bool } == [false, true])

        // --as acts as another signed-in account for one command, and changes nothing else.
        let posted = try cli.run(["--as", "@ADA", "post", "from ada", "--json"])
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect((try json(posted.stdout)["user"] as? [String: Any])?["username"] as? String == "ada")
        #expect(try json(try cli.run(["whoami", "--json"]).stdout)["username"] as? String == "bob")
        let stranger = try cli.run(["--as", "@cy", "whoami"])
        #expect(stranger.status == 1)
        #expect(stranger.stderr.hasPrefix("error: @cy is not signed in on this device; sign in with: "))

        // switch needs no password; an account not signed in here is refused.
        let switched = try cli.run(["switch", "ada"])
        #expect(switched.status == 0)
        #expect(switched.stdout == "Active now: Ada @ada.\n")
        #expect(try cli.run(["accounts"]).stdout == "* @ada\n  @bob\n")
        #expect(try cli.run(["switch", "@cy"]).status == 1)

        // logout signs out the active account, and the other becomes active; --all signs out all.
        let out = try cli.run(["logout"])
        #expect(out.stdout == "Signed out. Active now: @bob.\n")
        #expect(try cli.run(["accounts"]).stdout == "* @bob\n")
        #expect(try cli.run(["--as", "ada", "whoami"]).status == 1)
        try cli.login("ada")
        #expect(try cli.run(["accounts"]).stdout == "  @bob\n* @ada\n")
        #expect(try cli.run(["logout", "--all"]).stdout == "Signed out of every account.\n")
        #expect(try cli.run(["whoami"]).status == 1)
        #expect(try cli.run(["accounts"]).stderr.hasPrefix("No account is signed in here."))
    }

    @Test(arguments: engines)
    func aSessionEndedElsewhereIsShownAndCannotBeSwitchedTo(_ engine: String) throws {
        let cli = try makeCLI(engine)
        try cli.register("ada", fullname: "Ada")
        try cli.register("bob", fullname: "Bob")
        // Ada changes her password as herself: her session here stays, Bob's is untouched.
        let changed = try cli.run(
            ["--as", "ada", "password", "--password-stdin"], stdin: "correct horse\nanother horse\n")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try cli.run(["switch", "ada"]).status == 0)
        // A second device signs Bob in, and changes his password: this device's Bob session ends.
        let state = cli.home.appendingPathComponent("elsewhere").path
        #expect(
            try cli.run(
                ["login", "bob", "--password-stdin"], stdin: "correct horse\n", environment: ["XDG_STATE_HOME": state]
            )
            .status == 0)
        let elsewhere = try cli.run(
            ["password", "--password-stdin"], stdin: "correct horse\nnew horse!\n",
            environment: ["XDG_STATE_HOME": state])
        #expect(elsewhere.stdout == "Password changed. Signed out 1 other session.\n", "\(elsewhere.stderr)")
        #expect(try cli.run(["accounts"]).stdout == "* @ada\n  @bob  (session ended: sign in again)\n")
        let refused = try cli.run(["switch", "bob"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: the session of @bob has ended; sign in with: "))

        // The active account's session ends elsewhere: listed so too, not an error.
        try cli.login("bob", password: "new horse!")
        let again = try cli.run(
            ["password", "--password-stdin"], stdin: "new horse!\nthird horse!\n",
            environment: ["XDG_STATE_HOME": state])
        #expect(again.status == 0, "\(again.stderr)")
        let listed = try cli.run(["accounts"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == "  @ada\n* @bob  (session ended: sign in again)\n", "\(listed.stdout)")
    }
}
