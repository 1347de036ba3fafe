import FoundationEssentials
import TweetCore
import TweetStore
import TwitterText

/// Demo captions varied enough for search to mean something: words from a vocabulary of 5,000
/// drawn with Zipf's law (the most common word is in most tweets, the rarest in a handful), 300
/// hashtags drawn the same way, Japanese, Chinese and Korean captions now and then, and the
/// course's hand-written lines. Each caption comes with its entities, built as it is composed.
struct DemoCaptions {
    /// A caption and what it mentions and tags, without parsing it again.
    struct Caption {
        var text: String
        var entities: TweetEntities
    }

    let words: [String]
    let hashtags: [String]
    private let wordWeights: ZipfTable
    private let tagWeights: ZipfTable
    private var parsed: [String: TweetEntities] = [:]

    init() {
        words = Self.vocabulary(5_000)
        let tagRoots = Self.vocabulary(340).dropFirst(Self.commonWords.count)
        hashtags = Self.fixedTags + tagRoots.prefix(300 - Self.fixedTags.count).map { $0.capitalized }
        wordWeights = ZipfTable(count: words.count)
        tagWeights = ZipfTable(count: hashtags.count)
    }

    /// The word at Zipf rank `rank` (0 is the most common): for benchmarks and tests.
    func word(rank: Int) -> String { words[rank] }

    mutating func next(_ random: inout SplitMix64, reply: Bool) -> Caption {
        let roll = random.next() % 20
        var caption: Caption
        if reply {
            caption = fixed(Self.replyLines[Int(random.next() % UInt64(Self.replyLines.count))])
        } else if roll < 3 {
            caption = fixed(Self.lines[Int(random.next() % UInt64(Self.lines.count))])
        } else if roll == 3 {
            caption = fixed(Self.cjkLines[Int(random.next() % UInt64(Self.cjkLines.count))])
        } else if roll == 4 {
            caption = fixed(Self.koreanLines[Int(random.next() % UInt64(Self.koreanLines.count))])
        } else {
            let count = 4 + Int(random.next() % 11)
            var text = ""
            for index in 0..<count {
                if index > 0 { text += " " }
                text += words[wordWeights.sample(&random)]
            }
            caption = Caption(text: text.prefix(1).uppercased() + text.dropFirst(), entities: TweetEntities())
        }
        // A third of tweets carry a hashtag or two.
        if random.next() % 3 == 0 {
            for _ in 0..<(1 + Int(random.next() % 2)) {
                let tag = hashtags[tagWeights.sample(&random)]
                guard !caption.entities.hashtags.contains(where: { $0.lowercased() == tag.lowercased() }) else {
                    continue
                }
                caption.text += " #" + tag
                caption.entities.hashtags.append(tag)
            }
        }
        return caption
    }

    private mutating func fixed(_ line: String) -> Caption {
        let entities = parsed[line] ?? TweetText.entities(in: line)
        parsed[line] = entities
        return Caption(text: line, entities: entities)
    }

    /// Common English words first, then two- and three-syllable made-up words, the same every time.
    static func vocabulary(_ count: Int) -> [String] {
        var result = commonWords
        var seen = Set(result)
        let consonants = Array("bdfghklmnprstvz")
        let vowels = Array("aeiou")
        var syllables: [String] = []
        for consonant in consonants { for vowel in vowels { syllables.append(String([consonant, vowel])) } }
        var random = SplitMix64(seed: 0x5EA2C4)
        while result.count < count {
            let length = 2 + Int(random.next() % 2)
            let word = (0..<length).map { _ in syllables[Int(random.next() % UInt64(syllables.count))] }.joined()
            if seen.insert(word).inserted { result.append(word) }
        }
        return Array(result.prefix(count))
    }

    static let commonWords = [
        "the", "swift", "code", "today", "app", "new", "just", "build", "feed", "learning", "coffee", "view",
        "model", "bug", "fixed", "shipped", "terminal", "week", "test", "data", "store", "great", "working",
        "really", "finally", "weekend", "team", "design", "release", "night", "first", "love", "time", "project",
    ]
    static let fixedTags = [
        "SwiftUI", "100DaysOfCode", "iOSDev", "Swift", "buildinpublic", "Firebase", "Linux", "OpenSource",
        "東京", "코딩",
    ]
    static let lines = [
        "Just shipped a new feature!", "Who else is learning SwiftUI this weekend?", "Debugging is my cardio.",
        "Hot take: tabs over spaces.", "The feed finally loads in one query. No more N+1.", "What's happening?",
        "Reading about transactions and fsync tonight.", "Async/await changed how I write networking code.",
        "Refactored my view models into something I'm proud of.", "Coffee count: 3. Bugs fixed: 1.",
        "Anyone else running their Twitter clone in a terminal?", "Café au lait and a crème brûlée of a bug.",
    ]
    static let cjkLines = [
        "明日東京に行きます", "今日はSwiftを勉強しています。", "東京の夜景がきれいです", "我在学习编程",
        "北京的天气很好", "新しいアプリをリリースしました", "コーヒーを飲みながらコードを書く", "东京塔很高",
    ]
    static let koreanLines = [
        "오늘도 코딩 중입니다.", "서울에서 새로운 앱을 만들었어요", "커피 한 잔 하면서 코딩", "주말에 스위프트 공부",
    ]
    static let replyLines = [
        "Totally agree!", "Congrats, looks great!", "Same here 😄", "Interesting, tell me more.",
        "This is the way.", "Thanks for sharing!", "I had the same bug yesterday.", "すごい！", "좋아요!",
    ]
}

/// Zipf's law over `count` ranks (weight 1/(k+1)), sampled by binary search of the running totals.
struct ZipfTable {
    private let totals: [Double]

    init(count: Int) {
        var sum = 0.0
        totals = (0..<count).map { rank in
            sum += 1 / Double(rank + 1)
            return sum
        }
    }

    func sample(_ random: inout SplitMix64) -> Int {
        let target = Double(random.next() >> 11) / Double(1 << 53) * (totals.last ?? 0)
        var (low, high) = (0, totals.count - 1)
        while low < high {
            let middle = (low + high) / 2
            if totals[middle] < target { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
