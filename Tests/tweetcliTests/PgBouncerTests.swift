import Foundation
import ScratchPostgres
import Testing
import TweetSystem
import TweetTestSupport

/// tweetcli through PgBouncer in transaction pooling mode, two server connections shared by every
/// client: each command works, a seed (one long transaction with temporary tables) makes the
/// same store as on the local engine while other clients read through the same pool, and a
/// watch, which needs a server connection of its own, says to name the server itself.
@Suite(.serialized, .enabled(if: PostgresCluster.isAvailable))
struct PgBouncerTests {
    private func bouncer() throws -> PgBouncer? {
        guard PgBouncer.isAvailable else {
            #expect(!PostgresCluster.isRequired, "pgbouncer is missing; Scripts/packages.sh installs it")
            return nil
        }
        return try PgBouncer(serverConnections: 2)
    }

    @Test func aSeedThroughThePoolerIsTheLocalSeedWhileOthersRead() throws {
        guard let bouncer = try bouncer() else { return }
        let arguments = [
            "seed", "--users", "40", "--tweets", "3000", "--follows", "9", "--seed", "5", "--now",
            "2026-06-01T12:00:00Z",
        ]
        let local = try CLIRunner()
        #expect(try local.run(arguments).status == 0)
        let pooled = try CLIRunner(location: try bouncer.freshDatabase())
        // Readers keep both server connections busy between the seed's statements, so that a load
        // that left its transaction between batches would find its tables on the other one.
        let seed = try pooled.start(arguments)
        var reads = 0
        while seed.isRunning {
            let feed = try pooled.run(["feed", "--limit", "5"])
            #expect(feed.status == 0, "\(feed.stderr)")
            reads += 1
        }
        seed.waitUntilExit()
        #expect(seed.terminationStatus == 0)
        #expect(reads > 0)
        #expect(try pooled.run(["export"]).stdout == (try local.run(["export"]).stdout))
    }

    /// The pooler passes no timeouts on at connection: each transaction sets its own, so a writer
    /// that waits for a lock another client holds still ends with a sentence.
    @Test func aTransactionThroughThePoolerStillHasItsLockTimeout() throws {
        guard let bouncer = try bouncer() else { return }
        let uri = try bouncer.freshDatabase()
        let cli = try CLIRunner(location: uri)
        try cli.register("ada", fullname: "Ada")
        #expect(try cli.run(["config", "set", "postgres-lock-timeout", "2"]).status == 0)
        // Another client holds the clock row every write takes, for 15 seconds, on the server.
        let database = try #require(uri.split(separator: "?").first?.split(separator: "/").last)
        let psql = try #require(ScratchCluster.binaries()) + "/psql"
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: psql)
        holder.arguments = [
            "-X", "-q", "-h", try PostgresCluster.state.get(), "-U", "postgres", "-d", String(database), "-c",
            "BEGIN; SELECT 1 FROM tweetcli_clock WHERE id = 1 FOR UPDATE; SELECT pg_sleep(15); COMMIT",
        ]
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        defer { holder.terminate() }
        usleep(500_000)
        let started = Date()
        let post = try cli.run(["post", "waits for the lock"])
        let took = Date().timeIntervalSince(started)
        #expect(post.status == 1)
        #expect(post.stderr.contains("lock timeout"), "\(post.stderr)")
        #expect(took < 8, "the post waited \(took) s")
    }

    /// Each device connects as a role of its own, so the pooler keeps a pool for each; the server
    /// still knows who acts from `session_user`. Each proves its password to the pooler (SCRAM,
    /// the verifier found with `auth_query`), and the pooler signs in to the server with its keys.
    @Test func aDatabaseSetUpForManyPeopleWorksThroughThePooler() throws {
        guard let bouncer = try bouncer() else { return }
        let setup = try CLIRunner(location: try bouncer.freshDatabase()).run(["admin", "setup"])
        #expect(setup.status == 0, "\(setup.stderr)")
        guard let guest = PostgresCluster.guestLocation(printedBy: setup) else { return }
        let ada = try CLIRunner(location: guest)
        let bob = try CLIRunner(location: guest)
        try ada.register("ada", fullname: "Ada")
        try bob.register("bob", fullname: "Bob")
        let id = try ada.post("pooled, and under the rules")
        for (cli, arguments) in [
            (bob, ["like", id]), (bob, ["follow", "@ada"]), (bob, ["bookmark", id]), (ada, ["notifications"]),
            (bob, ["feed", "--following"]), (ada, ["unfollow", "@bob"]),
        ] {
            let result = try cli.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let likes = try ada.run(["show", id, "--json"])
        #expect((try? json(likes.stdout))?["likes"] as? Int == 1, "\(likes.stdout) \(likes.stderr)")
        // Bob's bookmark is his alone, through the pooler too.
        let bookmarks = try ada.run(["bookmarks", "--json"])
        #expect(bookmarks.status == 0 && !bookmarks.stdout.contains(id), "\(bookmarks.stdout)")
        let change = try bob.run(["password", "--password-stdin"], stdin: "correct horse\nbattery staple\n")
        #expect(change.status == 0, "\(change.stderr)")
        #expect(try bob.run(["logout"]).status == 0)
        // The pooler checks the password as the server would: the old one opens nothing.
        let old = try bob.run(["login", "bob", "--password-stdin"], stdin: "correct horse\n")
        #expect(old.status == 1 && old.stderr.contains("wrong"), "\(old.stderr)")
        try bob.login("bob", password: "battery staple")
        #expect(try bob.run(["whoami"]).stdout.contains("@bob"))
    }

    @Test func everyCommandWorksThroughThePooler() throws {
        guard let bouncer = try bouncer() else { return }
        let cli = try CLIRunner(location: try bouncer.freshDatabase())
        try cli.register("bob", fullname: "Bob")
        let bobs = try cli.post("bob's first #pooled")
        try cli.register("ada", fullname: "Ada")
        let first = try cli.post("hello through the pooler #pooled")
        for command in [
            ["like", bobs], ["retweet", bobs], ["bookmark", bobs], ["follow", "@bob"],
            ["post", "a reply", "--reply-to", bobs], ["post", "a quote", "--quote", bobs],
            ["edit-profile", "--bio", "pooled"],
        ] {
            let result = try cli.run(command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        let feed = try jsonArray(try cli.run(["feed", "--following", "--json"]).stdout)
        #expect(feed.contains { $0["id"] as? String == first })
        #expect(feed.contains { $0["id"] as? String == bobs && $0["likes"] as? Int == 1 })
        #expect(try jsonArray(try cli.run(["search", "#pooled", "--json"]).stdout).count == 2)
        #expect(try jsonArray(try cli.run(["bookmarks", "--json"]).stdout).count == 1)
        #expect(try cli.run(["thread", bobs]).stdout.contains("a reply"))
        #expect(try cli.run(["profile", "@ada"]).stdout.contains("pooled"))
        #expect(try cli.run(["delete", first, "--force"]).status == 0)
        #expect(try cli.run(["show", first]).status == 1)
        try cli.login("bob")
        #expect(try cli.run(["notifications"]).stdout.contains("Ada"))
        // A backup moves through the pooler both ways, byte for byte.
        let export = try cli.run(["export"]).stdout
        let copy = try CLIRunner(location: try bouncer.freshDatabase())
        #expect(try copy.run(["import", "-"], stdin: export).status == 0)
        #expect(try copy.run(["export"]).stdout == export)
        #expect(try cli.run(["doctor"]).status == 0)

        // A watch cannot listen through the pooler: one sentence, naming what to do.
        let watch = try cli.run(["feed", "--watch"])
        #expect(watch.status == 1)
        #expect(
            watch.stderr.contains("pooler") && watch.stderr.contains("the PostgreSQL server itself"), "\(watch.stderr)")
        #expect(watch.stderr.split(separator: "\n").count == 1)
    }
}
