import Foundation
import Testing
import TweetTestSupport

/// Retweets, quotes, bookmarks, notifications and threads through the built `tweetcli`: their
/// text, their JSON shapes and their bad inputs.
@Suite(.serialized)
struct ActivityEndToEndTests {
    /// Ada posts; Bob follows her, likes, retweets, quotes, replies and bookmarks; Cy likes too.
    func conversation() throws -> (cli: CLIRunner, hello: String, reply: String, quote: String) {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada Lovelace")
        let hello = try cli.post("hello from ada")
        try cli.register("bob", fullname: "Bob Builder")
        #expect(try cli.run(["follow", "@ada"]).status == 0)
        for command in ["like", "retweet", "bookmark"] {
            let result = try cli.run([command, hello])
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        let quoted = try cli.run(["post", "so true", "--quote", hello, "--json"])
        #expect(quoted.status == 0, "\(quoted.stderr)")
        let quote = try json(quoted.stdout)["id"] as? String ?? ""
        let reply = try cli.post("welcome, @ada", replyTo: hello)
        try cli.register("cy", fullname: "Cy Young")
        #expect(try cli.run(["like", hello]).status == 0)
        return (cli, hello, reply, quote)
    }

    @Test func theBellGroupsLikesShowsTheRestAndMovesItsMarker() throws {
        let (cli, _, _, _) = try conversation()
        try cli.login("ada")
        let whoami = try cli.run(["whoami", "--json"])
        #expect(try json(whoami.stdout)["unreadNotifications"] as? Int == 6)
        let feed = try cli.run(["feed"])
        #expect(feed.stderr.hasPrefix("6 new notifications: tweetcli --store \(cli.store.path) notifications\n"))
        #expect(!feed.stdout.contains("new notifications"), "a pipe gets only the data")

        let text = try cli.run(["notifications"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Cy Young and 1 other liked your tweet"), "\(text.stdout)")
        for line in [
            "Bob Builder replied to you", "Bob Builder quoted your tweet", "Bob Builder retweeted your tweet",
            "Bob Builder followed you",
        ] {
            #expect(text.stdout.contains(line), "\(line) in \(text.stdout)")
        }
        // The list was shown: nothing is unread now, and the feed says nothing.
        #expect(try json(try cli.run(["whoami", "--json"]).stdout)["unreadNotifications"] as? Int == 0)
        #expect(!(try cli.run(["feed"]).stdout.contains("new notification")))
        #expect(try cli.run(["notifications", "--unread"]).stdout == "No new notifications.\n")

        let listed = try jsonArray(try cli.run(["notifications", "--json"]).stdout)
        #expect(listed.map { $0["type"] as? String } == ["like", "reply", "quote", "retweet", "like", "follow"])
        #expect(Set(listed[0].keys) == ["id", "type", "from", "fromUid", "tweet", "tweetId", "timestamp", "read"])
        #expect((listed[0]["from"] as? [String: Any])?["username"] as? String == "cy")
        #expect(listed[0]["read"] as? Bool == true)
        #expect(listed[5]["tweet"] is NSNull)
        #expect((listed[5]["from"] as? [String: Any])?["email"] == nil)  // Others' emails stay private.
    }

    @Test func rowsShowRepliesRetweetsQuotesAndWhoRetweeted() throws {
        let (cli, hello, reply, quote) = try conversation()
        try cli.login("bob")
        let feed = try jsonArray(try cli.run(["feed", "--following", "--json"]).stdout)
        #expect(feed.map { $0["id"] as? String } == [reply, quote, hello])
        let original = feed[2]
        #expect((original["retweetedBy"] as? [String: Any])?["username"] as? String == "bob")
        #expect(original["retweetedAt"] is String)
        #expect(original["replyCount"] as? Int == 1)
        #expect(original["retweets"] as? Int == 1)
        #expect(original["quotes"] as? Int == 1)
        #expect(original["likes"] as? Int == 2)
        #expect(original["didRetweet"] as? Bool == true)
        #expect((feed[0]["replyTo"] as? [String: Any])?["username"] as? String == "ada")
        #expect((feed[1]["quoted"] as? [String: Any])?["id"] as? String == hello)

        let text = try cli.run(["feed", "--following"]).stdout
        #expect(text.contains("↻ Bob Builder retweeted"), "\(text)")
        #expect(text.contains("↳ replying to @ada"))
        #expect(text.contains("  │ hello from ada"))
        #expect(text.contains("♥ 2  ↻ 1  ↩ 1  ❝ 1  id \(hello.prefix(8))"))  // Bob likes it too.
        #expect(!text.contains(hello), "rows show short IDs")

        let bookmarks = try jsonArray(try cli.run(["bookmarks", "--json"]).stdout)
        #expect(bookmarks.map { $0["id"] as? String } == [hello])
        try cli.login("ada")
        #expect(try jsonArray(try cli.run(["bookmarks", "--json"]).stdout).isEmpty)  // Bob's are his.

        // Ada deletes: the quote says so, the reply says its parent is gone, the retweet is gone.
        #expect(try cli.run(["delete", hello, "--force"]).status == 0)
        try cli.login("bob")
        let after = try cli.run(["feed", "--following"]).stdout
        #expect(after.contains("  │ this tweet was deleted"), "\(after)")
        #expect(after.contains("↳ replying to a tweet that was deleted"))
        #expect(!after.contains("retweeted"))
        #expect(try cli.run(["bookmarks"]).stderr.hasPrefix("No bookmarks yet."))
    }

    @Test func aThreadShowsTheChainAndTheRepliesWithTheirDepth() throws {
        let (cli, hello, reply, _) = try conversation()
        try cli.login("ada")
        let answer = try cli.post("thanks!", replyTo: reply)
        let thread = try json(try cli.run(["thread", reply, "--json"]).stdout)
        #expect((thread["ancestors"] as? [[String: Any]])?.map { $0["id"] as? String } == [hello])
        #expect((thread["tweet"] as? [String: Any])?["id"] as? String == reply)
        let replies = try #require(thread["replies"] as? [[String: Any]])
        #expect(replies.map { $0["id"] as? String } == [answer])
        #expect(replies.first?["depth"] as? Int == 1)
        let text = try cli.run(["thread", hello]).stdout
        #expect(text.contains("Replies"), "\(text)")
        #expect(text.contains("\n  thanks!\n"), "a reply to a reply is indented: \(text)")
    }

    @Test func searchAndTrendsFindWhatWasPosted() throws {
        let (cli, hello, reply, _) = try conversation()
        try cli.login("ada")
        _ = try cli.post("Café talk #SwiftUI in 東京")
        let found = try jsonArray(try cli.run(["search", "hello", "--json"]).stdout)
        #expect(found.map { $0["id"] as? String } == [hello])
        #expect(try jsonArray(try cli.run(["search", "@ada", "--json"]).stdout).map { $0["id"] as? String } == [reply])
        let text = try cli.run(["search", "cafe", "東京"])
        #expect(text.stdout.contains("Café talk #SwiftUI in 東京"), "\(text.stdout)")
        #expect(try cli.run(["search", "nothing-like-it"]).stdout == "No tweets match nothing-like-it.\n")
        let trends = try jsonArray(try cli.run(["trends", "--json"]).stdout)
        #expect(trends.first?["hashtag"] as? String == "#SwiftUI")
        #expect(trends.first?["tweets"] as? Int == 1)
        #expect(try cli.run(["trends"]).stdout.contains("1. #SwiftUI · 1 tweet"))
        for bad in [["search"], ["search", " "], ["trends", "--hours", "0"], ["trends", "--hours", "169"]] {
            let result = try cli.run(bad)
            #expect(result.status == 64, "\(bad)")
            #expect(result.stderr.hasPrefix("error: "), "\(bad): \(result.stderr)")
        }
        let unknown = try cli.run(["search", "from:zed"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("error: there is no user @zed"), "\(unknown.stderr)")
    }

    /// Each action says in one line what it did, or that it was already so, and a start of an ID
    /// (with whitespace around it) names the tweet.
    @Test func everyActionSaysWhatItDidAndTakesAShortID() throws {
        let (cli, hello, _, _) = try conversation()
        try cli.login("bob")
        let short = String(hello.prefix(8))
        let cases: [([String], String)] = [
            (["unlike", " \(short)\n"], "♡ Unliked @ada's tweet \(short) “hello from ada”\n"),
            (["unlike", short], "♡ You did not like @ada's tweet \(short) “hello from ada”; nothing changed.\n"),
            (["like", short], "♥ Liked @ada's tweet \(short) “hello from ada”\n"),
            (["like", short], "♥ You already like @ada's tweet \(short) “hello from ada”\n"),
            (["unbookmark", short], "⚐ Removed @ada's tweet \(short) “hello from ada” from your bookmarks.\n"),
            (["bookmark", short], "⚑ Bookmarked @ada's tweet \(short) “hello from ada”\n"),
            (["bookmark", short], "⚑ You already bookmarked @ada's tweet \(short) “hello from ada”\n"),
            (["retweet", short], "↻ You already retweeted @ada's tweet \(short) “hello from ada”\n"),
        ]
        for (arguments, line) in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout == line, "\(arguments)")
        }
        // --json keeps the whole ID and the tweet as it was always printed.
        let liked = try json(try cli.run(["like", short, "--json"]).stdout)
        #expect(liked["id"] as? String == hello)
        #expect(liked["didLike"] as? Bool == true)
    }

    @Test func badInputIsOneSentenceAndChangesNothing() throws {
        let (cli, hello, _, _) = try conversation()
        var before = try cli.run(["export"]).stdout
        let cases: [([String], String)] = [
            (["retweet", "nopenope"], "error: there is no tweet nopenope;"),
            (["bookmark", "nopenope"], "error: there is no tweet nopenope;"),
            (["thread", "nopenope"], "error: there is no tweet nopenope;"),
            (["post", "quoting", "--quote", "nopenope"], "error: there is no tweet nopenope;"),
            (["notifications", "--before", "nope"], "error: you have no notification nope\n"),
            (["bookmarks", "--before", "nopenope"], "error: there is no tweet nopenope;"),
            (["like", "nope"], "error: nope is too short to name a tweet"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        }
        #expect(try cli.run(["retweet"]).status == 64)
        #expect(try cli.run(["notifications", "--limit", "0"]).status == 64)
        #expect(try cli.run(["export"]).stdout == before)
        #expect(try cli.run(["logout", "--all"]).status == 0)
        before = try cli.run(["export"]).stdout
        for command in [["retweet", hello], ["bookmark", hello], ["bookmarks"], ["notifications"]] {
            let result = try cli.run(command)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.hasPrefix("error: you are not signed in"), "\(command): \(result.stderr)")
        }
        #expect(try cli.run(["export"]).stdout == before)
    }
}
