import FoundationEssentials
import TweetCore
import TweetStore
import TwitterText

/// Demo captions that read like tweets: sentences from a small phrase grammar (templates whose
/// slots take subjects, verbs, objects, topics, times and emoji), with hashtags, mentions and
/// links, mostly in English and now and then in Japanese, Chinese or Korean. Each caption comes
/// with its entities, recorded as it is composed.
///
/// The seed makes one caption per tweet, so composing is kept free of per-piece allocations:
/// every phrase is UTF-8 in one byte arena, templates are flat lists of pieces, and a caption is
/// written into one reused buffer and becomes a `String` once.
struct DemoCaptions {
    /// A caption and what it mentions, tags and links, without parsing it again.
    struct Caption {
        var text: String
        var entities: TweetEntities
        /// The text with a space for each emoji when they are its only characters beyond ASCII:
        /// the same search terms as the text (an emoji, like a space, only ends a word), found
        /// through search's path for ASCII, many times faster than its path for other scripts.
        var searchText: String
    }

    /// One piece of a template.
    private struct Piece {
        enum Kind: UInt8 {
            /// Phrase `value`, as written.
            case text
            /// One of slot `value`'s phrases, drawn.
            case slot
            /// `@` and the mentioned user's name.
            case mention
            /// One of the links, drawn.
            case link
            /// Hashtag `value`, written in the template.
            case hashtag
        }

        var kind: Kind
        var value: Int
    }

    /// A language's templates, hashtags and share of captions.
    private struct Language {
        /// Out of 100 captions.
        var share: Int
        /// Out of 100 captions in the language, those with hashtags at the end.
        var taggedShare: Int
        var posts: Range<Int>
        var mentions: Range<Int>
        var replies: Range<Int>
        /// Indexes into `tagNames`, the most used first.
        var tags: [Int]
        var tagWeights: ZipfTable
    }

    private var arena: [UInt8] = []
    /// Each phrase's bytes in `arena`.
    private var phrases: [Range<Int>] = []
    /// Each phrase as ``Caption/searchText`` writes it: itself when it is ASCII, another phrase
    /// with spaces for its emoji, or `nil` when it has other characters beyond ASCII.
    private var searchPhrases: [Int?] = []
    /// Each slot's phrases in `slotPhrases`.
    private var slots: [Range<Int>] = []
    private var slotPhrases: [Int] = []
    private var pieces: [Piece] = []
    /// Each template's pieces in `pieces`.
    private var templates: [Range<Int>] = []
    private var languages: [Language] = []
    /// Hashtags as the entities hold them, unique ignoring case, each one's ` #tag` phrase to end
    /// a caption with and its `#tag` phrase for inside a template.
    private var tagNames: [String] = []
    private var tagPhrases: [Int] = []
    private var inlineTagPhrases: [Int] = []
    private var links: [String] = []
    /// Where each caption is written before it becomes a `String`, and its ``Caption/searchText``.
    private var buffer: [UInt8] = []
    private var searchBuffer: [UInt8] = []
    /// Whether the caption being written is ASCII so far, and whether it has only ASCII and emoji.
    private var isASCII = true
    private var isSearchASCII = true

    init() {
        buffer.reserveCapacity(512)
        searchBuffer.reserveCapacity(512)
        for source in Self.languages { add(source) }
    }

    /// The caption of a tweet: a reply's when `reply`, and one that mentions `mention` (a
    /// username) when there is one.
    mutating func next(_ random: inout SplitMix64, reply: Bool, mention: String?) -> Caption {
        var roll = Int(random.next() % 100)
        var language = languages[languages.count - 1]
        for candidate in languages {
            if roll < candidate.share {
                language = candidate
                break
            }
            roll -= candidate.share
        }
        let group = mention != nil ? language.mentions : reply ? language.replies : language.posts
        let template = templates[group.lowerBound + Int(random.next() % UInt64(group.count))]
        buffer.removeAll(keepingCapacity: true)
        searchBuffer.removeAll(keepingCapacity: true)
        (isASCII, isSearchASCII) = (true, true)
        var hashtags: [String] = []
        var urls: [String] = []
        // The hashtags written so far: a template's own and the first one added; each is written once.
        var written = (-1, -1)
        for index in template {
            let piece = pieces[index]
            switch piece.kind {
            case .text:
                write(piece.value)
            case .slot:
                let slot = slots[piece.value]
                write(slotPhrases[slot.lowerBound + Int(random.next() % UInt64(slot.count))])
            case .mention:
                // Usernames are ASCII letters and digits.
                buffer.append(UInt8(ascii: "@"))
                buffer.append(contentsOf: (mention ?? "").utf8)
                searchBuffer.append(UInt8(ascii: "@"))
                searchBuffer.append(contentsOf: (mention ?? "").utf8)
            case .link:
                let link = links[Int(random.next() % UInt64(links.count))]
                buffer.append(contentsOf: link.utf8)
                searchBuffer.append(contentsOf: link.utf8)
                urls.append(link)
            case .hashtag:
                write(inlineTagPhrases[piece.value])
                hashtags.append(tagNames[piece.value])
                written.0 = piece.value
            }
        }
        // Sentences start with a capital, whatever slot comes first.
        if let first = buffer.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) {
            buffer[0] = first - 32
            if isSearchASCII { searchBuffer[0] = first - 32 }
        }
        if Int(random.next() % 100) < language.taggedShare {
            // One hashtag, or two for three tagged tweets in ten.
            let count = random.next() % 10 < 3 ? 2 : 1
            for _ in 0..<count {
                let tag = language.tags[language.tagWeights.sample(&random)]
                guard tag != written.0 && tag != written.1 else { continue }
                write(tagPhrases[tag])
                hashtags.append(tagNames[tag])
                written.1 = tag
            }
        }
        let text = String(decoding: buffer, as: UTF8.self)
        return Caption(
            text: text, entities: TweetEntities(mentions: mention.map { [$0] } ?? [], hashtags: hashtags, urls: urls),
            searchText: isASCII || !isSearchASCII ? text : String(decoding: searchBuffer, as: UTF8.self))
    }

    private mutating func write(_ phrase: Int) {
        buffer.append(contentsOf: arena[phrases[phrase]])
        guard isSearchASCII else { return }
        if let search = searchPhrases[phrase] {
            searchBuffer.append(contentsOf: arena[phrases[search]])
            if search != phrase { isASCII = false }
        } else {
            (isASCII, isSearchASCII) = (false, false)
        }
    }

    /// The most bytes a caption can have, counting each link as the 23 characters Twitter counts
    /// it as: a bound on its weighted length too, since no character weighs more than its UTF-8
    /// bytes.
    var longestCaptionBound: Int {
        let longestTag = tagPhrases.map { phrases[$0].count }.max() ?? 0
        let longestMention = 1 + 15
        var longest = 0
        for template in templates {
            var bytes = 2 * longestTag
            for piece in pieces[template] {
                switch piece.kind {
                case .text: bytes += phrases[piece.value].count
                case .slot: bytes += slotPhrases[slots[piece.value]].map { phrases[$0].count }.max() ?? 0
                case .mention: bytes += longestMention
                case .link: bytes += 23
                case .hashtag: bytes += phrases[inlineTagPhrases[piece.value]].count
                }
            }
            longest = max(longest, bytes)
        }
        return longest
    }

    // MARK: Building the grammar

    /// A language as written in ``DemoCaptions/languages``: templates with `{slot}`s, `{mention}`,
    /// `{link}` and `{#Hashtag}`, and each slot's phrases.
    struct Source {
        var share: Int
        var taggedShare: Int
        var posts: [String]
        var mentions: [String]
        var replies: [String]
        var tags: [String]
        var slots: [String: [String]]
    }

    private mutating func add(_ source: Source) {
        var slotIndexes: [String: Int] = [:]
        let slotValues = source.slots.merging(Self.sharedSlots) { own, _ in own }
        func templateRange(_ list: [String]) -> Range<Int> {
            let start = templates.count
            for template in list { templates.append(parse(template, slotValues, &slotIndexes)) }
            return start..<templates.count
        }
        let posts = templateRange(source.posts)
        let mentions = templateRange(source.mentions)
        let replies = templateRange(source.replies)
        let tags = source.tags.map { tag(named: $0) }
        languages.append(
            Language(
                share: source.share, taggedShare: source.taggedShare, posts: posts, mentions: mentions,
                replies: replies, tags: tags, tagWeights: ZipfTable(count: tags.count)))
    }

    private mutating func parse(
        _ template: String, _ values: [String: [String]], _ slotIndexes: inout [String: Int]
    ) -> Range<Int> {
        let start = pieces.count
        var rest = Substring(template)
        while !rest.isEmpty {
            guard let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") else {
                pieces.append(Piece(kind: .text, value: phrase(rest)))
                break
            }
            if open > rest.startIndex { pieces.append(Piece(kind: .text, value: phrase(rest[..<open]))) }
            let name = String(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
            if name == "mention" {
                pieces.append(Piece(kind: .mention, value: 0))
            } else if name == "link" {
                pieces.append(Piece(kind: .link, value: 0))
                if links.isEmpty { links = Self.links }
            } else if name.hasPrefix("#") {
                pieces.append(Piece(kind: .hashtag, value: tag(named: String(name.dropFirst()))))
            } else if let slot = slotIndexes[name] {
                pieces.append(Piece(kind: .slot, value: slot))
            } else {
                guard let choices = values[name], !choices.isEmpty else {
                    preconditionFailure("the demo grammar has no phrases for {\(name)}")
                }
                let first = slotPhrases.count
                for choice in choices { slotPhrases.append(phrase(Substring(choice))) }
                slots.append(first..<slotPhrases.count)
                slotIndexes[name] = slots.count - 1
                pieces.append(Piece(kind: .slot, value: slots.count - 1))
            }
        }
        return start..<pieces.count
    }

    private mutating func phrase(_ text: Substring) -> Int {
        let index = rawPhrase(text.utf8)
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            searchPhrases.append(index)
        } else if text.unicodeScalars.allSatisfy({ $0.isASCII || $0.properties.generalCategory == .otherSymbol }) {
            searchPhrases.append(nil)
            let search = rawPhrase(text.unicodeScalars.map { $0.isASCII ? UInt8($0.value) : UInt8(ascii: " ") })
            searchPhrases[index] = search
            searchPhrases.append(search)
        } else {
            searchPhrases.append(nil)
        }
        return index
    }

    private mutating func rawPhrase(_ bytes: some Sequence<UInt8>) -> Int {
        let start = arena.count
        arena.append(contentsOf: bytes)
        phrases.append(start..<arena.count)
        return phrases.count - 1
    }

    /// The index of hashtag `name`, added the first time: one spelling per hashtag, ignoring case.
    private mutating func tag(named name: String) -> Int {
        if let index = tagNames.firstIndex(where: { $0.lowercased() == name.lowercased() }) { return index }
        tagNames.append(name)
        tagPhrases.append(phrase(Substring(" #" + name)))
        inlineTagPhrases.append(phrase(Substring("#" + name)))
        return tagNames.count - 1
    }
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
