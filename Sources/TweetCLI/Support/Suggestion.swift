/// "Did you mean …?" for a mistyped command, option or username, as git and click suggest: the
/// nearest known word by edit distance, when it is near enough to be what was meant.
enum Suggestion {
    /// The candidate nearest to `word`: within two edits (a swap of neighbours counts as one), and
    /// fewer edits than half the word's length; or else the one candidate `word` is the start of.
    /// Ties go to the earlier candidate.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased().unicodeScalars)
        guard !typed.isEmpty else { return nil }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let distance = Self.distance(typed, Array(candidate.lowercased().unicodeScalars))
            if distance <= 2, distance * 2 < typed.count, best.map({ distance < $0.distance }) ?? true {
                best = (candidate, distance)
            }
        }
        if let best { return best.candidate }
        let starting = candidates.filter { $0.lowercased().hasPrefix(word.lowercased()) }
        return typed.count >= 3 && starting.count == 1 ? starting[0] : nil
    }

    /// "; did you mean 'X'?" for `closest(to:among:)`, or nothing.
    static func clause(for word: String, among candidates: [String], quote: (String) -> String = { "'\($0)'" })
        -> String
    {
        closest(to: word, among: candidates).map { "; did you mean \(quote($0))?" } ?? ""
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// two neighbours, each one edit.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
