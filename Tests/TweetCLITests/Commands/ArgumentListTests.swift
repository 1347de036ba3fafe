import Foundation
import Testing

@testable import TweetCLI

@MainActor
struct ArgumentListTests {
    @Test(arguments: [["-n", "5"], ["-n5"], ["--limit", "5"], ["--limit=5"]])
    func shortAndLongSpellingsMeanTheSame(_ arguments: [String]) throws {
        #expect(try FeedCommand(arguments: arguments).limit == 5)
    }

    @Test(arguments: [
        (["--following", "--following"], "--following was given twice; give it once"),
        (["-n", "3", "--limit", "4"], "--limit was given twice; give it once"),
        (["--limit", "0"], "--limit must be a whole number from 1 to 200, not '0'"),
        (["--limit"], "--limit needs a value"), (["-x"], "unknown option '-x'"),
        (["--following=yes"], "--following takes no value"), (["extra"], "unexpected argument 'extra'"),
    ])
    func badArgumentsAreUsageErrorsThatSayWhy(_ arguments: [String], _ message: String) {
        #expect(throws: UsageError(message, usage: FeedCommand.usage)) { try FeedCommand(arguments: arguments) }
    }

    @Test func afterADoubleDashEverythingIsACaption() throws {
        let post = try PostCommand(arguments: ["--", "-n", "--dry-run"])
        #expect(post.words == ["-n", "--dry-run"])
        #expect(!post.dryRun)
    }

    @Test func loginTakesOneNameForTheAccountOrNoneToAskFor() throws {
        let once = UsageError(
            "name the account once: a USERNAME, an EMAIL, --email or --username", usage: LoginCommand.usage)
        #expect(throws: once) { try LoginCommand(arguments: ["--username", "ada", "--email", "a@b.co"]) }
        #expect(throws: once) { try LoginCommand(arguments: ["ada", "--username", "ada"]) }
        #expect(try LoginCommand(arguments: []).identifier == nil)
        #expect(try LoginCommand(arguments: ["ada"]).identifier == .username("ada"))
        #expect(try LoginCommand(arguments: ["@ada"]).identifier == .username("@ada"))
        #expect(try LoginCommand(arguments: [" ada@example.com "]).identifier == .email("ada@example.com"))
    }

    @Test func deleteTakesForceShortOrLong() throws {
        #expect(try DeleteCommand(arguments: ["id1", "-f"]).force)
        #expect(try DeleteCommand(arguments: ["--force", "id1"]).force)
        #expect(try !DeleteCommand(arguments: ["id1"]).force)
    }

    @Test func globalOptionsAreTakenFromAnywhereAndOnce() throws {
        var arguments = ["feed", "--json", "--store", "/tmp/s", "--no-pager", "-n", "2"]
        let options = try GlobalOptions.extract(from: &arguments)
        #expect(options == GlobalOptions(storePath: "/tmp/s", json: true, color: nil, pager: false))
        #expect(arguments == ["feed", "-n", "2"])
        var twice = ["--json", "feed", "--json"]
        #expect(throws: UsageError("--json was given twice; give it once")) { try GlobalOptions.extract(from: &twice) }
    }

    @Test func hintsRepeatTheStoreSoTheyWorkAsTyped() {
        #expect(GlobalOptions().suggest("feed") == "tweetcli feed")
        #expect(GlobalOptions(storePath: "/tmp/demo").suggest("feed") == "tweetcli --store /tmp/demo feed")
        #expect(GlobalOptions(storePath: "my store").suggest("feed") == "tweetcli --store 'my store' feed")
        #expect(ShellQuote.quote("it's") == "'it'\\''s'")
    }

    @Test(arguments: [
        ("2026-12-05T12:00:00Z", 1_796_472_000.0), ("2026-12-05T12:00:00.250Z", 1_796_472_000.25),
        ("2026-12-05T21:30:00+09:30", 1_796_472_000), ("2026-12-05T07:00:00-05:00", 1_796_472_000),
    ])
    func seedTakesTheTimeToAnchorToInISO8601(_ text: String, _ seconds: Double) throws {
        #expect(try SeedCommand(arguments: ["--now", text]).options.now == Date(timeIntervalSince1970: seconds))
        #expect(try SeedCommand(arguments: []).options.now == nil, "the time of seeding")
    }

    @Test(arguments: [
        "yesterday", "2026-12-05", "2026-12-05T12:00:00", "2026-12-05 12:00:00Z", "2026-12-05T12:00:00+9:00",
        "2026-12-05T12:00:00+24:00", "1999-12-31T23:59:59Z", "3000-01-01T00:00:00Z", "",
    ])
    func seedRefusesATimeItCannotUse(_ text: String) {
        let message =
            "--now must be a time in ISO 8601 from the year 2000 to 2999, such as 2026-12-05T12:00:00Z, not '\(text)'"
        #expect(throws: UsageError(message, usage: SeedCommand.usage)) { try SeedCommand(arguments: ["--now", text]) }
    }

    @Test func seedRefusesImpossibleCountsBeforeOpeningAnything() throws {
        #expect(throws: (any Error).self) { try SeedCommand(arguments: ["--users", "3", "--follows", "5"]).validate() }
        try SeedCommand(arguments: ["--users", "3", "--follows", "2"]).validate()
    }
}
