import Foundation
import ScratchPostgres
import Testing
import TweetSystem
import TweetTestSupport

/// A database set up for many people (`admin setup`): every account is a role, every signed-in
/// device a role of its own with a random password, the guest role may only register and sign in,
/// and a password reaches the server only as a SCRAM verifier made on the client.
@Suite(.serialized)
struct PostgresAccountsTests {
    @Test func accountsAndDevicesAreRolesAndTheGuestCanOnlyRegisterOrSignIn() throws {
        guard let server = try TLSServer.start() else { return }
        defer { server.stop() }
        // An account from before the set-up, when the owner's database was one person's.
        let olderUid = try CLIRunner(location: server.uri()).register("older", fullname: "Older")
        guard let guest = try setUp(server) else { return }
        // Signed out, the guest's connection reads nothing, with one sentence.
        let stranger = try CLIRunner(location: guest)
        let feed = try stranger.run(["feed"])
        #expect(feed.status == 1 && feed.stderr.contains("lets only a signed-in account"), "\(feed.stderr)")
        #expect(feed.stderr.split(separator: "\n").count == 1, "\(feed.stderr)")
        for sql in [
            "SELECT count(*) FROM tweetcli_documents", "SELECT count(*) FROM tweetcli_accounts",
            "SELECT tweetcli_open_device('x', 'y')", "UPDATE tweetcli_clock SET last_ms = 0",
            "CREATE TABLE intruder (x int)", "CREATE TEMP TABLE intruder (x int)", "SELECT tweetcli_kept_uid('older')",
        ] {
            let attempt = try psql(server, uri: guest, sql)
            #expect(attempt.status != 0 && attempt.output.contains("permission denied"), "guest: \(sql): \(attempt)")
        }

        // Two people on two machines see each other's tweets.
        let ada = try CLIRunner(location: guest)
        let adaUid = try ada.register("ada", fullname: "Ada")
        let id = try ada.post("hello from a role of my own")
        let bob = try CLIRunner(location: guest)
        let bobUid = try bob.register("bob", fullname: "Bob")
        let seen = try bob.run(["feed", "--json"])
        #expect(seen.status == 0 && seen.stdout.contains(id), "\(seen.stderr)")
        let taken = try CLIRunner(location: guest).run(
            ["register", "--email", "other@example.com", "--username", "ada", "--fullname", "Eve", "--password-stdin"],
            stdin: "correct horse\n")
        #expect(taken.status == 1 && taken.stderr.contains("the username @ada is taken"), "\(taken.stderr)")

        // Each account is a role, each device another; the server keeps the email, not the users
        // document; what is stored of a password is a SCRAM verifier.
        let prefix = try server.psql("SELECT prefix FROM tweetcli_setup", database: "tweetcli")
        #expect(try server.psql("SELECT count(*) FROM pg_roles WHERE rolname LIKE '\(prefix)\\_u\\_%'") == "2")
        #expect(
            try server.psql(
                "SELECT DISTINCT left(rolpassword, 13) FROM pg_authid WHERE rolname LIKE '\(prefix)\\_%' "
                    + "AND rolpassword IS NOT NULL") == "SCRAM-SHA-256")
        let document = try server.psql(
            "SELECT data FROM tweetcli_documents WHERE collection = 'users' AND id = '\(adaUid)'", database: "tweetcli")
        #expect(document.contains("\"ada\"") && !document.contains("example.com"), "\(document)")
        // What is private stays so: the email and password hash of the account from before, and
        // another's sessions, bookmarks and follow requests, even read straight from psql.
        let reader = try device(in: ada)
        #expect(try bob.run(["bookmark", id]).status == 0)
        #expect(try bob.run(["bookmarks"]).stdout.contains("hello from a role of my own"))
        for sql in [
            "SELECT data::text FROM tweetcli_documents WHERE collection = 'users' AND data::text LIKE '%example.com%'",
            "SELECT data::text FROM tweetcli_documents WHERE collection = 'credentials'",
            "SELECT data::text FROM tweetcli_documents WHERE collection = 'sessions' AND data->>'uid' <> '\(adaUid)'",
            "SELECT data::text FROM tweetcli_private WHERE collection NOT LIKE 'users/\(adaUid)/%' AND collection <> 'sessions'",
            "SELECT data::text FROM tweetcli_documents WHERE group_id = 'bookmarks'",
        ] {
            let read = try psql(server, uri: reader, sql)
            #expect(
                (read.status == 0 && read.output.isEmpty) || read.output.contains("permission denied"),
                "\(sql): \(read)")
        }
        // Private documents come only through the functions that return one's own: a plan over the
        // table, which would count the rows a policy hides, is not to be had.
        let bobsBookmark = "ARRAY['users/\(bobUid)/bookmarks'], ARRAY['\(id)']"
        let own = try psql(
            server, uri: reader, "SELECT count(*) FROM tweetcli_private_all() WHERE group_id = 'sessions'")
        #expect(own.output.hasPrefix("1"), "\(own)")
        #expect(try psql(server, uri: reader, "SELECT * FROM tweetcli_private_at(\(bobsBookmark))").output.isEmpty)
        let plan = try psql(
            server, uri: reader,
            "EXPLAIN ANALYZE SELECT 1 FROM tweetcli_private WHERE collection = 'users/\(bobUid)/bookmarks' AND id = '\(id)'"
        )
        #expect(plan.status != 0 && plan.output.contains("permission denied"), "\(plan)")
        let older = try server.psql(
            "SELECT email FROM tweetcli_reserved_emails WHERE uid = '\(olderUid)'",
            database: "tweetcli")
        #expect(older == "older@example.com", "\(older)")
        let reserved = try CLIRunner(location: guest).run(
            ["register", "--email", "older@example.com", "--username", "newer", "--fullname", "N", "--password-stdin"],
            stdin: "correct horse\n")
        #expect(reserved.status == 1 && reserved.stderr.contains("is already registered"), "\(reserved.stderr)")
        // Many documents at once would pass the rules by: refused, the owner's too.
        let owner = try CLIRunner(location: server.uri())
        let backup = try owner.run(["export"])
        #expect(backup.status == 0, "\(backup.stderr)")
        let file = owner.home.appendingPathComponent("backup.json")
        try backup.stdout.write(to: file, atomically: false, encoding: .utf8)
        let merge = try owner.run(["import", file.path, "--merge"])
        #expect(merge.status == 1 && merge.stderr.contains("seed or import before admin setup"), "\(merge.stderr)")

        // The device's session file holds its random password, never the account's.
        let adaFile = try sessionFile(in: ada)
        #expect(adaFile.contains("devicePassword") && !adaFile.contains("correct horse"), "\(adaFile)")

        // A second device of Ada's: a wrong password or an unknown name is one sentence.
        let laptop = try CLIRunner(location: guest)
        for name in ["ada", "nobody", "ada@example.com", "nobody@example.com"] {
            let wrong = try laptop.run(["login", "--username", name, "--password-stdin"], stdin: "wrong horse\n")
            #expect(wrong.status == 1 && wrong.stderr.contains("wrong email, username or password"), "\(wrong.stderr)")
        }
        try laptop.login("ada@example.com")
        #expect(try laptop.run(["whoami"]).stdout.contains("@ada"))
        #expect(
            try server.psql("SELECT count(*) FROM tweetcli_devices WHERE uid = '\(adaUid)'", database: "tweetcli")
                == "2")

        // Signing out ends the device's role: its password opens nothing any more.
        let laptopDevice = try device(in: laptop)
        #expect(try psql(server, uri: laptopDevice, "SELECT 1").status == 0)
        #expect(try laptop.run(["logout"]).status == 0)
        let after = try psql(server, uri: laptopDevice, "SELECT 1")
        #expect(after.status != 0 && after.output.contains("authentication failed"), "\(after)")

        // A new password ends every other device; the old password no longer signs in.
        try laptop.login("ada")
        let phoneDevice = try device(in: laptop)
        let change = try ada.run(["password", "--password-stdin"], stdin: "correct horse\nbattery staple\n")
        #expect(change.status == 0 && change.stdout.contains("Signed out 1 other session"), "\(change.stderr)")
        #expect(try psql(server, uri: phoneDevice, "SELECT 1").status != 0)
        #expect(try ada.run(["post", "still signed in here"]).status == 0)
        let old = try laptop.run(["login", "--username", "ada", "--password-stdin"], stdin: "correct horse\n")
        #expect(old.status == 1, "\(old.stdout)")
        try laptop.login("ada", password: "battery staple")
        #expect(try laptop.run(["whoami"]).stdout.contains("@ada"))

        // Leaving ends the account's role and every device's; the name is free again.
        let leave = try ada.run(["delete-account", "--password-stdin"], stdin: "battery staple\n")
        #expect(leave.status == 0, "\(leave.stderr)")
        #expect(
            try server.psql("SELECT count(*) FROM tweetcli_accounts WHERE uid = '\(adaUid)'", database: "tweetcli")
                == "0")
        let gone = try laptop.run(["whoami"])
        #expect(gone.status == 1 && gone.stderr.contains("session has ended"), "\(gone.stderr)")
        #expect(
            try laptop.run(["login", "--username", "ada", "--password-stdin"], stdin: "battery staple\n").status == 1)
        try CLIRunner(location: guest).register("ada", fullname: "Another Ada")
    }

    @Test func everyActionWorksUnderTheRulesAndNoRawWriteGetsAroundThem() throws {
        guard let server = try TLSServer.start() else { return }
        defer { server.stop() }
        guard let guest = try setUp(server) else { return }
        let ada = try CLIRunner(location: guest)
        let bob = try CLIRunner(location: guest)
        let carol = try CLIRunner(location: guest)
        let adaUid = try ada.register("ada", fullname: "Ada")
        let bobUid = try bob.register("bob", fullname: "Bob")
        try carol.register("carol", fullname: "Carol")

        // What people do, each through the rules: nothing refused.
        let bobs = try bob.post("bob's first #rules")
        var steps: [(CLIRunner, [String])] = [
            (ada, ["follow", "@bob"]), (ada, ["like", bobs]), (ada, ["retweet", bobs]), (ada, ["bookmark", bobs]),
            (ada, ["post", "@bob agreed", "--reply-to", bobs]), (ada, ["post", "see this", "--quote", bobs]),
            (ada, ["post", "hello @carol #rules"]), (bob, ["notifications"]), (bob, ["follow", "@ada"]),
            (ada, ["unlike", bobs]), (ada, ["unretweet", bobs]), (ada, ["unbookmark", bobs]),
            (ada, ["edit-profile", "--bio", "rules, kept", "--location", "London"]),
            (carol, ["edit-profile", "--protected", "on"]), (ada, ["follow", "@carol"]), (carol, ["requests"]),
            (carol, ["approve", "@ada"]), (carol, ["block", "@bob"]), (carol, ["unblock", "@bob"]),
            (ada, ["mute", "@bob"]), (ada, ["unmute", "@bob"]), (ada, ["unfollow", "@bob"]),
            (bob, ["feed", "--following"]), (ada, ["search", "rules"]), (ada, ["trends"]),
        ]
        let adas = try ada.post("to be deleted")
        try bob.run(["like", adas])
        // The search and trend indexes of text in other alphabets, which only tweetcli folds.
        let foreign = try ada.post("猫が好きです #東京 #ＳＷＩＦＴ Café @bob")
        steps += [
            (ada, ["delete", adas, "--force"]), (bob, ["delete", bobs, "--force"]), (ada, ["search", "#swift"]),
            (ada, ["delete", foreign, "--force"]),
        ]
        for (cli, arguments) in steps {
            let result = try cli.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let profile = try ada.run(["profile", "@ada", "--json"])
        #expect(profile.stdout.contains("rules, kept"), "\(profile.stderr)")
        // Bob's notifications are what Ada did and did not take back, counted by the server, which
        // Ada's writes could not read.
        _ = try ada.post("@bob one more, and @carol")
        _ = try carol.post("@bob from carol")
        let state = "(SELECT data FROM tweetcli_private WHERE collection = 'notification-state' AND id = '\(bobUid)')"
        let unread = try server.psql(
            "SELECT (\(state)->>'unread')::int || ' ' || (SELECT count(*) FROM tweetcli_private "
                + "WHERE collection = 'users/\(bobUid)/notifications' "
                + "AND data->>'timestamp' > coalesce(\(state)->>'seen', ''))", database: "tweetcli")
        let counts = unread.split(separator: " ")
        #expect(counts.count == 2 && counts[0] == counts[1] && counts[0] != "0", "\(unread)")
        let told = try bob.run(["notifications", "--json"])
        #expect(told.status == 0, "\(told.stderr)")
        let kinds = Set(try jsonArray(told.stdout).compactMap { $0["type"] as? String })
        #expect(kinds.isSuperset(of: ["reply", "quote"]) && !kinds.contains("like"), "\(kinds)")
        // A block reaches the blocked, who cannot read the blocker's filters.
        #expect(try carol.run(["block", "@bob"]).status == 0)
        let blocked = try bob.run(["profile", "@carol"])
        #expect(blocked.status == 1 && blocked.stderr.contains("@carol blocked you"), "\(blocked.stderr)")
        #expect(try carol.run(["unblock", "@bob"]).status == 0)
        #expect(try bob.run(["profile", "@carol"]).status == 0)

        // What a hostile program holding Ada's device login tries, straight from psql. Bob's post
        // and the attacks on its hour's trends below share a clock hour.
        while Int(Date().timeIntervalSince1970) % 3600 > 3540 { Thread.sleep(forTimeInterval: 5) }
        let carols = try carol.post("carol's own")
        // Carol's account is protected, so her hashtags are not in trends; Bob's are.
        _ = try bob.post("bob's #garden")
        #expect(try ada.run(["like", carols]).status == 0)
        let adaDevice = try device(in: ada)
        func owner(_ sql: String) throws -> String { try server.psql(sql, database: "tweetcli") }
        let ownBucket = try owner("SELECT id FROM tweetcli_public WHERE collection = 'terms/own/buckets' LIMIT 1")
        let hour = try owner(
            "SELECT id FROM tweetcli_public WHERE collection = 'trend-hours' AND data->'tags' ? 'garden'")
        let store =
            "SELECT md5(string_agg(collection || ' ' || id || ' ' || data::text, ',' ORDER BY collection, id)) "
            + "FROM tweetcli_documents"
        let before = try owner(store)
        // A tweet of Ada's own, made in the same transaction as what is tried with it, dated and
        // named by the time the transaction's clock gives (`write` fills in @STAMP@ and @ID@).
        // The hour's counts with `cats` counted once more, and `garden` by `extra`.
        func hourWith(garden extra: Int) throws -> String {
            try owner(
                "SELECT jsonb_set(data, '{tags}', data->'tags' || jsonb_build_object('cats', '[\"cats\", 1]'::jsonb, "
                    + "'garden', jsonb_build_array('garden', (data->'tags'->'garden'->>1)::int + \(extra))))::text "
                    + "FROM tweetcli_public WHERE collection = 'trend-hours' AND id = '\(hour)'")
        }
        let ownBuckets =
            #"{"op":"set","c":"terms/cats/buckets","i":"@ID@forgedtweet","#
            + #""d":{"start":"@ID@forgedtweet","ids":["@ID@forgedtweet"]}},"#
            + #"{"op":"set","c":"terms","i":"cats","d":{"tweets":1,"open":"@ID@forgedtweet","openSize":1}}"#
        let ownTweet =
            #"{"op":"set","c":"tweets","i":"@ID@forgedtweet","d":{"uid":"\#(adaUid)","caption":"hi #cats","#
            + #""timestamp":"@STAMP@","entities":{"hashtags":["cats"],"mentions":[],"urls":[]}}}"#
        // The writes as a client sends them: the clock moved first, in the same transaction.
        func apply(_ writes: String) -> String {
            let base62 = "'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'"
            return "WITH t AS (SELECT tweetcli_begin_write() AS ms) SELECT tweetcli_apply(replace(replace('\(writes)', "
                + "'@STAMP@', to_char(timestamp 'epoch' + ms * interval '1 millisecond', "
                + "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')), '@ID@', (SELECT string_agg(substr(\(base62), "
                + "(floor(ms / (62::numeric ^ k))::bigint % 62)::integer + 1, 1), '' ORDER BY k DESC) "
                + "FROM generate_series(0, 7) AS k))::jsonb) FROM t"
        }
        func write(_ writes: String) throws -> (status: Int32, output: String) {
            try psql(server, uri: adaDevice, apply(writes))
        }
        let attacks: [(String, String)] = [
            (
                "like count without a like",
                #"[{"op":"update","c":"tweets","i":"\#(carols)","u":{"likes":{"count":1}}}]"#
            ),
            (
                "like count by five with one like",
                #"[{"op":"set","c":"users/\#(adaUid)/user-likes","i":"\#(carols)","d":{"tweetId":"\#(carols)"}},"#
                    + #"{"op":"update","c":"tweets","i":"\#(carols)","u":{"likes":{"value":5}}}]"#
            ),
            ("deleting another's tweet", #"[{"op":"delete","c":"tweets","i":"\#(carols)"}]"#),
            (
                "editing another's tweet",
                #"[{"op":"update","c":"tweets","i":"\#(carols)","u":{"caption":{"value":"x"}}}]"#
            ),
            (
                "posting as another",
                #"[{"op":"set","c":"tweets","i":"forgedtweet000000001","d":{"uid":"\#(bobUid)"}}]"#
            ),
            ("another's profile", #"[{"op":"update","c":"users","i":"\#(bobUid)","u":{"bio":{"value":"x"}}}]"#),
            (
                "taking another's username",
                #"[{"op":"update","c":"users","i":"\#(adaUid)","u":{"username":{"value":"bob"}}}]"#
            ),
            ("another's bookmark", #"[{"op":"set","c":"users/\#(bobUid)/bookmarks","i":"\#(carols)","d":{}}]"#),
            (
                "a notification without its action",
                #"[{"op":"set","c":"users/\#(bobUid)/notifications","i":"follow-\#(adaUid)","#
                    + #""d":{"type":"follow","from":"\#(adaUid)"}}]"#
            ),
            (
                "a notification from someone else",
                #"[{"op":"set","c":"users/\#(bobUid)/notifications","i":"x","d":{"type":"like","from":"carol"}}]"#
            ),
            (
                "another's follower count",
                #"[{"op":"update","c":"user-stats","i":"\#(bobUid)","u":{"followers":{"count":100}}}]"#
            ),
            (
                "a follow for someone else",
                #"[{"op":"set","c":"following/\#(bobUid)/user-following","i":"\#(adaUid)","d":{}}]"#
            ),
            ("another's session", #"[{"op":"set","c":"sessions","i":"forgedsession","d":{"uid":"\#(bobUid)"}}]"#),
            (
                "a count that is not a number",
                #"[{"op":"update","c":"tweets","i":"\#(carols)","u":{"retweets":{"value":"lots"}}}]"#
            ),
            (
                "a new tweet with counts",
                #"[{"op":"set","c":"tweets","i":"forgedtweet000000002","d":{"uid":"\#(adaUid)","likes":99}}]"#
            ),
            (
                "a like taken back without its count",
                #"[{"op":"delete","c":"users/\#(adaUid)/user-likes","i":"\#(carols)"}]"#
            ),
            (
                "a follow ended without its count",
                #"[{"op":"delete","c":"following/\#(bobUid)/user-following","i":"\#(adaUid)"},"#
                    + #"{"op":"delete","c":"followers/\#(adaUid)/user-followers","i":"\#(bobUid)"}]"#
            ),
            (
                "a follow request made up for someone else",
                #"[{"op":"set","c":"users/\#(adaUid)/follow-requests","i":"\#(bobUid)","d":{"uid":"\#(bobUid)"}}]"#
            ),
            (
                "a follow approved without a request",
                #"[{"op":"set","c":"following/\#(bobUid)/user-following","i":"\#(adaUid)","d":{}}]"#
            ),
            (
                "an update of another's private document, there or not",
                #"[{"op":"update","c":"users/\#(bobUid)/notifications","i":"nothing-here","u":{"from":{"value":"\#(adaUid)"}}}]"#
            ),
            (
                "a write that changes nothing in another's private document",
                #"[{"op":"delete","c":"users/\#(bobUid)/bookmarks","i":"nothing-here"}]"#
            ),
            (
                "a collection of one's own that tweetcli does not keep",
                #"[{"op":"set","c":"following/\#(adaUid)/notifications","i":"x","d":{"from":"\#(bobUid)"}}]"#
            ),
            ("an unknown collection", #"[{"op":"set","c":"admin","i":"x","d":{}}]"#),
            ("a search term deleted", #"[{"op":"delete","c":"terms","i":"own"}]"#),
            ("a search term's count", #"[{"op":"update","c":"terms","i":"own","u":{"tweets":{"value":1000}}}]"#),
            (
                "another's tweet out of the search index",
                #"[{"op":"delete","c":"terms/own/buckets","i":"\#(ownBucket)"}]"#
            ),
            (
                "a tweet made up into the search index",
                #"[{"op":"set","c":"terms/own/buckets","i":"00000000000000000001","#
                    + #""d":{"start":"00000000000000000001","ids":["00000000000000000001"]}}]"#
            ),
            (
                "one's own tweet under a word it does not hold",
                "[\(ownTweet)," + #"{"op":"set","c":"terms/own/buckets","i":"forgedtweet000000003","#
                    + #""d":{"start":"forgedtweet000000003","ids":["forgedtweet000000003"]}}]"#
            ),
            (
                "a tweet dated ahead, to stay on top",
                #"[{"op":"set","c":"tweets","i":"@ID@forgedtweet","d":{"uid":"\#(adaUid)","caption":"pinned","#
                    + #""timestamp":"2099-01-01T00:00:00.000Z"}}]"#
            ),
            (
                "a tweet whose ID sorts after every other",
                #"[{"op":"set","c":"tweets","i":"zzzzzzzzforgedtweet","d":{"uid":"\#(adaUid)","caption":"first","#
                    + #""timestamp":"@STAMP@"}}]"#
            ),
            (
                "a retweet dated ahead",
                #"[{"op":"set","c":"retweets","i":"forgedretweet","d":{"uid":"\#(adaUid)","tweetId":"\#(carols)","#
                    + #""timestamp":"2099-01-01T00:00:00.000Z"}}]"#
            ),
            (
                "an ID moved between a term's buckets",
                #"[{"op":"set","c":"tweets","i":"@ID@forgedtweet","d":{"uid":"\#(adaUid)","caption":"own","#
                    + #""timestamp":"@STAMP@","entities":{"hashtags":[],"mentions":[],"urls":[]}}},"#
                    + #"{"op":"delete","c":"terms/own/buckets","i":"\#(ownBucket)"},"#
                    + #"{"op":"set","c":"terms/own/buckets","i":"@ID@forgedtweet","#
                    + #""d":{"start":"@ID@forgedtweet","ids":["\#(carols)","@ID@forgedtweet"]}}]"#
            ),
            (
                "a trend pumped",
                #"[{"op":"set","c":"trend-hours","i":"\#(hour)","d":{"tags":{"garden":["garden",1000]}}}]"#
            ),
            (
                "a trend moved by one's own tweet of another hashtag",
                "[\(ownTweet),\(ownBuckets)," + #"{"op":"set","c":"trend-hours","i":"\#(hour)","d":"#
                    + (try hourWith(garden: 1)) + "}]"
            ),
        ]
        // What a post of Ada's own writes to the indexes passes (rolled back, so the store stays).
        let honest =
            "[\(ownTweet),\(ownBuckets)," + #"{"op":"set","c":"trend-hours","i":"\#(hour)","d":"#
            + (try hourWith(garden: 0)) + "}]"
        let passes = try psql(server, uri: adaDevice, "BEGIN; \(apply(honest)); ROLLBACK")
        #expect(passes.status == 0 && !passes.output.contains("refuse"), "\(passes)")
        for (name, writes) in attacks {
            let attempt = try write(writes)
            #expect(attempt.status != 0 && attempt.output.contains("refuse"), "\(name): \(attempt)")
        }
        for table in ["tweetcli_documents", "tweetcli_public", "tweetcli_private"] {
            for sql in [
                "INSERT INTO \(table) VALUES ('tweets', 'x', 'tweets', '{}')",
                "UPDATE \(table) SET data = '{}' WHERE collection = 'tweets'", "DELETE FROM \(table)",
            ] {
                let attempt = try psql(server, uri: adaDevice, sql)
                let refused = [
                    "permission denied", "cannot insert into view", "cannot update view", "cannot delete from view",
                ]
                #expect(attempt.status != 0 && refused.contains { attempt.output.contains($0) }, "\(sql): \(attempt)")
            }
        }
        for sql in [
            "UPDATE tweetcli_clock SET last_ms = 99999999999999",
            "SELECT * FROM tweetcli_accounts", "SELECT tweetcli_check('x', 'tweets', 'x', 'null', '{}', '{}')",
        ] {
            let attempt = try psql(server, uri: adaDevice, sql)
            #expect(attempt.status != 0 && attempt.output.contains("permission denied"), "\(sql): \(attempt)")
        }
        for sql in [
            "SELECT data::text FROM tweetcli_documents WHERE collection = 'notification-state' AND id <> '\(adaUid)'",
            "SELECT data::text FROM tweetcli_documents WHERE collection = 'user-filters' AND id <> '\(adaUid)'",
            "SELECT data::text FROM tweetcli_documents WHERE group_id = 'notifications' "
                + "AND collection <> 'users/\(adaUid)/notifications' AND data->>'from' <> '\(adaUid)'",
        ] {
            let read = try psql(server, uri: adaDevice, sql)
            #expect(
                (read.status == 0 && read.output.isEmpty) || read.output.contains("permission denied"),
                "\(sql): \(read)")
        }
        #expect(try owner(store) == before, "the attacks changed the store")
        let blob = try psql(
            server, uri: adaDevice,
            "INSERT INTO tweetcli_blobs (address, data) VALUES (repeat('0', 64), 'not its hash'::bytea)")
        #expect(blob.status != 0 && blob.output.contains("tweetcli_blob_is_its_hash"), "\(blob)")
        // Nothing the attacks tried is in the store; the counts are what people did.
        let carolsNow = try server.psql(
            "SELECT data->>'likes' FROM tweetcli_documents WHERE collection = 'tweets' AND id = '\(carols)'",
            database: "tweetcli")
        #expect(carolsNow == "1", "\(carolsNow)")
        #expect(try ada.run(["unlike", carols]).status == 0)
        // No client's role can sit in a transaction holding the clock, which every write waits for.
        let limits = try server.psql(
            "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tweetcli\\_%' AND rolcanlogin "
                + "AND NOT 'idle_in_transaction_session_timeout=10s' = ANY (coalesce(rolconfig, '{}'))")
        #expect(limits == "0", "\(limits) login roles without the idle limit")
        let doctor = try ada.run(["doctor"])
        let buckets = try server.psql(
            "SELECT collection || ' ' || id || ' ' || data::text FROM tweetcli_public WHERE group_id = 'buckets'",
            database: "tweetcli")
        #expect(doctor.status == 0, "\(doctor.stdout) \(doctor.stderr) \(buckets)")
    }

    /// An account made while the database was one person's keeps its password as a yescrypt hash,
    /// which the server cannot check a password against: its first sign-in after the set-up hashes
    /// the password with that hash's setting, the server compares, and the account becomes a role
    /// with that password, its hash gone. A wrong password, a forged hash from psql, or a second
    /// try with the old hash gets nothing.
    @Test func anAccountFromBeforeTheSetUpSignsInWithItsOwnPassword() throws {
        guard let server = try TLSServer.start() else { return }
        defer { server.stop() }
        let owner = try CLIRunner(location: server.uri())
        let adaUid = try owner.register("ada", fullname: "Ada")
        let before = try owner.post("written before the set-up")
        let bobUid = try CLIRunner(location: server.uri()).register("bob", fullname: "Bob")
        func owners(_ sql: String) throws -> String { try server.psql(sql, database: "tweetcli") }
        func kept(_ uid: String) throws -> String {
            try owners(
                "SELECT data->>'passwordHash' FROM tweetcli_documents WHERE collection = 'credentials' AND id = '\(uid)'"
            )
        }
        let adaHash = try kept(adaUid)
        #expect(adaHash.hasPrefix("$y$"), "\(adaHash)")
        guard let guest = try setUp(server) else { return }

        // A wrong password, by username or by email, says what any wrong password says, and changes nothing.
        let phone = try CLIRunner(location: guest)
        for identifier in [["--username", "ada"], ["--email", "ada@example.com"], ["--username", "nobody"]] {
            let wrong = try phone.run(["login"] + identifier + ["--password-stdin"], stdin: "not her password\n")
            #expect(wrong.status == 1 && wrong.stderr.contains("wrong email, username or password"), "\(wrong.stderr)")
            #expect(wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
        }
        #expect(try kept(adaUid) == adaHash)
        #expect(try owners("SELECT count(*) FROM tweetcli_accounts") == "0")

        // The right one signs in; the account is a role now, with its email, and its kept hash is gone.
        let login = try phone.run(
            ["login", "--email", "ada@example.com", "--password-stdin"], stdin: "correct horse\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(try phone.run(["whoami"]).stdout.contains("@ada"))
        #expect(try phone.run(["delete", before, "--force"]).status == 0, "her tweet from before is hers")
        #expect(try kept(adaUid).isEmpty)
        #expect(try owners("SELECT email FROM tweetcli_accounts WHERE uid = '\(adaUid)'") == "ada@example.com")
        #expect(try owners("SELECT count(*) FROM tweetcli_reserved_emails WHERE uid = '\(adaUid)'") == "0")
        // Her session from before the set-up names no device, and is gone; this device's is hers.
        #expect(
            try owners(
                "SELECT count(*) FROM tweetcli_documents WHERE collection = 'sessions' AND data->>'uid' = '\(adaUid)'")
                == "1")
        // Another device signs in as any account does, through the role's password.
        try CLIRunner(location: guest).login("ada")
        let again = try CLIRunner(location: guest).run(
            ["register", "--email", "eve@example.com", "--username", "ada", "--fullname", "Eve", "--password-stdin"],
            stdin: "correct horse\n")
        #expect(again.status == 1 && again.stderr.contains("the username @ada is taken"), "\(again.stderr)")

        // What the guest may ask: a kept hash's setting, and for any other name a stand-in, the
        // same each time, so that an unknown email looks like a known one.
        let bobHash = try kept(bobUid)
        let setting = try psql(server, uri: guest, "SELECT tweetcli_kept_setting('bob')").output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(setting.hasPrefix("$y$j9T$") && bobHash.hasPrefix(setting + "$"), "\(setting) \(bobHash)")
        let standIns = try ["eve@example.com", "eve@example.com", "ada"].map {
            try psql(server, uri: guest, "SELECT tweetcli_kept_setting('\($0)')").output
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(standIns[0] == standIns[1] && standIns[0] != standIns[2], "\(standIns)")
        #expect(standIns.allSatisfy { $0.hasPrefix("$y$j9T$") && $0.count == setting.count }, "\(standIns)")
        // A forged hash, or Ada's old one again, signs nobody in.
        let verifier = "SCRAM-SHA-256$4096:c2FsdA==$c3RvcmVk:c2VydmVy"
        for (name, hash) in [("bob", setting + "$forged"), ("ada", adaHash), ("ada@example.com", adaHash)] {
            let claim = try psql(
                server, uri: guest,
                "SELECT * FROM tweetcli_claim('\(name)', '\(hash)', '\(verifier)', '\(verifier)', 'session-name-1')")
            #expect(
                claim.status != 0 && claim.output.contains("the account or the password is wrong"),
                "\(name): \(claim.output)")
        }
        #expect(try kept(bobUid) == bobHash)
        #expect(try owners("SELECT count(*) FROM tweetcli_accounts") == "1")
        // Bob signs in by his password too.
        try CLIRunner(location: guest).login("bob")
        #expect(try kept(bobUid).isEmpty)
    }

    @Test func setUpNeedsTheOwnerAndARoleThatMakesRoles() throws {
        guard let server = try TLSServer.start() else { return }
        defer { server.stop() }
        let owner = try CLIRunner(location: server.uri())
        let refused = try owner.run(["admin", "setup"])
        #expect(refused.status == 1 && refused.stderr.contains("ALTER ROLE teacher CREATEROLE"), "\(refused.stderr)")
        #expect(try server.psql("SELECT to_regclass('tweetcli_setup') IS NULL", database: "tweetcli") == "t")
        let local = try CLIRunner().run(["admin", "setup"])
        #expect(local.status == 1 && local.stderr.contains("a local store is one person's"), "\(local.stderr)")
        let usage = try owner.run(["admin", "teardown"])
        #expect(usage.status == 64 && usage.stderr.contains("admin takes setup"), "\(usage.stderr)")
    }

    /// Runs `admin setup` as the owner (given CREATEROLE) and returns the guest's connection string.
    private func setUp(_ server: TLSServer) throws -> String? {
        try server.psql("ALTER ROLE teacher CREATEROLE")
        let setup = try CLIRunner(location: server.uri()).run(["admin", "setup"])
        #expect(setup.status == 0 && setup.stderr.isEmpty, "a server that checks passwords: \(setup.stderr)")
        let guest = PostgresCluster.guestLocation(printedBy: setup)
        #expect(
            guest?.contains("sslmode=verify-full") == true && guest?.contains("teacher") == false, "\(setup.stdout)")
        return setup.status == 0 ? guest : nil
    }

    /// The session file in `cli`'s home.
    private func sessionFile(in cli: CLIRunner) throws -> String {
        let files = FileManager.default.enumerator(atPath: cli.home.path)?.compactMap { $0 as? String } ?? []
        for file in files {
            // A directory or a file that is not text is not the session file.
            let text = (try? String(contentsOfFile: cli.home.path + "/" + file, encoding: .utf8)) ?? ""
            if text.contains("\"accounts\"") { return text }
        }
        return ""
    }

    /// A connection string for the device `cli` is signed in as, from its session file.
    private func device(in cli: CLIRunner) throws -> String {
        let fields = try JSONSerialization.jsonObject(with: Data(try sessionFile(in: cli).utf8)) as? [String: Any]
        let accounts = fields?["accounts"] as? [[String: Any]] ?? []
        let active = accounts.first { $0["uid"] as? String == fields?["active"] as? String }
        let role = active?["device"] as? String ?? "none"
        let password = active?["devicePassword"] as? String ?? "none"
        return cli.location.replacingOccurrences(of: "://", with: "://\(role):\(password)@")
            .replacingOccurrences(of: #"@[^@/]*@"#, with: "@", options: .regularExpression)
    }

    /// Runs `sql` with psql connected by `uri`.
    private func psql(_ server: TLSServer, uri: String, _ sql: String) throws -> (status: Int32, output: String) {
        let output = server.directory + "/psql-\(UUID().uuidString).out"
        let command = [server.cluster.bin + "/psql", "-X", "-q", "-A", "-t", "-d", uri, "-c", sql]
        let ended = try ChildProcess.run(
            command[0], arguments: command, options: .init(standardOutput: .file(output), standardError: .descriptor(1))
        )
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""  // No output: nothing to show.
        if case .exited(let status) = ended { return (status, text) }
        return (-1, text)
    }
}
