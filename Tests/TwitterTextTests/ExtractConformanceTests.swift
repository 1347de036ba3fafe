import Testing
import TweetCore
import TweetStore

@testable import TwitterText

/// Every case of the conformance suite's extract.json sections.
struct ExtractConformanceTests {
    private typealias Expected = ConformanceExpectation

    @Test func mentionsSectionPassesEveryCase() throws {
        try Conformance.run("extract", "mentions", expecting: [String].self) {
            TweetText.extractMentionedScreenNames($0)
        }.expectEveryCasePassed()
    }

    @Test func mentionsWithIndicesSectionPassesEveryCase() throws {
        try Conformance.run("extract", "mentions_with_indices", expecting: [Expected.MentionWithIndices].self) {
            TweetText.extractMentionedScreenNamesWithIndices($0).map(Expected.MentionWithIndices.init)
        }.expectEveryCasePassed()
    }

    @Test func mentionsOrListsWithIndicesSectionPassesEveryCase() throws {
        try Conformance.run(
            "extract", "mentions_or_lists_with_indices", expecting: [Expected.MentionOrListWithIndices].self
        ) {
            TweetText.extractMentionsOrListsWithIndices($0).map(Expected.MentionOrListWithIndices.init)
        }.expectEveryCasePassed()
    }

    @Test func repliesSectionPassesEveryCase() throws {
        try Conformance.run("extract", "replies", expecting: String?.self) {
            TweetText.extractReplyScreenName($0)
        }.expectEveryCasePassed()
    }

    @Test func urlsSectionPassesEveryCase() throws {
        try Conformance.run("extract", "urls", expecting: [String].self) {
            TweetText.extractURLs($0)
        }.expectEveryCasePassed()
    }

    @Test func urlsWithIndicesSectionPassesEveryCase() throws {
        try Conformance.run("extract", "urls_with_indices", expecting: [Expected.URLWithIndices].self) {
            TweetText.extractURLsWithIndices($0).map(Expected.URLWithIndices.init)
        }.expectEveryCasePassed()
    }

    @Test func urlsWithDirectionalMarkersSectionPassesEveryCase() throws {
        try Conformance.run(
            "extract", "urls_with_directional_markers", expecting: [Expected.URLWithIndices].self
        ) {
            TweetText.extractURLsWithIndices($0).map(Expected.URLWithIndices.init)
        }.expectEveryCasePassed()
    }

    @Test func tcoURLsWithParamsSectionPassesEveryCase() throws {
        try Conformance.run("extract", "tco_urls_with_params", expecting: [String].self) {
            TweetText.extractURLs($0)
        }.expectEveryCasePassed()
    }

    @Test func hashtagsSectionPassesEveryCase() throws {
        try Conformance.run("extract", "hashtags", expecting: [String].self) {
            TweetText.extractHashtags($0)
        }.expectEveryCasePassed()
    }

    @Test func hashtagsFromAstralSectionPassesEveryCase() throws {
        try Conformance.run("extract", "hashtags_from_astral", expecting: [String].self) {
            TweetText.extractHashtags($0)
        }.expectEveryCasePassed()
    }

    @Test func hashtagsWithIndicesSectionPassesEveryCase() throws {
        try Conformance.run("extract", "hashtags_with_indices", expecting: [Expected.HashtagWithIndices].self) {
            TweetText.extractHashtagsWithIndices($0).map(Expected.HashtagWithIndices.init)
        }.expectEveryCasePassed()
    }

    @Test func cashtagsSectionPassesEveryCase() throws {
        try Conformance.run("extract", "cashtags", expecting: [String].self) {
            TweetText.extractCashtags($0)
        }.expectEveryCasePassed()
    }

    @Test func cashtagsWithIndicesSectionPassesEveryCase() throws {
        try Conformance.run("extract", "cashtags_with_indices", expecting: [Expected.CashtagWithIndices].self) {
            TweetText.extractCashtagsWithIndices($0).map(Expected.CashtagWithIndices.init)
        }.expectEveryCasePassed()
    }
}
