/// The phrase grammar of the demo captions: each language's templates and the phrases of their
/// slots. Hashtags are listed most used first (they are drawn with Zipf's law), and `SwiftUI`,
/// `the` and `東京` stay common, since the benchmarks search for them.
extension DemoCaptions {
    static let languages = [english, japanese, chinese, korean]

    /// Slots every language may use.
    static let sharedSlots: [String: [String]] = [
        "emoji": ["🚀", "🎉", "😅", "🔥", "✨", "💡", "🙌", "😴", "🤔", "👀", "☕", "🙏", "💪", "🐛", "🥳"],
        "day": (1...100).map { String($0) },
        "small": ["0", "1", "2", "3", "4", "5", "7", "12"],
    ]

    static let links = [
        "https://www.swift.org/blog/", "https://www.swift.org/documentation/", "https://github.com/swiftlang/swift",
        "https://developer.apple.com/documentation/swiftui", "https://developer.apple.com/videos/",
        "https://forums.swift.org", "https://en.wikipedia.org/wiki/Ada_Lovelace",
        "https://example.com/blog/twitter-clone",
    ]

    static let english = Source(
        share: 76, taggedShare: 45,
        posts: [
            "{subject} {pastVerb} {object} {time}. {emoji}",
            "{subject} {pastVerb} {object} {time}.",
            "Just {pastVerb} {object}. {feeling}! {emoji}",
            "Hot take: {topic} is {opinion}.",
            "{gerund} {topic} {time}. {emoji}",
            "Anyone else {gerund} {topic} {time}?",
            "New post: {title} {link}",
            "Day {day} of {#100DaysOfCode}: {pastVerb} {object}.",
            "Reading about {topic} {time}: {link}",
            "TIL {topic} is {opinion}. {emoji}",
            "Coffee count: {small}. Bugs fixed: {small}. {emoji}",
            "What's the best way to learn {topic}? Asking for a friend. 🤔",
            "Working {place} {time}. {emoji}",
            "{topic} is {opinion}, and I will not be taking questions.",
            "Finally understood {topic} {time} {emoji}",
            "Pushing {object} to production on a Friday. What could go wrong? 😅",
            "Shipped {object} {time}! Details: {link}",
            "Is it just me, or is {topic} {opinion}?",
            "Debugging is my cardio. {emoji}",
            "The feed finally loads in one query. No more N+1. {emoji}",
            "What's happening?",
        ],
        mentions: [
            "Pairing with {mention} on {object} {time}. {emoji}",
            "Thanks {mention} for the help with {topic}! 🙏",
            "Shout-out to {mention}, who {pastVerb} {object} {time}. {emoji}",
            "{mention} what do you think about {topic}?",
            "{mention} {reaction}",
        ],
        replies: [
            "{reaction}",
            "{reaction} {emoji}",
            "Have you tried {topic}?",
            "Same! {subject} {pastVerb} {object} {time}.",
            "Nice! Is {topic} really {opinion}?",
        ],
        tags: [
            "SwiftUI", "100DaysOfCode", "Swift", "iOSDev", "buildinpublic", "OpenSource", "Linux", "Firebase",
            "WWDC", "DevLife", "CodeNewbie", "ServerSideSwift", "TDD", "Accessibility", "indiedev", "Xcode",
            "Concurrency", "TIL", "Refactoring", "vim", "coffee", "MondayMotivation", "FridayDeploy", "remotework",
            "DarkMode", "terminal", "CLI", "Testing", "WomenInTech", "programming",
        ],
        slots: [
            "subject": [
                "I", "We", "My team", "Our team", "The whole team", "My pairing buddy", "The intern", "My cat",
                "Past me",
            ],
            "pastVerb": [
                "shipped", "refactored", "rewrote", "fixed", "deployed", "profiled", "benchmarked", "reviewed",
                "finally finished", "open-sourced", "debugged", "simplified", "broke", "tested", "documented",
                "redesigned",
            ],
            "object": [
                "the new feed", "the login screen", "the search index", "a flaky test", "the dark mode toggle",
                "our build pipeline", "the profile tab", "a tiny CLI", "the onboarding flow", "a memory leak",
                "the release notes", "the whole networking layer", "the notifications badge", "a SwiftUI preview",
                "the retry logic", "the database migration", "the README", "the settings page", "the like button",
                "a race condition", "the image cache", "the sign-up form",
            ],
            "time": [
                "today", "this morning", "tonight", "last night", "this weekend", "before lunch", "at 2am",
                "on a Friday", "in one afternoon", "before my second coffee", "after three days of trying",
                "in record time",
            ],
            "feeling": [
                "So happy", "So tired", "Weirdly proud", "A little nervous", "Thrilled", "Exhausted but happy",
                "Not sure how I feel", "Best feeling ever",
            ],
            "topic": [
                "async/await", "SwiftUI", "structured concurrency", "Swift on Linux", "the actor model",
                "Swift Testing", "the Observation framework", "fsync", "vim", "accessibility", "dark mode",
                "open source", "pair programming", "code review", "type inference", "Unicode",
                "dependency injection", "snapshot testing", "the Swift package manager", "test-driven development",
                "functional programming", "Core Data", "GraphQL", "Kubernetes", "the terminal", "Rust",
            ],
            "opinion": [
                "underrated", "overrated", "the future", "harder than it looks", "worth every minute",
                "a superpower", "so much fun", "misunderstood", "the best part of my week",
                "easier than I thought", "a rabbit hole",
            ],
            "gerund": [
                "learning", "debugging", "reading about", "teaching", "benchmarking", "writing about",
                "experimenting with", "struggling with", "falling in love with",
            ],
            "place": [
                "from Seoul", "in Tokyo", "in Berlin", "from a café in Lagos", "in São Paulo", "from Toronto",
                "in Cupertino", "from the train", "from my kitchen table",
            ],
            "title": [
                "Why I moved my tests to Swift Testing", "What I learned building a Twitter clone",
                "A gentle introduction to actors", "Five SwiftUI tips I wish I had known",
                "How we cut our build times in half", "Notes on fsync and durable writes",
                "The case for boring technology", "Shipping a CLI in Swift on Linux",
                "Unicode is harder than you think",
            ],
            "reaction": [
                "Totally agree!", "Congrats, looks great!", "Same here 😄", "Interesting, tell me more.",
                "This is the way.", "Thanks for sharing!", "I had the same bug yesterday.",
                "Wait, how did you fix it?", "Bookmarking this.", "Can confirm.", "Love this!", "Ha, been there.",
                "Great thread.", "Saving this for later.",
            ],
        ])

    static let japanese = Source(
        share: 10, taggedShare: 50,
        posts: [
            "{time}は{topic}の勉強をしています。{emoji}",
            "{time}、新しいアプリをリリースしました！{emoji}",
            "明日東京に行きます。{emoji}",
            "東京の夜景がきれいです ✨",
            "{topic}についてブログを書きました {link}",
            "コーヒーを飲みながら{topic}のコードを書く ☕",
            "{topic}、思ったより難しい…",
            "東京のカフェで{topic}の勉強中。",
        ],
        mentions: [
            "{mention} さん、ありがとうございます！{emoji}",
            "{mention} さんと{topic}の話をしました。",
        ],
        replies: ["すごい！", "わかります！", "ありがとうございます！", "なるほど。", "いいですね {emoji}"],
        tags: ["東京", "Swift", "プログラミング", "今日の積み上げ", "SwiftUI"],
        slots: [
            "time": ["今日", "今朝", "今夜", "週末", "昨日"],
            "topic": ["Swift", "SwiftUI", "非同期処理", "テスト", "新しいアプリ", "ターミナル", "並行処理", "アクセシビリティ"],
        ])

    static let chinese = Source(
        share: 7, taggedShare: 40,
        posts: [
            "{time}在学习{topic}。{emoji}",
            "北京的天气很好，适合写代码。",
            "东京塔很高 🗼",
            "刚刚发布了新版本！{emoji}",
            "推荐一篇关于{topic}的文章 {link}",
            "{time}一直在调试，终于修好了 {emoji}",
        ],
        mentions: [
            "{mention} 谢谢你的帮助！🙏",
            "和 {mention} 一起学习{topic}。",
        ],
        replies: ["太棒了！", "同意！", "学到了。", "谢谢分享！"],
        tags: ["编程", "Swift", "开源", "程序员"],
        slots: [
            "time": ["今天", "今晚", "周末", "早上"],
            "topic": ["编程", "Swift", "SwiftUI", "并发", "单元测试", "开源项目"],
        ])

    static let korean = Source(
        share: 7, taggedShare: 40,
        posts: [
            "{time} 코딩 중입니다. {emoji}",
            "서울에서 새로운 앱을 만들었어요 {emoji}",
            "커피 한 잔 하면서 {topic} 공부 ☕",
            "{topic} 생각보다 재밌네요!",
            "{topic} 관련 글을 썼어요 {link}",
        ],
        mentions: [
            "{mention} 님 감사합니다! 🙏",
            "{mention} 님이랑 {topic} 이야기했어요.",
        ],
        replies: ["좋아요!", "대박!", "감사합니다!", "저도요 😄"],
        tags: ["코딩", "개발자", "스위프트", "서울"],
        slots: [
            "time": ["오늘도", "주말에도", "밤새", "아침부터"],
            "topic": ["스위프트", "SwiftUI", "비동기 처리", "테스트", "알고리즘", "오픈소스"],
        ])
}
