import Foundation
import Testing

@testable import TweetCore
@testable import TweetDemo
@testable import TwitterText

struct DemoCaptionsTests {
    enum Language: CaseIterable {
        case english, japanese, chinese, korean

        /// The language a caption is written in, told by its script: Hangul is Korean, kana
        /// Japanese, other Han Chinese.
        init(of text: String) {
            let scalars = text.unicodeScalars.map(\.value)
            if scalars.contains(where: { (0xAC00...0xD7A3).contains($0) }) {
                self = .korean
            } else if scalars.contains(where: { (0x3041...0x30FF).contains($0) }) {
                self = .japanese
            } else if scalars.contains(where: { (0x4E00...0x9FFF).contains($0) }) {
                self = .chinese
            } else {
                self = .english
            }
        }
    }

    /// `count` captions as the seed draws them: one in ten a reply, one in eight with a mention.
    static func captions(_ count: Int, seed: UInt64 = 1) -> [DemoCaptions.Caption] {
        var captions = DemoCaptions()
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            captions.next(&random, reply: index % 10 == 3, mention: index % 8 == 5 ? "user\(index % 97)" : nil)
        }
    }

    static let sample = captions(20_000)

    @Test func everyCaptionPassesTheTweetTextRulesAndCarriesTheEntitiesTwitterFindsInIt() throws {
        for caption in Self.sample {
            #expect(try TweetService.validatedCaption(caption.text) == caption.text, "\(caption.text)")
            #expect(TweetService.preview(caption.text).entities == caption.entities, "\(caption.text)")
            #expect(TweetService.preview(caption.text).weightedLength <= 280)
            #expect(!caption.text.contains("  ") && !caption.text.contains("{"), "\(caption.text)")
            #expect(
                SearchTerms.terms(caption: caption.searchText, entities: caption.entities)
                    == SearchTerms.terms(caption: caption.text, entities: caption.entities), "\(caption.text)")
        }
        let emoji = Self.sample.filter { $0.searchText != $0.text }
        #expect(emoji.count > Self.sample.count / 4, "emoji are common, and searched through the ASCII path")
        #expect(emoji.allSatisfy { $0.searchText.utf8.allSatisfy { $0 < 0x80 } })
    }

    @Test func theLongestCaptionTheGrammarCanMakeFitsInATweet() {
        let bound = DemoCaptions().longestCaptionBound
        #expect(bound > 100, "the bound counts every piece")
        #expect(bound <= TweetService.maximumCaptionLength)
    }

    @Test func captionsComeInFourLanguagesMostlyEnglishWithHashtagsMentionsAndLinks() {
        var byLanguage: [Language: [DemoCaptions.Caption]] = [:]
        for caption in Self.sample { byLanguage[Language(of: caption.text), default: []].append(caption) }
        #expect(byLanguage[.english, default: []].count > Self.sample.count * 6 / 10)
        for language in Language.allCases {
            let captions = byLanguage[language, default: []]
            #expect(captions.count > Self.sample.count / 50, "\(language)")
            #expect(captions.filter { !$0.entities.hashtags.isEmpty }.count > captions.count / 4, "\(language)")
            #expect(captions.contains { !$0.entities.mentions.isEmpty }, "\(language)")
            #expect(captions.contains { !$0.entities.urls.isEmpty }, "\(language)")
        }
        // Sentences, not made-up words: the grammar's phrases, each a few words long.
        let words = Set(Self.sample.flatMap { SearchTerms.words($0.text) })
        #expect(words.contains("the") && words.contains("shipped") && words.contains("東京"))
        #expect(Self.sample.filter { SearchTerms.words($0.text).contains("the") }.count > Self.sample.count / 5)
    }

    @Test func aMentionIsWrittenOnlyWhenAskedAndNamesTheUserAskedFor() {
        var captions = DemoCaptions()
        var random = SplitMix64(seed: 9)
        for index in 0..<2_000 {
            let mentioned = captions.next(&random, reply: index % 2 == 0, mention: "ada\(index)")
            #expect(mentioned.entities.mentions == ["ada\(index)"], "\(mentioned.text)")
            #expect(TweetText.entities(in: mentioned.text).mentions == ["ada\(index)"], "\(mentioned.text)")
            let plain = captions.next(&random, reply: index % 2 == 0, mention: nil)
            #expect(plain.entities.mentions.isEmpty && !plain.text.contains("@"), "\(plain.text)")
        }
    }

    @Test func theSameDrawsGiveTheSameCaptionsAndOtherDrawsOthers() {
        let again = Self.captions(500)
        #expect(again.map(\.text) == Self.sample.prefix(500).map(\.text))
        #expect(again.map(\.entities) == Self.sample.prefix(500).map(\.entities))
        #expect(Self.captions(500, seed: 2).map(\.text) != again.map(\.text))
        #expect(Set(Self.sample.map(\.text)).count > Self.sample.count / 2, "varied")
    }
}
