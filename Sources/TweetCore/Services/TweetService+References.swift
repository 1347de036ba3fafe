import FoundationEssentials
import TweetStore
import TweetSystem

/// Tweets named the way git names commits: by a unique start of their ID, and shown by the
/// shortest start that no other tweet of the store shares.
extension TweetService {
    /// The fewest characters of an ID a reference may give.
    public static let minimumReferenceLength = 6
    /// The fewest characters of an ID a row shows.
    public static let minimumShortIDLength = 8
    /// The most candidates an ambiguous reference's error names.
    static let listedCandidates = 5

    /// The ID of the tweet `reference` names: its whole ID, or a start of it that only one tweet's
    /// ID has, of at least ``minimumReferenceLength`` characters; whitespace around it is ignored.
    /// - Throws: ``TweetError/notFound(_:)``, ``TweetError/referenceTooShort(_:minimum:)``, or
    ///   ``TweetError/ambiguousReference(_:candidates:)``.
    public func resolveTweetID(_ reference: String) async throws -> String {
        let reference = reference.trimmed()
        // A whole ID is taken as it is: the action that follows finds out whether it exists, with
        // no read spent on it here.
        if reference.utf8.count == IDGenerator.length { return reference }
        guard Self.isIDText(reference) else { throw TweetError.notFound(reference) }
        guard reference.utf8.count >= Self.minimumReferenceLength else {
            throw TweetError.referenceTooShort(reference, minimum: Self.minimumReferenceLength)
        }
        let found = try await store.documentIDs(
            in: Collections.tweets, startingWith: [reference], limit: Self.listedCandidates + 1)[0]
        switch found.count {
        case 0: throw TweetError.notFound(reference)
        case 1: return found[0]
        default:
            let shown = Array(found.prefix(Self.listedCandidates))
            let candidates = shown.map { id in
                String(id.prefix(DocumentIDs.uniqueLength(of: id, among: shown, minimum: Self.minimumShortIDLength)))
            }
            throw TweetError.ambiguousReference(reference, candidates: candidates, more: found.count > shown.count)
        }
    }

    /// Each ID's shortest start that no other tweet of the store shares, of at least
    /// ``minimumShortIDLength`` characters: one read of the store for them all.
    /// - Returns: The short forms, by ID.
    public func shortIDs(_ ids: [String]) async throws -> [String: String] {
        // An ID no longer than a short one, or not made like one, is shown whole.
        let shortened = ids.filter { $0.utf8.count > Self.minimumShortIDLength && Self.isIDText($0) }
        let lengths = try await store.uniquePrefixLengths(
            in: Collections.tweets, of: shortened, minimum: Self.minimumShortIDLength)
        var result: [String: String] = [:]
        result.reserveCapacity(ids.count)
        for id in ids { result[id] = id }
        for (id, length) in zip(shortened, lengths) {
            result[id] = String(decoding: id.utf8.prefix(length), as: UTF8.self)
        }
        return result
    }

    /// Whether `text` holds only the characters IDs are made of.
    private static func isIDText(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
            }
    }
}
