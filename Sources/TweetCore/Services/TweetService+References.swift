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
                String(id.prefix(max(Self.minimumShortIDLength, Self.uniqueLength(of: id, among: shown))))
            }
            throw TweetError.ambiguousReference(reference, candidates: candidates, more: found.count > shown.count)
        }
    }

    /// Each ID's shortest start that no other tweet of the store shares, of at least
    /// ``minimumShortIDLength`` characters. An ID's first eight characters are its time to the
    /// millisecond, so most are unique at eight; one read of the IDs sharing them tells.
    /// - Returns: The short forms, by ID.
    public func shortIDs(_ ids: [String]) async throws -> [String: String] {
        // An ID no longer than a short one, or not made like one, is shown whole.
        let starts = ids.map { id -> String? in
            guard id.utf8.count > Self.minimumShortIDLength else { return nil }
            let start = String(decoding: id.utf8.prefix(Self.minimumShortIDLength), as: UTF8.self)
            return Self.isIDText(start) ? start : nil
        }
        var distinct: [String] = []
        for case let start? in starts where !distinct.contains(start) { distinct.append(start) }
        // The IDs of a millisecond are few, so each run is read whole.
        let runs = try await store.documentIDs(in: Collections.tweets, startingWith: distinct, limit: Int.max)
        var result: [String: String] = [:]
        result.reserveCapacity(ids.count)
        for (id, start) in zip(ids, starts) {
            guard let start, let position = distinct.firstIndex(of: start) else {
                result[id] = id
                continue
            }
            let others = runs[position]
            result[id] =
                others.count <= 1
                ? start : String(id.prefix(max(start.count, Self.uniqueLength(of: id, among: others))))
        }
        return result
    }

    /// How many characters of `id` tell it from every other ID of `others`.
    static func uniqueLength(of id: String, among others: [String]) -> Int {
        var length = 1
        let bytes = Array(id.utf8)
        for other in others where other != id {
            let shared = zip(bytes, other.utf8).prefix { $0 == $1 }.count
            length = max(length, shared + 1)
        }
        return min(length, bytes.count)
    }

    /// Whether `text` holds only the characters IDs are made of.
    private static func isIDText(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
            }
    }
}
