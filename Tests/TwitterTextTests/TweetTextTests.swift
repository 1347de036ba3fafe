import Foundation
import Testing
import TweetCore
import TweetStore

@testable import TwitterText

/// The public API as the app uses it: counting a caption, storing and colouring its entities.
struct TweetTextTests {
    @Test func entitiesOfAKoreanCaptionWithEmojiAndAURLAreItsMentionsHashtagsAndURL() {
        let caption = "오늘 서울 날씨 최고 ☀️ @kim_dev 와 #트위터 #서울 산책 https://example.com/seoul?day=1 👍🏽"

        let entities = TweetText.entities(in: caption)

        #expect(
            entities
                == TweetEntities(
                    mentions: ["kim_dev"], hashtags: ["트위터", "서울"], urls: ["https://example.com/seoul?day=1"]))
    }

    @Test func parseCountsHangulAndEmojiAsTwoAndAnyURLAsTwentyThree() {
        // 안녕 (2 + 2), space, 👋🏽 (one emoji sequence: 2), space, URL (23).
        let parsed = TweetText.parse("안녕 👋🏽 https://example.com/a/rather/long/path?with=query&and=more")

        #expect(parsed.weightedLength == 31)
        #expect(parsed.isValid)
        #expect(parsed.permillage == 110)
    }

    @Test func entitiesWithIndicesAreUTF16RangesThatSliceBackToTheirText() throws {
        let text = "@kim_dev 👍🏽 #트위터 $AAPL @team/list https://t.co/abc"

        let entities = TweetText.extractEntitiesWithIndices(text)

        #expect(entities.map(\.kind) == [.mention, .hashtag, .cashtag, .list, .url])
        #expect(entities.map(\.value) == ["kim_dev", "트위터", "AAPL", "team", "https://t.co/abc"])
        #expect(entities[1].range == 14..<18)  // 👍🏽 is four UTF-16 units.
        #expect(entities[3].listSlug == "/list")
        let slices = try entities.map { entity in
            String(text[try #require(entity.stringRange(in: text))])
        }
        #expect(slices == ["@kim_dev", "#트위터", "$AAPL", "@team/list", "https://t.co/abc"])
    }

    @Test func mentionsAndHashtagsInsideAURLAreNotEntitiesOfTheTweet() {
        let entities = TweetText.entities(in: "see https://example.com/@someone/#anchor")

        #expect(entities == TweetEntities(urls: ["https://example.com/@someone/#anchor"]))
    }

    @Test func entitiesListEachMentionAndHashtagOnceIgnoringCase() {
        let entities = TweetText.entities(in: "@Alice @alice #Swift #swift @bob/list example.com example.com")

        #expect(entities == TweetEntities(mentions: ["Alice"], hashtags: ["Swift"], urls: ["example.com"]))
    }

    @Test func entitiesAreStoredAsAPlainJSONObject() throws {
        let entities = TweetEntities(mentions: ["kim_dev"], hashtags: ["트위터"], urls: ["https://example.com"])

        let data = try JSONEncoder().encode(entities)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String]])

        #expect(object == ["mentions": ["kim_dev"], "hashtags": ["트위터"], "urls": ["https://example.com"]])
        #expect(try JSONDecoder().decode(TweetEntities.self, from: data) == entities)
    }

    @Test func anEmptyOrBlankTweetIsInvalid() {
        let empty = TweetText.parse("")
        let blank = TweetText.parse("  \n\t")

        #expect(
            empty
                == ParsedTweet(weightedLength: 0, isValid: false, permillage: 0, displayRange: 0...0, validRange: 0...0)
        )
        #expect(blank.weightedLength == 4)
        #expect(!blank.isValid)
    }

    @Test func aTweetOf280CharactersIsValidAndOneMoreIsNot() {
        let full = String(repeating: "a", count: 279) + "é"
        let over = full + "!"

        #expect(TweetText.parse(full).isValid)
        #expect(TweetText.parse(full).permillage == 1000)
        #expect(!TweetText.parse(over).isValid)
        #expect(TweetText.parse(over).validRange == 0...279)
    }

    @Test func decomposedTextIsCountedAfterNFCNormalisation() {
        let parsed = TweetText.parse("Cafe\u{301}")  // "Café" with a combining acute accent.

        #expect(parsed.weightedLength == 4)
        #expect(parsed.displayRange == 0...4)
        #expect(parsed.validRange == 0...4)
    }

    @Test func aStringRangeOutsideTheTextIsNil() {
        let entity = TweetEntity(kind: .hashtag, range: 3..<40, value: "tag")

        #expect(entity.stringRange(in: "short") == nil)
    }
}
