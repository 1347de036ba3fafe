import Foundation
import Testing
import TweetTestSupport

/// Every bad input: one sentence on stderr, a non-zero exit, nothing on stdout, nothing changed.
@Suite(.serialized)
struct BadInputTests {
    /// A store with Alice (signed out) and Bob (signed in), each with a tweet.
    static func makeStore() throws -> (cli: CLIRunner, aliceTweet: String, bobTweet: String, bob: String) {
        let cli = try CLIRunner()
        try cli.register("alice", fullname: "Alice")
        let aliceTweet = try cli.post("Alice's tweet")
        let bob = try cli.register("bob", fullname: "Bob")
        let bobTweet = try cli.post("Bob's tweet")
        return (cli, aliceTweet, bobTweet, bob)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var stdin: String?
        var signedOut = false
        var status: Int32 = 1
        var message: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "post while logged out", arguments: ["post", "hi"], signedOut: true, message: "not signed in"),
        Case(
            name: "like while logged out", arguments: ["like", "ALICE_TWEET"], signedOut: true, message: "not signed in"
        ),
        Case(
            name: "follow while logged out", arguments: ["follow", "@alice"], signedOut: true, message: "not signed in"),
        Case(name: "empty caption", arguments: ["post", "   "], message: "caption is empty"),
        Case(
            name: "an escape sequence in a caption", arguments: ["post", "evil \u{1B}]0;pwned\u{07} \u{1B}[2J"],
            message: "the caption contains the control character U+001B"),
        Case(
            name: "a right-to-left override in a caption", arguments: ["post", "gnp.\u{202E}exe"],
            message: "the caption contains the control character U+202E"),
        Case(
            name: "an escape sequence in a full name", arguments: ["edit-profile", "--fullname", "Bob\u{1B}[8m"],
            message: "the full name contains the control character U+001B"),
        Case(
            name: "a line break in a location", arguments: ["edit-profile", "--location", "here\nthere"],
            message: "the location contains the control character U+000A"),
        Case(
            name: "a full name that mimics a row", arguments: ["edit-profile", "--fullname", "Alice @alice · now"],
            message: "a full name cannot hold @, which would make it look like a username"),
        Case(
            name: "a full name with a middle dot", arguments: ["edit-profile", "--fullname", "Alice · 3m"],
            message: "a full name cannot hold ·"),
        Case(
            name: "a full name with a right-to-left mark", arguments: ["edit-profile", "--fullname", "Bob\u{200F}"],
            message: "a full name cannot hold the direction mark U+200F"),
        Case(
            name: "a full name with a zero-width space", arguments: ["edit-profile", "--fullname", "Al\u{200B}ice"],
            message: "a full name cannot hold the zero-width character U+200B"),
        Case(
            name: "a full name of Hangul fillers", arguments: ["edit-profile", "--fullname", "\u{3164}\u{3164}"],
            message: "a full name needs a visible character"),
        Case(
            name: "a registration whose full name is a blank braille pattern",
            arguments: [
                "register", "--email", "n@example.com", "--username", "newone", "--fullname", "\u{2800}",
                "--password-stdin",
            ], stdin: "correct horse\n", message: "a full name needs a visible character"),
        Case(
            name: "a registration whose full name holds @",
            arguments: [
                "register", "--email", "n@example.com", "--username", "newone", "--fullname", "Bob @bob",
                "--password-stdin",
            ], stdin: "correct horse\n", message: "a full name cannot hold @"),

        Case(
            name: "whitespace caption from stdin", arguments: ["post", "-"], stdin: " \n\t\n",
            message: "caption is empty"),
        Case(
            name: "caption over 280", arguments: ["post", String(repeating: "a", count: 281)],
            message: "caption is 281/280 characters"),
        Case(name: "unknown uid", arguments: ["profile", "nosuchuid"], message: "there is no user nosuchuid"),
        Case(name: "unknown username", arguments: ["follow", "@nobody"], message: "there is no user @nobody"),
        Case(
            name: "unknown tweet to like", arguments: ["like", "nosuchtweet"], message: "there is no tweet nosuchtweet"),
        Case(
            name: "reply to unknown tweet", arguments: ["post", "hi", "--reply-to", "nosuchtweet"],
            message: "there is no tweet nosuchtweet"),
        Case(
            name: "duplicate username",
            arguments: [
                "register", "--email", "new@example.com", "--username", "ALICE", "--fullname", "X", "--password-stdin",
            ], stdin: "password123\n", message: "@alice is taken"),
        Case(
            name: "duplicate email",
            arguments: [
                "register", "--email", "Alice@Example.com", "--username", "newone", "--fullname", "X",
                "--password-stdin",
            ], stdin: "password123\n", message: "alice@example.com is already registered"),
        Case(
            name: "short password",
            arguments: [
                "register", "--email", "n@example.com", "--username", "newone", "--fullname", "X", "--password-stdin",
            ], stdin: "short\n", message: "at least 8 characters"),
        Case(
            name: "invalid username",
            arguments: [
                "register", "--email", "n@example.com", "--username", "no spaces!", "--fullname", "X",
                "--password-stdin",
            ], stdin: "password123\n", message: "not a valid username"),
        Case(
            name: "wrong password", arguments: ["login", "--email", "alice@example.com", "--password-stdin"],
            stdin: "wrong password\n", message: "wrong email, username or password"),
        Case(
            name: "unknown email", arguments: ["login", "--email", "nobody@example.com", "--password-stdin"],
            stdin: "correct horse\n", message: "wrong email, username or password"),
        Case(
            name: "delete someone else's tweet", arguments: ["delete", "ALICE_TWEET", "--force"], message: "not yours"),
        Case(
            name: "delete with no terminal to confirm on", arguments: ["delete", "BOB_TWEET"],
            message: "no terminal to confirm"),
        Case(
            name: "too short a start of an ID", arguments: ["like", "0VZ"],
            message: "0VZ is too short to name a tweet; give at least 6 characters of its ID"),
        Case(name: "follow yourself", arguments: ["follow", "@bob"], message: "cannot follow or unfollow yourself"),
        Case(name: "unknown command", arguments: ["tweet", "hi"], status: 64, message: "unknown command 'tweet'"),
        Case(
            name: "unknown flag", arguments: ["feed", "--everything"], status: 64,
            message: "unknown option '--everything'"),
        Case(
            name: "bad limit", arguments: ["feed", "--limit", "0"], status: 64,
            message: "--limit must be a whole number"),
        Case(
            name: "bad tab", arguments: ["profile", "--tab", "videos"], status: 64,
            message: "--tab must be tweets, replies, likes or media"),
        Case(
            name: "login without a terminal or --password-stdin", arguments: ["login", "--email", "alice@example.com"],
            message: "--password-stdin"),
        Case(
            name: "bad website", arguments: ["edit-profile", "--website", "not a url"], message: "is not a web address"),
    ]

    @Test(arguments: cases)
    func badInputFailsWithOneSentenceAndChangesNothing(_ item: Case) throws {
        let (cli, aliceTweet, bobTweet, _) = try Self.makeStore()
        if item.signedOut { try cli.run(["logout", "--all"]) }
        let arguments = item.arguments.map { $0 == "ALICE_TWEET" ? aliceTweet : $0 == "BOB_TWEET" ? bobTweet : $0 }
        let before = cli.journalBytes()
        let whoBefore = try cli.run(["whoami", "--json"]).stdout

        let result = try cli.run(arguments, stdin: item.stdin)

        #expect(result.status == item.status)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.contains(item.message), "stderr was: \(result.stderr)")
        let firstLine = result.stderr.split(separator: "\n").first ?? ""
        #expect(firstLine.count > 10)
        #expect(cli.journalBytes() == before, "the store changed")
        #expect(try cli.run(["whoami", "--json"]).stdout == whoBefore, "the session changed")
    }

    @Test func wrongPasswordAndUnknownAccountGiveTheSameMessage() throws {
        let (cli, _, _, _) = try Self.makeStore()
        let wrong = try cli.run(["login", "--username", "alice", "--password-stdin"], stdin: "nope nope nope\n")
        let unknown = try cli.run(["login", "--username", "zed", "--password-stdin"], stdin: "nope nope nope\n")
        #expect(wrong.status == 1 && unknown.status == 1)
        #expect(wrong.stderr == unknown.stderr)
    }

    @Test func unlikingATweetNotLikedChangesNothing() throws {
        let (cli, aliceTweet, _, _) = try Self.makeStore()
        let before = cli.journalBytes()
        let result = try cli.run(["unlike", aliceTweet, "--json"])
        #expect(result.status == 0)
        #expect(try json(result.stdout)["likes"] as? Int == 0)
        #expect(cli.journalBytes() == before)
    }
}
