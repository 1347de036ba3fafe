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
public enum SearchTerms {
    /// The most terms one tweet is indexed by.
    public static let maximumPerTweet = 48
    /// The longest term kept (longer words are cut to it, the same way in tweets and searches).
    static let maximumLength = 40

    /// A tweet's terms, each once, in order of first appearance.
    public static func terms(caption: String, entities: TweetEntities) -> [String] {
        var terms: [String] = []
        var seen: Set<String> = []
        func add(_ term: String) {
            guard terms.count < maximumPerTweet, !term.isEmpty, seen.insert(term).inserted else { return }
            terms.append(term)
        }
        for tag in entities.hashtags { add("#" + fold(tag)) }
        for name in entities.mentions { add("@" + name.lowercased()) }
        for word in words(caption) { add(word) }
        return terms
    }

    /// The words and character pairs of `text`, folded.
    static func words(_ text: String) -> [String] {
        if let ascii = asciiWords(text) { return ascii }
        var result: [String] = []
        var word = String.UnicodeScalarView()
        var ideographs: [Unicode.Scalar] = []
        func endWord() {
            guard !word.isEmpty else { return }
            result.append(fold(String(word)))
            word.removeAll(keepingCapacity: true)
        }
        func endIdeographs() {
            if ideographs.count == 1 {
                result.append(String(Character(ideographs[0])))
            } else if ideographs.count > 1 {
                for index in 0..<(ideographs.count - 1) {
                    var pair = String.UnicodeScalarView()
                    pair.append(ideographs[index])
                    pair.append(ideographs[index + 1])
                    result.append(String(pair))
                }
            }
            ideographs.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            if isIdeographic(scalar) {
                endWord()
                ideographs.append(scalar)
            } else if isWordScalar(scalar) {
                endIdeographs()
                word.append(scalar)
            } else {
                endWord()
                endIdeographs()
            }
        }
        endWord()
        endIdeographs()
        return result
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
    /// Terms as ``SearchTerms`` makes them: `#tag`, `@user`, words and CJK pairs.
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
                terms += SearchTerms.words(String(token))
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
