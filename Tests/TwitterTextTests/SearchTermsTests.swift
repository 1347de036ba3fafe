import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal
@testable import TwitterText

struct SearchTermsTests {
    @Test func wordsAreFoldedToLowercaseWithoutDiacritics() {
        #expect(SearchTerms.words("Café CRÈME brûlée, naïve!") == ["cafe", "creme", "brulee", "naive"])
        #expect(SearchTerms.words("Straße ÅNGSTRÖM") == ["strasse", "angstrom"])
    }

    @Test func textWithoutSpacesIsIndexedByPairsOfCharacters() {
        #expect(SearchTerms.words("明日東京に行きます") == ["明日", "日東", "東京", "京に", "に行", "行き", "きま", "ます"])
        #expect(SearchTerms.words("今日はSwiftを") == ["今日", "日は", "swift", "を"])
        #expect(SearchTerms.words("東") == ["東"])
    }

    @Test func asciiTextTakesAShortcutThatSplitsAndFoldsTheSame() {
        let texts = [
            "Hello, World! It's 2026 and SwiftUI_rocks", "  many   spaces\tand\nlines  ", "",
            String(repeating: "x", count: 60) + " short", "MiXeD-CaSe/path?q=1&r=TWO",
        ]
        for text in texts {
            // A trailing non-ASCII word sends the same text down the general path.
            #expect(Array(SearchTerms.words(text + " é").dropLast()) == SearchTerms.words(text), "\(text)")
        }
    }

    @Test func theTrendHourIsTheUTCHourInTenDigits() {
        #expect(SearchIndex.hour(Date(timeIntervalSince1970: 0)) == "1970010100")
        #expect(SearchIndex.hour(Date(timeIntervalSince1970: 1_796_031_660)) == "2026113009")
        #expect(SearchIndex.hour(Date(timeIntervalSince1970: 1_796_031_660 + 86_400 * 40 + 3_600 * 14)) == "2027010923")
    }

    @Test func fullWidthLettersAndLigaturesFoldToPlainOnes() {
        #expect(SearchTerms.words("ＳＷＩＦＴ ﬁne") == ["swift", "fine"])
    }

    @Test func aQuerysTagOrMentionEndsWhereTheWordDoes() throws {
        #expect(try SearchQuery("#swift, @ada's").terms == ["#swift", "@ada"])
    }

    @Test func koreanIsSplitIntoWords() {
        #expect(SearchTerms.words("오늘도 코딩 중입니다.") == ["오늘도", "코딩", "중입니다"])
    }

    @Test func aTweetsTermsHoldItsHashtagsMentionsAndWordsOnce() {
        let caption = "Hello @Bob, hello #SwiftUI"
        let terms = SearchTerms.terms(caption: caption, entities: TweetText.entities(in: caption))
        #expect(terms == ["#swiftui", "@bob", "hello", "bob", "swiftui"])
    }

    @Test func aQueryParsesTagsMentionsAuthorsAndWords() throws {
        let query = try SearchQuery("#Café @Ada from:@bob Tokyo 東京")
        #expect(query.terms == ["#cafe", "@ada", "tokyo", "東京"])
        #expect(query.author == "bob")
        #expect(throws: SearchError.empty) { try SearchQuery("  !!  ") }
        #expect(throws: SearchError.emptyAuthor) { try SearchQuery("from:") }
    }
}
