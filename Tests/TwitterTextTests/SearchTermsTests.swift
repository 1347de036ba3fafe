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

    /// A mute looks for its words without making a tweet's terms: it must be asked exactly the
    /// terms the tweet is indexed by, in every script, and say yes as soon as one matches.
    @Test func anyTermIsAskedExactlyTheTermsOfTheCaption() {
        let captions = [
            "Hello, World! It's 2026 and SwiftUI_rocks", "Café CRÈME brûlée, naïve!", "明日東京に行きます",
            "今日はSwiftを書いた 🙏 #東京", "고양이를 좋아해요, 고양이가 좋아", "iOS開発、ｆｕｌｌ ｗｉｄｔｈ ﬁne",
            "Straße ÅNGSTRÖM... emoji👩‍💻between", "", "  ", "猫", "x" + String(repeating: "y", count: 60) + " z",
        ]
        for caption in captions {
            var asked: Set<String> = []
            #expect(!SearchTerms.anyTerm(in: caption) { asked.insert($0).inserted && false }, "\(caption)")
            #expect(asked == Set(SearchTerms.terms(caption: caption, entities: TweetEntities())), "\(caption)")
            for term in asked { #expect(SearchTerms.anyTerm(in: caption) { $0 == term }, "\(term)") }
            #expect(!SearchTerms.anyTerm(in: caption) { $0 == "absent" })
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

    @Test func aTweetIsAlsoFoundByEachCharacterOfItsTextWithoutSpaces() {
        let terms = SearchTerms.terms(caption: "猫が好きです。東", entities: TweetEntities())
        #expect(terms == ["猫が", "が好", "好き", "きで", "です", "東", "猫", "が", "好", "き", "で", "す"])
    }

    @Test func aOneCharacterQueryAsksForTheCharacterAndALongerOneForPairs() throws {
        #expect(try SearchQuery("猫").terms == ["猫"])
        #expect(try SearchQuery("猫が 京").terms == ["猫が", "京"])
        #expect(try SearchQuery("東京タワー").terms == ["東京", "京タ", "タワ", "ワー"])
    }

    @Test(
        arguments: [
            ("고양이를", "고양이"), ("고양이가", "고양이"), ("학교에서", "학교"), ("집으로", "집"), ("서울로", "서울"),
            ("친구랑", "친구"), ("고양이랑", "고양"), ("책을", "책"), ("사과와", "사과"), ("ios에서", "ios"),
            ("나이", "나"), ("이", nil), ("가", nil), ("코딩", nil), ("swift", nil), ("東京", nil),
        ] as [(String, String?)])
    func aKoreanWordLosesItsLongestTrailingParticleButNeverItsWholeStem(_ word: String, _ stem: String?) {
        #expect(SearchTerms.withoutParticle(word) == stem)
    }

    @Test func aKoreanWordIsIndexedWholeAndWithoutOneOrTwoParticles() {
        let caption = "고양이를 학교에서는 나이 코딩"
        let terms = SearchTerms.terms(caption: caption, entities: TweetEntities())
        // Words that merely end in a particle's syllable (나이, age) keep their whole form too.
        #expect(terms == ["고양이를", "학교에서는", "나이", "코딩", "고양이", "고양", "학교에서", "학교", "나"])
    }

    @Test func aKoreanQueryWordAsksForItsFormWithoutAParticle() throws {
        #expect(try SearchQuery("고양이를 코딩 #고양이").terms == ["고양이", "코딩", "#고양이"])
    }

    /// Whether a search for `query` finds a tweet of `caption`, by the terms alone.
    private func finds(_ query: String, _ caption: String) throws -> Bool {
        let terms = SearchTerms.terms(caption: caption, entities: TweetText.entities(in: caption))
        return Set(try SearchQuery(query).terms).isSubset(of: terms)
    }

    @Test(arguments: [
        ("猫", "猫が好きです", true), ("好", "猫が好きです", true), ("す", "猫が好きです", true),
        ("好き", "猫が好きです", true), ("犬", "猫が好きです", false), ("猫", "我的猫很可爱", true),
        ("京", "明日東京に行きます", true), ("東京", "明日東京に行きます", true), ("京都", "明日東京に行きます", false),
        ("고양이", "고양이를 좋아해요", true), ("고양이", "고양이가 귀여워요", true), ("고양이", "우리 고양이", true),
        ("고양이를", "우리 고양이", true), ("고양이가", "고양이를 좋아해요", true), ("학교", "학교에서는 조용히", true),
        ("고양이", "고양시에 살아요", false), ("코딩", "오늘도 코딩 중입니다.", true), ("오늘", "오늘도 코딩", true),
        ("고양이 좋아해요", "고양이를 좋아해요", true), ("고양이 싫어요", "고양이를 좋아해요", false),
    ])
    func aQueryFindsTheTweetsThatHaveItsWordsWithAnyParticleOrItsCharacters(
        _ query: String, _ caption: String, _ found: Bool
    ) throws {
        #expect(try finds(query, caption) == found)
    }

    @Test func everyTermATweetHadBeforeItStillHas() {
        let captions = [
            "明日東京に行きます #東京", "고양이를 좋아해요 @ada", "Café 猫 고양이", "오늘도 코딩 중입니다.",
            (0..<60).map { "단어" + String(Character(UnicodeScalar(0xAC00 + $0)!)) + "를" }.joined(separator: " "),
            String((0..<200).map { Character(UnicodeScalar(0x4E00 + $0)!) }),
        ]
        for caption in captions {
            let entities = TweetText.entities(in: caption)
            // The terms as they were made before characters and stems: tags, mentions, words, up to the cap.
            var before: [String] = []
            for term in entities.hashtags.map({ "#" + SearchTerms.fold($0) })
                + entities.mentions.map({ "@" + $0.lowercased() })
                + SearchTerms.words(caption)
            where before.count < SearchTerms.maximumPerTweet && !before.contains(term) {
                before.append(term)
            }
            #expect(Set(before).isSubset(of: SearchTerms.terms(caption: caption, entities: entities)), "\(caption)")
        }
    }

    @Test func aLongTweetIsFoundByEveryCharacterWithinItsOwnCap() {
        let characters = (0..<200).map { String(Character(UnicodeScalar(0x4E00 + $0)!)) }
        let fits = SearchTerms.terms(caption: characters.prefix(140).joined(), entities: TweetEntities())
        #expect(fits.count == SearchTerms.maximumPerTweet + 140)
        #expect(Set(characters.prefix(140)).isSubset(of: fits))
        let over = SearchTerms.terms(caption: characters.joined(), entities: TweetEntities())
        #expect(over.count == SearchTerms.maximumPerTweet + SearchTerms.maximumFormsPerTweet)
        #expect(!over.contains(characters[SearchTerms.maximumFormsPerTweet]))
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
