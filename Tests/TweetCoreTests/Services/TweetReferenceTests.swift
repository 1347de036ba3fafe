import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// Tweets are named as git names commits: by a unique start of their ID, and shown by the
/// shortest start no other tweet shares, on every engine.
struct TweetReferenceTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// Four tweets of one millisecond (`0VZaaaaa`), two of which share ten characters, and one of
    /// another millisecond.
    static let ids = [
        "0VZaaaaaAb1234567890", "0VZaaaaaAbC234567890", "0VZaaaaaB12345678901", "0VZaaaaaC12345678901",
        "0VZbbbbbA12345678901",
    ]

    private func makeServices(_ layout: StoreLayout, ids: [String] = Self.ids) async throws -> AppServices {
        let services = try env.makeServices(layout)
        let author = try await env.addUser("ada", to: services)
        for id in ids {
            let record = TweetRecord(
                id: id, uid: author.id, caption: "tweet \(id)", likes: 0, timestamp: TestClock.start, replyToId: nil)
            let path = DocumentPath(collection: Collections.tweets, documentID: id)
            try await services.store.runTransaction { try $0.setData(from: record, at: path) }
        }
        return services
    }

    @Test(arguments: StoreLayout.allCases)
    func aUniqueStartNamesItsTweetWhateverTheWhitespaceAroundIt(_ layout: StoreLayout) async throws {
        let tweets = try await makeServices(layout).tweets
        #expect(try await tweets.resolveTweetID("0VZbbb") == "0VZbbbbbA12345678901")
        #expect(try await tweets.resolveTweetID("  0VZaaaaaB1 \n") == "0VZaaaaaB12345678901")
        #expect(try await tweets.resolveTweetID("\t0VZaaaaaAb1234567890 ") == "0VZaaaaaAb1234567890")
    }

    @Test(arguments: StoreLayout.allCases)
    func aStartSeveralIDsShareIsAnErrorNamingThemApart(_ layout: StoreLayout) async throws {
        let tweets = try await makeServices(layout).tweets
        await #expect(
            throws: TweetError.ambiguousReference(
                "0VZaaaaaA", candidates: ["0VZaaaaaAb1", "0VZaaaaaAbC"], more: false)
        ) { try await tweets.resolveTweetID("0VZaaaaaA") }
        await #expect(
            throws: TweetError.ambiguousReference(
                "0VZaaa", candidates: ["0VZaaaaaAb1", "0VZaaaaaAbC", "0VZaaaaaB", "0VZaaaaaC"], more: false)
        ) { try await tweets.resolveTweetID("0VZaaa") }
    }

    @Test(arguments: StoreLayout.allCases)
    func anAmbiguousStartOfManyTweetsNamesFiveAndSaysThereAreMore(_ layout: StoreLayout) async throws {
        let many = (0..<8).map { "0VZccccc\($0)1234567890A" }
        let tweets = try await makeServices(layout, ids: many).tweets
        do {
            _ = try await tweets.resolveTweetID("0VZccccc")
            Issue.record("an ambiguous start resolved")
        } catch let TweetError.ambiguousReference(_, candidates, more) {
            #expect(candidates == (0..<5).map { "0VZccccc\($0)" })
            #expect(more)
        }
    }

    @Test(arguments: StoreLayout.allCases)
    func aStartTooShortOrNamingNothingIsRefused(_ layout: StoreLayout) async throws {
        let tweets = try await makeServices(layout).tweets
        await #expect(throws: TweetError.referenceTooShort("0VZaa", minimum: 6)) {
            try await tweets.resolveTweetID("0VZaa")
        }
        await #expect(throws: TweetError.notFound("0VZzzz")) { try await tweets.resolveTweetID("0VZzzz") }
        // Case matters, as in the IDs themselves; and a character no ID has names nothing.
        await #expect(throws: TweetError.notFound("0vzbbbbb")) { try await tweets.resolveTweetID("0vzbbbbb") }
        await #expect(throws: TweetError.notFound("0VZ'bbbb")) { try await tweets.resolveTweetID("0VZ'bbbb") }
    }

    @Test(arguments: StoreLayout.allCases)
    func rowsShowTheShortestStartNoOtherTweetShares(_ layout: StoreLayout) async throws {
        let tweets = try await makeServices(layout).tweets
        let short = try await tweets.shortIDs(Self.ids + ["rt_1", "0VZaaaaaB12345678901"])
        #expect(short["0VZaaaaaAb1234567890"] == "0VZaaaaaAb1")
        #expect(short["0VZaaaaaAbC234567890"] == "0VZaaaaaAbC")
        #expect(short["0VZaaaaaB12345678901"] == "0VZaaaaaB")
        #expect(short["0VZbbbbbA12345678901"] == "0VZbbbbb")
        #expect(short["rt_1"] == "rt_1")
        // Each short form names its tweet.
        for id in Self.ids { #expect(try await tweets.resolveTweetID(short[id]!) == id) }
    }

    @Test(arguments: StoreLayout.allCases)
    func aDeletedTweetNoLongerLengthensItsNeighboursShortIDs(_ layout: StoreLayout) async throws {
        let services = try await makeServices(layout)
        try await services.store.runTransaction {
            $0.deleteDocument(DocumentPath(collection: Collections.tweets, documentID: "0VZaaaaaAbC234567890"))
        }
        let short = try await services.tweets.shortIDs(["0VZaaaaaAb1234567890"])
        #expect(short["0VZaaaaaAb1234567890"] == "0VZaaaaaA")
    }
}
