import Foundation
import ScratchPostgres
import Testing
import TweetTestSupport

/// The built `tweetcli` with `--store postgresql://…`, against the tests' throwaway cluster: the
/// same commands give the same answers as on a local store, exports move a store between the
/// engines byte for byte, concurrent writers lose nothing, and a server that goes away loses no
/// acknowledged write.
@Suite(.serialized, .enabled(if: PostgresCluster.isAvailable))
struct PostgresEndToEndTests {
    /// A local store seeded with demo data, and a PostgreSQL store imported from its export.
    private func twinStores() throws -> (local: CLIRunner, postgres: CLIRunner, export: String) {
        let local = try CLIRunner()
        let seed = try local.run(["seed", "--users", "30", "--tweets", "600", "--follows", "8", "--seed", "7"])
        #expect(seed.status == 0, "\(seed.stderr)")
        let export = try local.run(["export"])
        #expect(export.status == 0)
        let postgres = try CLIRunner(location: try PostgresCluster.freshLocation())
        let imported = try postgres.run(["import", "-"], stdin: export.stdout)
        #expect(imported.status == 0, "\(imported.stderr)")
        // Every line a document but the seeded photos' (`{"blob":…}`), which come along too.
        let lines = export.stdout.split(separator: "\n")
        let documents = lines.filter { !$0.hasPrefix("{\"blob\":") }.count
        #expect(lines.count - documents == 16, "8 photos and their thumbnails")
        #expect(imported.stdout.contains("Imported \(documents) documents"), "\(imported.stdout)")
        return (local, postgres, export.stdout)
    }

    /// Merging a store's own backup adds nothing and changes nothing, byte for byte, on either
    /// engine (the following lists it already agrees with stay trusted).
    @Test func mergingAStoresOwnExportChangesNothingOnEitherEngine() throws {
        let (local, postgres, export) = try twinStores()
        for cli in [local, postgres] {
            let merged = try cli.run(["import", "--merge", "-"], stdin: export)
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stdout.hasPrefix("Imported 0 documents; "), "\(merged.stdout)")
            #expect(try cli.run(["export"]).stdout == export, "the merge changed the store")
        }
    }

    @Test func exportAndImportMoveAStoreBetweenEnginesByteForByte() throws {
        let (_, postgres, export) = try twinStores()
        #expect(try postgres.run(["export"]).stdout == export)
        let back = try CLIRunner()
        #expect(try back.run(["import", "-"], stdin: try postgres.run(["export"]).stdout).status == 0)
        #expect(try back.run(["export"]).stdout == export)
        // A store that is not empty is refused, and keeps what it had.
        let again = try postgres.run(["import", "-"], stdin: export)
        #expect(again.status == 1)
        #expect(again.stderr.contains("the store is not empty"))
        #expect(try postgres.run(["export"]).stdout == export)
    }

    /// A seed streams its documents into PostgreSQL a batch at a time, and makes the same store as
    /// on the local engine, byte for byte; a second seed is refused and changes nothing.
    @Test func aSeedMakesTheSameStoreOnEitherEngine() throws {
        let arguments = [
            "seed", "--users", "40", "--tweets", "900", "--follows", "9", "--seed", "11", "--now",
            "2026-06-01T12:00:00Z",
        ]
        let local = try CLIRunner()
        let postgres = try CLIRunner(location: try PostgresCluster.freshLocation())
        for cli in [local, postgres] {
            let seeded = try cli.run(arguments)
            #expect(seeded.status == 0, "\(seeded.stderr)")
        }
        let export = try local.run(["export"]).stdout
        #expect(export.split(separator: "\n").count > 2_000)
        #expect(try postgres.run(["export"]).stdout == export)
        let again = try postgres.run(arguments)
        #expect(again.status == 1 && again.stderr.contains("already has users"), "\(again.stderr)")
        #expect(try postgres.run(["export"]).stdout == export)
    }

    @Test func everyReadingCommandAnswersAsOnTheLocalStore() throws {
        let (local, postgres, _) = try twinStores()
        let users = try jsonArray(try local.run(["explore", "--json"]).stdout)
        let username = try #require(users.first?["username"] as? String)
        let uid = try #require(users.first?["id"] as? String)
        for cli in [local, postgres] {
            let login = try cli.run(["login", "--username", username, "--password-stdin"], stdin: "tweetcli-demo\n")
            #expect(login.status == 0, "\(login.stderr)")
        }
        let feed = try jsonArray(try local.run(["feed", "--json"]).stdout)
        let tweet = try #require(feed.dropFirst(3).first?["id"] as? String)
        let commands: [[String]] = [
            ["feed"], ["feed", "--following"], ["feed", "--limit", "50"], ["feed", "--before", tweet],
            ["profile", uid], ["profile", uid, "--tab", "replies"], ["profile", uid, "--tab", "likes"],
            ["explore"], ["explore", String(username.prefix(2))], ["search", "the"], ["search", "#swiftui"],
            ["search", "@\(username)"], ["search", "東京"], ["search", "from:\(username) the"], ["trends"],
            ["trends", "--hours", "168"], ["bookmarks"], ["thread", tweet], ["whoami"], ["notifications"],
        ]
        for command in commands {
            let expected = try local.run(command + ["--json"])
            let actual = try postgres.run(command + ["--json"])
            #expect(expected.status == 0, "\(command): \(expected.stderr)")
            #expect(actual.stdout == expected.stdout, "\(command) differs on PostgreSQL")
            #expect(actual.stderr == expected.stderr, "\(command)")
        }
    }

    @Test func writesWorkAsOnTheLocalStore() throws {
        let cli = try CLIRunner(location: try PostgresCluster.freshLocation())
        try cli.register("ada", fullname: "Ada")
        let first = try cli.post("hello #postgres from @ada")
        let reply = try cli.run(["post", "a reply", "--reply-to", first, "--json"])
        #expect(reply.status == 0, "\(reply.stderr)")
        for action in ["like", "retweet", "bookmark"] {
            #expect(try cli.run([action, first]).status == 0, "\(action)")
        }
        let row = try #require(
            try jsonArray(try cli.run(["feed", "--json"]).stdout).first { $0["id"] as? String == first })
        #expect(row["likes"] as? Int == 1)
        #expect(row["replyCount"] as? Int == 1)
        #expect(row["retweets"] as? Int == 1)
        #expect(try cli.run(["search", "#postgres"]).stdout.contains("hello #postgres"))
        #expect(try cli.run(["trends"]).stdout.contains("#postgres"))
        #expect(try cli.run(["delete", "-f", first]).status == 0)
        #expect(try jsonArray(try cli.run(["bookmarks", "--json"]).stdout).isEmpty)
        #expect(!(try cli.run(["search", "#postgres", "--json"]).stdout.contains(first)))
        // The server keeps its own files; doctor checks the documents, as on the local engine.
        let doctor = try cli.run(["doctor"])
        #expect(doctor.status == 0, "\(doctor.stderr)")
        #expect(doctor.stdout.contains("is healthy"))
    }

    @Test func badLocationsAndAnEmptyDatabaseAreClear() throws {
        let socket = try PostgresCluster.state.get()
        let missing = try CLIRunner(location: "postgresql://ada:hunter22@/no_such_db?host=\(socket)&user=postgres")
        let feed = try missing.run(["feed"])
        #expect(feed.status == 1)
        #expect(feed.stderr.contains("there is no such database"), "\(feed.stderr)")
        #expect(!feed.stderr.contains("hunter22"))
        // The hint that repeats --store leaves the password out too.
        let signedOut = try CLIRunner(
            location: try PostgresCluster.freshLocation().replacingOccurrences(
                of: "user=postgres", with: "user=postgres&password=hunter22"))
        let whoami = try signedOut.run(["whoami"])
        #expect(whoami.status == 1)
        #expect(whoami.stderr.contains("login"), "\(whoami.stderr)")
        #expect(!whoami.stderr.contains("hunter22"), "\(whoami.stderr)")
        #expect(feed.stderr.split(separator: "\n").count <= 2)
        let empty = try CLIRunner(location: try PostgresCluster.freshLocation())
        let read = try empty.run(["feed"])
        #expect(read.status == 0, "an empty database reads as empty: \(read.stderr)")
        let post = try empty.run(["post", "hi"])
        #expect(post.status == 1)
    }

    @Test func eightPostersAndTwoLikersAtOnceLoseNothing() throws {
        let cli = try CLIRunner(location: try PostgresCluster.freshLocation())
        try StoreSafetyTests.postersAndLikersLoseNothing(cli, posters: 8)
    }

    /// A server that lets every role in by trust makes every account anyone's: `admin setup` sets
    /// up all the same, and says so on stderr.
    @Test func setUpOnAServerThatChecksNoPasswordWarns() throws {
        let cluster = try DedicatedCluster()
        defer { cluster.stop() }
        let setup = try CLIRunner(location: cluster.location).run(["admin", "setup"])
        #expect(setup.status == 0 && setup.stdout.contains("Give people this store"), "\(setup.stderr)")
        #expect(setup.stderr.hasPrefix("warning: the server let the guest in with a wrong password"))
        #expect(setup.stderr.split(separator: "\n").count == 1, "\(setup.stderr)")
    }

    @Test func aServerStoppedMidRunLosesNoAcknowledgedPost() throws {
        let cluster = try DedicatedCluster()
        defer { cluster.stop() }
        let cli = try CLIRunner(location: cluster.location)
        try cli.register("ada", fullname: "Ada")
        var acknowledged: [String] = []
        var refused: [CLIRunner.Result] = []
        for number in 1...40 {
            if number == 15 { cluster.stop() }
            if number == 25 { try cluster.start() }
            let result = try cli.run(["post", "post \(number)"])
            if result.status == 0 { acknowledged.append("post \(number)") } else { refused.append(result) }
        }
        #expect(!refused.isEmpty)
        for result in refused {
            #expect(
                result.stderr.contains("not running or not reachable") || result.stderr.contains("was lost"),
                "\(result.stderr)")
        }
        let captions = Set(
            try jsonArray(try cli.run(["feed", "--json", "--limit", "100"]).stdout).compactMap {
                $0["caption"] as? String
            })
        #expect(Set(acknowledged).isSubset(of: captions))
        #expect(acknowledged.count >= 20)
    }
}

/// A cluster of one test's own, to stop and start: the shared one serves tests running at once.
private final class DedicatedCluster {
    let location: String
    private let cluster: ScratchCluster

    init() throws {
        let shared = try PostgresCluster.state.get()
        cluster = try ScratchCluster.create(in: shared + "-dedicated-\(UUID().uuidString.prefix(8))")
        location = cluster.uri("postgres")
        try start()
    }

    func start() throws {
        try cluster.start(fsync: false)
    }

    func stop() {
        try? cluster.stop(immediately: true)  // a crash, as the test means; a failure shows in its next step
    }

    deinit {
        try? FileManager.default.removeItem(atPath: cluster.directory)
    }
}
