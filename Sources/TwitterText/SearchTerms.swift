import FoundationEssentials
import TweetStore

/// The terms a tweet is found by, and the terms a search asks for, made the same way:
///
/// - words, lowercased and without diacritics ("Café" is `cafe`), split at anything that is not a
///   letter, digit or combining mark; Korean is split into words the same way;
/// - text with no spaces between words (Han, Hiragana, Katakana) as overlapping pairs of
///   characters, as search engines' CJK analyzers do ("東京に" gives `東京`, `京に`); a lone
///   character stands for itself;
/// - `#hashtag` and `@username` for the tweet's hashtags and mentions.
///
/// A tweet also gets forms that no other text of it gives: each character of its text without
/// spaces, so that a one-character query (`猫`) finds it wherever the character is, and each Korean
/// word without its trailing particle (`고양이를` is also `고양이` and `고양`), since a query drops
/// the particle of its own word the same way (see ``queryWords(_:)``).
public enum SearchTerms {
    /// The most words, pairs, hashtags and mentions one tweet is indexed by.
    public static let maximumPerTweet = 48
    /// The most characters and particle-less Korean words one tweet is indexed by, besides
    /// ``maximumPerTweet``.
    ///
    /// They have a cap of their own, not a share of the 48, so that a tweet keeps every term it
    /// had before, and a tweet within the 280 weighted characters (140 CJK characters at weight 2)
    /// is found by every one of its characters: giving characters priority instead would cut the
    /// pairs that longer queries need. A Korean word with a particle weighs at least 5 with its
    /// space and gives at most two forms, so no tweet within 280 reaches the cap, in any mix of
    /// scripts; only an over-long imported tweet can.
    public static let maximumFormsPerTweet = 140
    /// The longest term kept (longer words are cut to it, the same way in tweets and searches).
    static let maximumLength = 40

    /// A tweet's terms, each once: its hashtags, mentions, words and pairs in order of first
    /// appearance, then its characters and particle-less Korean words.
    public static func terms(caption: String, entities: TweetEntities) -> [String] {
        var terms: [String] = []
        var seen: Set<String> = []
        func add(_ term: String) {
            guard terms.count < maximumPerTweet, !term.isEmpty, seen.insert(term).inserted else { return }
            terms.append(term)
        }
        for tag in entities.hashtags { add("#" + fold(tag)) }
        for name in entities.mentions { add("@" + name.lowercased()) }
        if let ascii = asciiWords(caption) {
            for word in ascii { add(word) }
            return terms
        }
        var forms: [String] = []
        func addForm(_ form: String) {
            guard forms.count < maximumFormsPerTweet, seen.insert(form).inserted else { return }
            forms.append(form)
        }
        scan(
            caption,
            word: { word in
                add(word)
                for stem in stems(word) { addForm(stem) }
            },
            ideographs: { run in
                for pair in pairs(run) { add(pair) }
                for scalar in run { addForm(String(Character(scalar))) }
            })
        return terms + forms
    }

    /// Whether any term of `caption` (a word, pair, character or particle-less Korean word, as
    /// ``terms(caption:entities:)`` makes them, but without their caps) is one `matches` takes:
    /// for a mute, which asks of every row a listing reads. The caption is split at ASCII spaces
    /// and punctuation, which no term spans; a stretch of plain ASCII letters and digits is one
    /// lowercased word, read without building the rest, and only a stretch holding other
    /// characters is made into terms the whole way.
    public static func anyTerm(in caption: String, _ matches: (String) -> Bool) -> Bool {
        var caption = caption
        return caption.withUTF8 { bytes in
            var start = 0
            var word: [UInt8] = []
            var plain = true
            func matchesStretch(upTo end: Int) -> Bool {
                defer {
                    word.removeAll(keepingCapacity: true)
                    (plain, start) = (true, end + 1)
                }
                guard end > start else { return false }
                if plain { return matches(String(decoding: word.prefix(maximumLength), as: UTF8.self)) }
                let stretch = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                var found = false
                scan(
                    stretch,
                    word: { word in
                        if !found { found = matches(word) || stems(word).contains(where: matches) }
                    },
                    ideographs: { run in
                        if !found {
                            found =
                                pairs(run).contains(where: matches)
                                || run.contains { matches(String(Character($0))) }
                        }
                    })
                return found
            }
            for (index, byte) in bytes.enumerated() {
                switch byte {
                case 0x30...0x39, 0x61...0x7A: word.append(byte)
                case 0x41...0x5A: word.append(byte + 0x20)
                case 0x80...: plain = false
                default: if matchesStretch(upTo: index) { return true }
                }
            }
            return matchesStretch(upTo: bytes.count)
        }
    }

    /// The words and character pairs of `text`, folded: the terms a tweet's text gives before its
    /// characters and particle-less Korean words.
    static func words(_ text: String) -> [String] {
        if let ascii = asciiWords(text) { return ascii }
        var result: [String] = []
        scan(text, word: { result.append($0) }, ideographs: { result += pairs($0) })
        return result
    }

    /// The terms a query's word asks for: as ``words(_:)``, but a Korean word without its particle,
    /// since the tweets with any particle on the word (or none) are indexed by that form.
    static func queryWords(_ text: String) -> [String] {
        if let ascii = asciiWords(text) { return ascii }
        var result: [String] = []
        scan(text, word: { result.append(withoutParticle($0) ?? $0) }, ideographs: { result += pairs($0) })
        return result
    }

    /// Calls `word` with each folded word of `text` and `ideographs` with each run of characters
    /// written without spaces, in order.
    private static func scan(_ text: String, word: (String) -> Void, ideographs: ([Unicode.Scalar]) -> Void) {
        // The word's UTF-8, not a String.UnicodeScalarView: that view's generic mutations are not
        // specialized, and each looks up protocol conformances at run time on first use.
        var current: [UInt8] = []
        var run: [Unicode.Scalar] = []
        func endWord() {
            guard !current.isEmpty else { return }
            word(fold(String(decoding: current, as: UTF8.self)))
            current.removeAll(keepingCapacity: true)
        }
        func endRun() {
            guard !run.isEmpty else { return }
            ideographs(run)
            run.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            if isIdeographic(scalar) {
                endWord()
                run.append(scalar)
            } else if isWordScalar(scalar) {
                endRun()
                UTF8.encode(scalar) { current.append($0) }
            } else {
                endWord()
                endRun()
            }
        }
        endWord()
        endRun()
    }

    /// A run's overlapping pairs of characters, or the lone character of a run of one.
    private static func pairs(_ run: [Unicode.Scalar]) -> [String] {
        guard run.count > 1 else { return run.map { String(Character($0)) } }
        return (0..<(run.count - 1)).map { index in string(run[index...(index + 1)]) }
    }

    /// The text of `scalars`, made from their UTF-8 (see ``scan(_:word:ideographs:)`` for why).
    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count * 4)
        for scalar in scalars { UTF8.encode(scalar) { bytes.append($0) } }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Korean particles (josa) that follow a noun, longest first so that `으로` wins over `로`
    /// and `이랑` over `랑`. Common ones only: a rarer one leaves the word as it is, which finds
    /// less but never finds wrongly.
    static let particles: [[Unicode.Scalar]] = [
        "에서", "에게", "으로", "부터", "까지", "처럼", "보다", "이나", "이랑", "하고", "한테", "께서",
        "은", "는", "이", "가", "을", "를", "의", "에", "께", "와", "과", "로", "도", "만", "나", "랑",
    ].map { Array($0.unicodeScalars) }

    /// A folded Korean word without its trailing particle, keeping at least one character of
    /// stem; `nil` when it ends in none.
    static func withoutParticle(_ word: String) -> String? {
        guard let last = word.unicodeScalars.last, (0xAC00...0xD7A3).contains(last.value) else { return nil }
        let scalars = Array(word.unicodeScalars)
        for particle in particles where scalars.count > particle.count {
            guard scalars.suffix(particle.count).elementsEqual(particle) else { continue }
            return string(scalars.dropLast(particle.count))
        }
        return nil
    }

    /// A word's forms without a particle, and without a second one: a query strips one particle
    /// from its word, and that word may itself end in a syllable that reads as one (`고양이`
    /// asks for `고양`, which `고양이를` must then also give), or carry two (`학교에서는`).
    /// Nouns that merely end in such a syllable (`나이`, age) are found by the shorter form too:
    /// the price of stripping without a dictionary.
    static func stems(_ word: String) -> [String] {
        guard let stem = withoutParticle(word) else { return [] }
        guard let shorter = withoutParticle(stem) else { return [stem] }
        return [stem, shorter]
    }

    /// The words of an all-ASCII text, lowercased straight from its bytes (most captions, and a
    /// seed's million); `nil` for any other text.
    private static func asciiWords(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var result: [String] = []
            var word: [UInt8] = []
            func end() {
                guard !word.isEmpty else { return }
                result.append(String(decoding: word.prefix(maximumLength), as: UTF8.self))
                word.removeAll(keepingCapacity: true)
            }
            for byte in bytes {
                switch byte {
                case 0x30...0x39, 0x61...0x7A: word.append(byte)
                case 0x41...0x5A: word.append(byte + 0x20)
                case 0x80...: return nil
                default: end()
                }
            }
            end()
            return result
        }
    }

    /// Lowercase, without diacritics, at most ``maximumLength`` characters. Plain ASCII (most words)
    /// takes a fast path.
    package static func fold(_ word: String) -> String {
        var folded: String
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            folded = word.lowercased()
        } else if word.unicodeScalars.allSatisfy({
            $0.isASCII
                || ($0.value >= 0x2E80 && !(0xFB00...0xFB4F).contains($0.value)
                    && !(0xFF00...0xFFEF).contains($0.value))
        }) {
            // CJK and Hangul have no case and no diacritics to fold: only the ASCII in them changes.
            folded = word.lowercased()
        } else {
            folded = UnicodeFolding.searchFold(word)
        }
        if folded.count > maximumLength { folded = String(folded.prefix(maximumLength)) }
        return folded
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// Han, Hiragana and Katakana: scripts written without spaces between words.
    private static func isIdeographic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF66...0xFF9F,
            0x20000...0x3134F:
            return true
        default:
            return false
        }
    }
}

/// A search as typed: the terms every result must have, and the author it is limited to.
public struct SearchQuery: Equatable, Sendable {
    /// Terms as ``SearchTerms`` makes them: `#tag`, `@user`, words (a Korean one without its
    /// particle), and CJK pairs or a lone character.
    public var terms: [String]
    /// `from:user`: only this username's tweets.
    public var author: String?

    /// Parses `text`: `#tag`, `@user`, `from:user`, and words.
    /// - Throws: ``SearchError/empty`` when nothing in it can be searched for.
    public init(_ text: String) throws {
        var terms: [String] = []
        var author: String?
        for token in text.split(whereSeparator: { $0.isWhitespace }) {
            let lowered = token.lowercased()
            if lowered.hasPrefix("from:") {
                let name = lowered.dropFirst(5).drop { $0 == "@" }
                guard !name.isEmpty else { throw SearchError.emptyAuthor }
                author = String(name)
            } else if token.hasPrefix("#"), let tag = SearchTerms.words(String(token.dropFirst())).first {
                // "#swift," is the tag swift, as the tweet's own entities have it.
                terms.append("#" + tag)
            } else if token.hasPrefix("@"), token.count > 1 {
                // A username is letters, digits and _: "@ada's" mentions ada.
                let name = token.dropFirst().prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                if !name.isEmpty { terms.append("@" + name.lowercased()) }
            } else {
                terms += SearchTerms.queryWords(String(token))
            }
        }
        var seen: Set<String> = []
        self.terms = terms.filter { seen.insert($0).inserted }
        self.author = author
        guard !self.terms.isEmpty || author != nil else { throw SearchError.empty }
    }
}

/// What can be wrong with a search.
public enum SearchError: Error, Equatable, LocalizedError {
    /// Nothing to search for: no word, tag, mention or author.
    case empty
    /// `from:` with no username.
    case emptyAuthor

    public var errorDescription: String? {
        switch self {
        case .empty: "there is nothing to search for; give a word, a #hashtag, an @username or from:username"
        case .emptyAuthor: "from: needs a username, as in from:ada"
        }
    }
}
