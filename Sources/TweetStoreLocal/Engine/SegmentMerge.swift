import TweetStore

/// A streaming merge of segments by path: the newest version of each document, one at a time,
/// its line copied as it is. Only the documents an index covers are parsed (for their keys), and
/// nothing is held but each source's position, so a merge's memory does not grow with its inputs.
struct SegmentMerge {
    private let sources: [Segment]
    private let dropDeletions: Bool
    private let indexes: [IndexDefinition]
    private var positions: [Int]
    private var heads: [DocumentPath?]
    /// The last collection seen, and whether an index covers it (paths come sorted, so a
    /// collection's documents come together).
    private var covered: (collection: String, parsing: Bool)?

    /// - Parameters:
    ///   - sources: newest first; of two versions of a path, the newer is kept.
    ///   - dropDeletions: whether deletions are left out (nothing older is left for them to hide).
    init(_ sources: [Segment], dropDeletions: Bool, indexes: [IndexDefinition]) throws {
        self.sources = sources
        self.dropDeletions = dropDeletions
        self.indexes = indexes
        positions = [Int](repeating: 0, count: sources.count)
        heads = try sources.map { $0.count > 0 ? try $0.path(at: 0) : nil }
    }

    /// At most this many entries come out: all of the sources'.
    var capacity: Int { sources.reduce(0) { $0 + $1.count } }

    /// The next entry by path, or `nil` at the end.
    mutating func next() throws -> SegmentWriter.Entry? {
        while true {
            var best: Int?
            for index in heads.indices {
                guard let head = heads[index] else { continue }
                if let current = best, SegmentFormat.comparePaths(head, heads[current]!) != .orderedAscending {
                    continue
                }
                best = index
            }
            guard let chosen = best, let path = heads[chosen] else { return nil }
            if covered?.collection != path.collection {
                covered = (path.collection, indexes.contains { $0.covers(collection: path.collection) })
            }
            let (entry, isDeletion) = try sources[chosen].copiedEntry(
                at: positions[chosen], path: path, parsing: covered?.parsing ?? true)
            for index in sources.indices where heads[index] == path {
                positions[index] += 1
                heads[index] =
                    positions[index] < sources[index].count ? try sources[index].path(at: positions[index]) : nil
            }
            if isDeletion && dropDeletions { continue }
            return entry
        }
    }
}
