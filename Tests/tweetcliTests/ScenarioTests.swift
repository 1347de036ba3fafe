import Foundation
import Testing
import TweetTestSupport

/// Two users go through the whole app with the built `tweetcli`.
@Suite(.serialized)
struct ScenarioTests {
    @Test func twoUsersRegisterPostReplyLikeFollowAndReadEveryScreen() throws {
        let cli = try CLIRunner()

        let empty = try cli.run(["feed"])
        #expect(empty.status == 0)
        let prefix = "tweetcli --store \(cli.store.path)"
        #expect(empty.stderr.contains("\(prefix) register") && empty.stderr.contains("\(prefix) post"))
        #expect(empty.stdout.isEmpty)

        let alice = try cli.register("alice", fullname: "Alice Liddell")
        let hello = try cli.post("Hello from Alice 👋 안녕하세요")
        let bob = try cli.register("Bob", fullname: "Bob Builder")
        #expect(alice != bob && !alice.isEmpty)
        let reply = try cli.post("Welcome, Alice!", replyTo: hello)
        let own = try cli.post("Bob's own tweet")

        // Bob likes Alice's tweet; liking twice counts once.
        for _ in 0..<2 {
            let liked = try cli.run(["like", hello, "--json"])
            #expect(liked.status == 0, "\(liked.stderr)")
            #expect(try json(liked.stdout)["likes"] as? Int == 1)
        }

        let follow = try cli.run(["follow", "@alice"])
        #expect(follow.status == 0)
        #expect(follow.stdout.contains("You follow Alice Liddell @alice now."))

        // The feed: newest first, authors joined, didLike for the signed-in user.
        let feed = try jsonArray(try cli.run(["feed", "--json"]).stdout)
        #expect(feed.map { $0["id"] as? String } == [own, reply, hello])
        #expect((feed[2]["user"] as? [String: Any])?["username"] as? String == "alice")
        #expect(feed[2]["didLike"] as? Bool == true)
        #expect(feed[1]["replyToId"] as? String == hello)
        let timestamp = try #require(feed[0]["timestamp"] as? String)
        #expect(timestamp.hasSuffix("Z") && timestamp.contains("T"))

        // Global flags after the command, paging with --before.
        let page = try jsonArray(try cli.run(["feed", "--limit", "2", "--json"]).stdout)
        #expect(page.count == 2)
        let next = try jsonArray(try cli.run(["feed", "--json", "--limit", "2", "--before", reply]).stdout)
        #expect(next.map { $0["id"] as? String } == [hello])

        // Profiles and their tabs.
        let bobProfile = try json(try cli.run(["profile", "--json"]).stdout)
        #expect((bobProfile["user"] as? [String: Any])?["id"] as? String == bob)
        #expect(bobProfile["stats"] as? [String: Int] == ["following": 1, "followers": 0, "tweets": 2])
        #expect((bobProfile["tweets"] as? [[String: Any]])?.map { $0["id"] as? String } == [own])
        let replies = try json(try cli.run(["profile", "--tab", "replies", "--json"]).stdout)
        #expect((replies["tweets"] as? [[String: Any]])?.map { $0["id"] as? String } == [reply])
        let likes = try json(try cli.run(["profile", bob, "--tab", "likes", "--json"]).stdout)
        #expect((likes["tweets"] as? [[String: Any]])?.map { $0["id"] as? String } == [hello])
        let aliceProfile = try cli.run(["profile", "@alice"])
        #expect(aliceProfile.stdout.contains("Alice Liddell"))
        #expect(aliceProfile.stdout.contains("0 Following  1 Follower  "))
        #expect(aliceProfile.stdout.contains("[Following]"))
        #expect(
            try json(try cli.run(["profile", "@alice", "--json"]).stdout)["stats"] as? [String: Int]
                == ["following": 0, "followers": 1, "tweets": 1])

        // Explore searches usernames and full names, case-insensitively.
        let explore = try jsonArray(try cli.run(["explore", "LIDDELL", "--json"]).stdout)
        #expect(explore.map { $0["username"] as? String } == ["alice"])
        #expect(try jsonArray(try cli.run(["explore", "--json"]).stdout).count == 2)

        // The following feed, then unfollow.
        let following = try jsonArray(try cli.run(["feed", "--following", "--json"]).stdout)
        #expect(following.count == 3)
        #expect(try cli.run(["unfollow", alice]).status == 0)
        let afterUnfollow = try jsonArray(try cli.run(["feed", "--following", "--json"]).stdout)
        #expect(afterUnfollow.map { $0["id"] as? String } == [own, reply])

        // Unlike, then edit the profile and delete a tweet.
        #expect(try json(try cli.run(["unlike", hello, "--json"]).stdout)["likes"] as? Int == 0)
        let edited = try cli.run(["edit-profile", "--bio", "Can fix it", "--website", "https://bob.example", "--json"])
        #expect(try json(edited.stdout)["bio"] as? String == "Can fix it")
        #expect(try cli.run(["delete", own, "--force"]).status == 0)
        #expect(try json(try cli.run(["whoami", "--json"]).stdout)["username"] as? String == "bob")

        // Sign out and back in as Alice, by username.
        #expect(try cli.run(["logout", "--all"]).status == 0)
        #expect(try cli.run(["whoami"]).status == 1)
        try cli.login("ALICE")
        #expect(try json(try cli.run(["whoami", "--json"]).stdout)["id"] as? String == alice)
        let human = try cli.run(["feed"])
        #expect(human.stdout.contains("Alice Liddell @alice"))
        #expect(human.stdout.contains("id \(hello.prefix(8))"))
        #expect(!human.stdout.contains(hello), "rows show short IDs")
        #expect(!human.stdout.contains("\u{1B}["))
    }

    /// A backup restored into a store that has been used since: `import --merge` adds what the
    /// store lacks, keeps what it has, and says which documents differ.
    @Test func importMergeAddsABackupToAStoreInUse() throws {
        let old = try CLIRunner()
        try old.register("carol", fullname: "Carol")
        try old.register("bob", fullname: "Bob")
        _ = try old.post("bob's news")
        let alice = try old.register("alice", fullname: "Alice Liddell")
        let first = try old.post("from before the move")
        #expect(try old.run(["follow", "@carol"]).status == 0)
        let backup = try old.run(["export"])
        #expect(backup.status == 0)
        let current = try CLIRunner()
        #expect(try current.run(["import", "-"], stdin: backup.stdout).status == 0)
        try current.login("alice")
        _ = try current.post("after the move")
        #expect(try current.run(["edit-profile", "--bio", "written here"]).status == 0)
        // Without --merge a store in use is refused, and keeps what it has.
        let refused = try current.run(["import", "-"], stdin: backup.stdout)
        #expect(refused.status != 0 && refused.stderr.contains("--merge adds to one"), "\(refused.stderr)")
        _ = try old.post("written to the old store later")
        #expect(try old.run(["follow", "@bob"]).status == 0)
        #expect(try old.run(["edit-profile", "--bio", "written there"]).status == 0)
        let later = try old.run(["export"])
        let merged = try current.run(["import", "--merge", "-"], stdin: later.stdout)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.hasPrefix("Imported "), "\(merged.stdout)")
        #expect(merged.stdout.contains("differ from the store's and were left as they are:"), "\(merged.stdout)")
        #expect(merged.stdout.contains("\n  users/\(alice)\n"), "alice's profile differs: \(merged.stdout)")
        let json = try json(try current.run(["--json", "import", "--merge", "-"], stdin: later.stdout).stdout)
        #expect(json["documents"] as? Int == 0, "a second merge adds nothing: \(json)")
        #expect((json["unchanged"] as? Int ?? 0) > 0)
        #expect((json["conflicts"] as? [String])?.contains("users/\(alice)") == true, "\(json)")
        let feed = try current.run(["feed"]).stdout
        for caption in ["from before the move", "after the move", "written to the old store later"] {
            #expect(feed.contains(caption), "\(caption) in \(feed)")
        }
        // The follow made in the old store is followed here too, though alice's counters and
        // following list were this store's.
        let following = try current.run(["feed", "--following"]).stdout
        #expect(following.contains("bob's news"), "\(following)")
        #expect(
            try current.run(["profile", "@alice"]).stdout.contains("written here"), "the conflict kept this store's")
        #expect(try current.run(["thread", first]).status == 0)
    }

    @Test func postReadsTheCaptionFromStdinWithDash() throws {
        let cli = try CLIRunner()
        try cli.register("carol", fullname: "Carol")
        let result = try cli.run(["post", "-", "--json"], stdin: "Line one\nline two\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try json(result.stdout)["caption"] as? String == "Line one\nline two")
    }

    @Test func seedMakesTheSameStoreForTheSameSeedAndTime() throws {
        let first = try CLIRunner()
        let second = try CLIRunner()
        // The same time written two ways.
        for (cli, now) in [(first, "2026-12-05T12:00:00Z"), (second, "2026-12-05T21:00:00+09:00")] {
            let result = try cli.run(["seed", "--users", "5", "--tweets", "30", "--seed", "7", "--now", now])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let a = try first.run(["feed", "--limit", "50", "--json"]).stdout
        let b = try second.run(["feed", "--limit", "50", "--json"]).stdout
        #expect(a == b)
        #expect(try jsonArray(a).count == 30)
        #expect(try first.run(["export"]).stdout == second.run(["export"]).stdout)
        // A demo account signs in with the documented password.
        let user = try #require(
            try jsonArray(try first.run(["explore", "--json"]).stdout).first?["username"] as? String)
        try first.login(user, password: "tweetcli-demo")
    }

    @Test func aSeededStoreIsTweetingNowAndTrendsRightAway() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed"]).status == 0)
        let newest = try #require(try jsonArray(try cli.run(["feed", "--limit", "1", "--json"]).stdout).first)
        let time = try Date(#require(newest["timestamp"] as? String), strategy: .iso8601)
        #expect(time < Date() && time > Date().addingTimeInterval(-15 * 60), "minutes old")
        let trends = try cli.run(["trends"])
        #expect(trends.status == 0)
        #expect(trends.stdout.hasPrefix("What's happening (the last 24 hours)\n1. #"), "\(trends.stdout)")
        #expect(try jsonArray(try cli.run(["trends", "--json"]).stdout).count >= 3)
    }

    @Test func seedRefusesATimeItCannotReadInOneSentence() throws {
        let cli = try CLIRunner()
        let result = try cli.run(["seed", "--now", "yesterday"])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "error: --now must be a time in ISO 8601 from the year 2000 to 2999, such as 2026-12-05T12:00:00Z, "
                    + "not 'yesterday'\nusage: tweetcli seed "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func colourOnlyWhenAskedAndNeverWithNoColor() throws {
        let cli = try CLIRunner()
        try cli.register("dave", fullname: "Dave")
        _ = try cli.post("colourful")
        #expect(try cli.run(["feed", "--color", "always"]).stdout.contains("\u{1B}["))
        // A flag on the command line beats NO_COLOR (no-color.org); NO_COLOR beats the default.
        #expect(try cli.run(["feed", "--color", "always"], environment: ["NO_COLOR": "1"]).stdout.contains("\u{1B}["))
        #expect(!(try cli.run(["feed"], environment: ["NO_COLOR": "1"]).stdout.contains("\u{1B}[")))
        #expect(!(try cli.run(["feed"]).stdout.contains("\u{1B}[")))
    }

    @Test func helpPrintsToStdoutAndExitsZero() throws {
        let cli = try CLIRunner()
        for arguments in [["help"], ["--help"], ["feed", "--help"], ["help", "post"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.contains("usage: tweetcli"))
            #expect(result.stderr.isEmpty)
        }
    }
}
