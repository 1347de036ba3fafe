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
        var result: [String: String] = [:]
        result.reserveCapacity(ids.count)
        for id in ids { result[id] = id }
        // Those read with their page are taken; the rest are read now.
        let known = shortForms.withLock { forms -> [String: String] in
            guard !forms.known.isEmpty else { return [:] }
            var taken: [String: String] = [:]
            for id in ids { if let form = forms.known.removeValue(forKey: id) { taken[id] = form } }
            return taken
        }
        var shortened = Self.shortenable(ids)
        if !known.isEmpty {
            result.merge(known) { _, form in form }
            shortened.removeAll { known[$0] != nil }
        }
        guard !shortened.isEmpty else { return result }
        let lengths = try await store.uniquePrefixLengths(
            in: Collections.tweets, of: shortened, minimum: Self.minimumShortIDLength)
        for (id, length) in zip(shortened, lengths) {
            result[id] = String(decoding: id.utf8.prefix(length), as: UTF8.self)
        }
        return result
    }

    /// Joins the pages read from now on with their IDs' short forms, in the same read, for
    /// ``shortIDs(_:)``: for a front end whose rows show them.
    public func prefetchShortIDs() {
        shortForms.withLock { $0.wanted = true }
    }

    /// Keeps the short forms `lengths` gives `ids`, for ``shortIDs(_:)`` to take.
    func keepShortForms(of ids: [String], lengths: [Int]) {
        guard !ids.isEmpty else { return }
        shortForms.withLock { forms in
            // A long-lived front end that reads pages it never shows keeps no more than a few.
            if forms.known.count > Self.keptShortForms { forms.known.removeAll() }
            for (id, length) in zip(ids, lengths) {
                forms.known[id] = String(decoding: id.utf8.prefix(length), as: UTF8.self)
            }
        }
    }

    /// The most short forms kept unshown.
    static let keptShortForms = 1000

    /// The IDs of `ids` a short form is shown for: an ID no longer than a short one, or not made
    /// like one, is shown whole.
    static func shortenable(_ ids: some Sequence<String>) -> [String] {
        ids.filter { $0.utf8.count > minimumShortIDLength && isIDText($0) }
    }

    /// Whether `text` holds only the characters IDs are made of.
    private static func isIDText(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
            }
    }
}
