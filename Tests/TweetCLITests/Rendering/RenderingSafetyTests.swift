import Foundation
import Testing
import TweetCore
import TweetStore

@testable import TweetCLI
@testable import TwitterText

/// Every field a renderer shows, carrying every hostile payload: nothing reaches the terminal raw.
@MainActor
struct RenderingSafetyTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    func user(_ payload: String) -> User {
        User(
            id: "uid" + payload, email: "e" + payload, username: "u" + payload, fullname: "F" + payload,
            profileImageUrl: payload, bio: "bio " + payload, location: "L" + payload, website: "W" + payload)
    }

    func tweet(_ payload: String) -> Tweet {
        Tweet(
            id: "id" + payload, uid: "uid", caption: "caption " + payload + " #tag @ada https://x.example/" + payload,
            likes: 3, timestamp: now.addingTimeInterval(-90), replyToId: "parent" + payload,
            entities: TweetEntities(mentions: ["ada" + payload], hashtags: ["tag" + payload], urls: [payload]),
            user: user(payload), didLike: true)
    }

    @Test(arguments: hostile)
    func tweetRowsAreInert(_ payload: String) {
        for highlights in [false, true] {
            let renderer = TweetRenderer(now: now, highlights: highlights)
            let text = renderer.render([tweet(payload), tweet(payload)])
            for color in [false, true] {
                for width in [nil, 40, 100] {
                    let output = text.wrapped(width: width).rendered(color: color)
                    #expect(isInert(output), "\(output.debugDescription)")
                }
            }
        }
    }

    @Test(arguments: hostile)
    func userRowsAndProfileHeadersAreInert(_ payload: String) {
        let renderer = UserRenderer()
        let stats = UserStats(following: 1, followers: 2, tweets: 3)
        for text in [
            renderer.row(user(payload)), renderer.header(user(payload), stats: stats, actionTitle: "Follow"),
            renderer.name(user(payload)),
        ] {
            #expect(isInert(text.wrapped(width: 40).rendered(color: true)))
            #expect(isInert(text.rendered(color: false)))
        }
    }

    @Test(arguments: hostile)
    func dryRunCountsAndErrorMessagesAreInert(_ payload: String) {
        let preview = TweetService.preview("hi @ada\(payload) #x\(payload) https://swift.org/\(payload)")
        #expect(isInert(PostCommand.describe(preview).rendered(color: true)))
        let error = ErrorPresenter.present(UserError.notFound(payload), options: GlobalOptions())
        #expect(isInert(error.text))
        #expect(error.text.split(separator: "\n").count == 1)
    }

    @Test(arguments: hostile)
    func jsonOutputEscapesWhatATerminalWouldActOn(_ payload: String) throws {
        let json = try JSONOutput.render([tweet(payload)])
        #expect(isInert(json))
        let decoded = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(decoded.first?["caption"] as? String == tweet(payload).caption)
    }

    @Test func entitiesAreHighlightedFromTheirRangesNotByMatchingWords() {
        let caption = "Learning swift https://swift.org #Swift"
        let post = Tweet(
            id: "1", uid: "u", caption: caption, timestamp: now,
            entities: TweetEntities(hashtags: ["Swift"], urls: ["https://swift.org"]))
        let rendered = TweetRenderer(now: now, highlights: true).caption(post).rendered(color: true)
        #expect(rendered == "Learning swift \u{1B}[36mhttps://swift.org\u{1B}[0m \u{1B}[36m#Swift\u{1B}[0m")
    }

    @Test func anotherUsersEmailIsNotShownAndYourOwnIs() {
        var other = user("")
        other.email = nil
        #expect(!UserRenderer().header(other, stats: nil, actionTitle: nil).plain.contains("✉"))
        #expect(UserRenderer().header(user(""), stats: nil, actionTitle: nil).plain.contains("✉ e"))
    }
}
