import Foundation
import Testing
import TweetCore
import TweetStore

@testable import TwitterText

/// The configuration compiled into the library matches twitter-text's config-v3.json.
struct TweetTextConfigurationTests {
    private struct ConfigurationFile: Decodable {
        struct Range: Decodable {
            let start: UInt32
            let end: UInt32
            let weight: Int
        }

        let version: Int
        let maxWeightedTweetLength: Int
        let scale: Int
        let defaultWeight: Int
        let emojiParsingEnabled: Bool
        let transformedURLLength: Int
        let ranges: [Range]
    }

    @Test func version3MatchesTheFixture() throws {
        let file = try JSONDecoder().decode(ConfigurationFile.self, from: Conformance.data("config-v3"))

        let fromFile = TweetTextConfiguration(
            version: file.version,
            maxWeightedTweetLength: file.maxWeightedTweetLength,
            scale: file.scale,
            defaultWeight: file.defaultWeight,
            emojiParsingEnabled: file.emojiParsingEnabled,
            transformedURLLength: file.transformedURLLength,
            ranges: file.ranges.map { .init(codePoints: $0.start...$0.end, weight: $0.weight) }
        )
        #expect(TweetTextConfiguration.v3 == fromFile)
    }
}
