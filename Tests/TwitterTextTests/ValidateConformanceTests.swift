import Testing
import TweetCore
import TweetStore

@testable import TwitterText

/// Every case of the conformance suite's validate.json sections.
struct ValidateConformanceTests {
    private typealias ParseResult = ConformanceExpectation.ParseResult

    /// The suite's `tweets` section predates weighted counting: twitter-text runs it with the
    /// version 1 rules (140 code points).
    @Test func tweetsSectionPassesEveryCase() throws {
        try Conformance.run("validate", "tweets", expecting: Bool.self) {
            TweetText.isValidTweet($0, configuration: .v1)
        }.expectEveryCasePassed()
    }

    @Test func usernamesSectionPassesEveryCase() throws {
        try Conformance.run("validate", "usernames", expecting: Bool.self) {
            TweetText.isValidUsername($0)
        }.expectEveryCasePassed()
    }

    @Test func listsSectionPassesEveryCase() throws {
        try Conformance.run("validate", "lists", expecting: Bool.self) {
            TweetText.isValidList($0)
        }.expectEveryCasePassed()
    }

    @Test func hashtagsSectionPassesEveryCase() throws {
        try Conformance.run("validate", "hashtags", expecting: Bool.self) {
            TweetText.isValidHashtag($0)
        }.expectEveryCasePassed()
    }

    @Test func urlsSectionPassesEveryCase() throws {
        try Conformance.run("validate", "urls", expecting: Bool.self) {
            TweetText.isValidURL($0)
        }.expectEveryCasePassed()
    }

    @Test func urlsWithoutProtocolSectionPassesEveryCase() throws {
        try Conformance.run("validate", "urls_without_protocol", expecting: Bool.self) {
            TweetText.isValidURL($0, requiresProtocol: false)
        }.expectEveryCasePassed()
    }

    /// Version 2 rules: weighted, but each emoji code point counts.
    @Test func weightedTweetsCounterTestSectionPassesEveryCase() throws {
        try Conformance.run("validate", "WeightedTweetsCounterTest", expecting: ParseResult.self) {
            ParseResult(TweetText.parse($0, configuration: .v2))
        }.expectEveryCasePassed()
    }

    @Test func weightedTweetsWithDiscountedEmojiCounterTestSectionPassesEveryCase() throws {
        try Conformance.run(
            "validate", "WeightedTweetsWithDiscountedEmojiCounterTest", expecting: ParseResult.self
        ) {
            ParseResult(TweetText.parse($0))
        }.expectEveryCasePassed()
    }

    @Test func unicodeDirectionalMarkerCounterTestSectionPassesEveryCase() throws {
        try Conformance.run("validate", "UnicodeDirectionalMarkerCounterTest", expecting: ParseResult.self) {
            ParseResult(TweetText.parse($0))
        }.expectEveryCasePassed()
    }
}
