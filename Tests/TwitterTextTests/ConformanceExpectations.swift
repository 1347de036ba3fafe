import TweetCore
import TweetStore

@testable import TwitterText

/// The shapes of the suite's `expected` values, and the same shape built from this library's
/// results so the two compare with `==`.
enum ConformanceExpectation {
    /// `{screen_name, indices}`.
    struct MentionWithIndices: Decodable, Equatable, CustomStringConvertible {
        let screenName: String
        let indices: [Int]

        enum CodingKeys: String, CodingKey {
            case screenName = "screen_name"
            case indices
        }

        init(_ entity: TweetEntity) {
            screenName = entity.value
            indices = [entity.range.lowerBound, entity.range.upperBound]
        }

        var description: String { "@\(screenName) \(indices)" }
    }

    /// `{screen_name, list_slug, indices}`; the slug is empty for a plain mention.
    struct MentionOrListWithIndices: Decodable, Equatable, CustomStringConvertible {
        let screenName: String
        let listSlug: String
        let indices: [Int]

        enum CodingKeys: String, CodingKey {
            case screenName = "screen_name"
            case listSlug = "list_slug"
            case indices
        }

        init(_ entity: TweetEntity) {
            screenName = entity.value
            listSlug = entity.listSlug ?? ""
            indices = [entity.range.lowerBound, entity.range.upperBound]
        }

        var description: String { "@\(screenName)\(listSlug) \(indices)" }
    }

    /// `{url, indices}`.
    struct URLWithIndices: Decodable, Equatable, CustomStringConvertible {
        let url: String
        let indices: [Int]

        init(_ entity: TweetEntity) {
            url = entity.value
            indices = [entity.range.lowerBound, entity.range.upperBound]
        }

        var description: String { "\(url) \(indices)" }
    }

    /// `{hashtag, indices}`.
    struct HashtagWithIndices: Decodable, Equatable, CustomStringConvertible {
        let hashtag: String
        let indices: [Int]

        init(_ entity: TweetEntity) {
            hashtag = entity.value
            indices = [entity.range.lowerBound, entity.range.upperBound]
        }

        var description: String { "#\(hashtag) \(indices)" }
    }

    /// `{cashtag, indices}`.
    struct CashtagWithIndices: Decodable, Equatable, CustomStringConvertible {
        let cashtag: String
        let indices: [Int]

        init(_ entity: TweetEntity) {
            cashtag = entity.value
            indices = [entity.range.lowerBound, entity.range.upperBound]
        }

        var description: String { "$\(cashtag) \(indices)" }
    }

    /// A `parseTweet` result: `{weightedLength, valid, permillage, displayRange…, validRange…}`.
    struct ParseResult: Decodable, Equatable, CustomStringConvertible {
        let weightedLength: Int
        let valid: Bool
        let permillage: Int
        let displayRangeStart: Int
        let displayRangeEnd: Int
        let validRangeStart: Int
        let validRangeEnd: Int

        init(_ parsed: ParsedTweet) {
            weightedLength = parsed.weightedLength
            valid = parsed.isValid
            permillage = parsed.permillage
            displayRangeStart = parsed.displayRange.lowerBound
            displayRangeEnd = parsed.displayRange.upperBound
            validRangeStart = parsed.validRange.lowerBound
            validRangeEnd = parsed.validRange.upperBound
        }

        var description: String {
            "length \(weightedLength), valid \(valid), permillage \(permillage), "
                + "display \(displayRangeStart)...\(displayRangeEnd), valid \(validRangeStart)...\(validRangeEnd)"
        }
    }
}
