import FoundationEssentials
import TweetStore

/// What the store holds at one moment: the memtable over the segments, newest first.
/// Answers lookups and queries; transactions read through it.
final class StoreSnapshot {
    let memtable: Memtable
    /// Newest first.
    let segments: [Segment]
    let indexes: [IndexDefinition]

    init(memtable: Memtable, segments: [Segment], indexes: [IndexDefinition]) {
        self.memtable = memtable
        self.segments = segments
        self.indexes = indexes
    }

    // MARK: Lookups

    func document(at path: DocumentPath) throws -> JSONObject? {
        var holder: Int?
        return try document(at: path, expectedIn: nil, foundIn: &holder)
    }

    /// The document at `path`; `holder` becomes the position of the segment that had it. The
    /// segment at `expected` is searched before its Bloom filter is read (see ``Segment/find(_:bloomFirst:)``).
    private func document(at path: DocumentPath, expectedIn expected: Int?, foundIn holder: inout Int?) throws
        -> JSONObject?
    {
        holder = nil
        switch try memtable.lookup(path) {
        case .present(let fields): return fields
        case .deleted: return nil
        case .absent: break
        }
        for (position, segment) in segments.enumerated() {
            if let ordinal = try segment.find(path, bloomFirst: position != expected) {
                holder = position
                return try segment.entry(at: ordinal).data
            }
        }
        return nil
    }

    /// The documents at `paths` that exist, in the order of `paths`. A batch is looked up grouped
    /// by collection and in ID order within each, the order of the blocks it reads: lookups in
    /// one collection then go through its ID keys and offsets once, finding each block they share
    /// still in the block pool, where in the callers' order they took turns evicting them (as the
    /// following feed's lookups of its authors did, across the blocks of every user's ID keys).
    func documents(at paths: [DocumentPath]) throws -> [DocumentSnapshot] {
        var order: [(collection: UInt64, id: UInt64, position: Int)] = []
        order.reserveCapacity(paths.count)
        for (position, path) in paths.enumerated() {
            var (collection, id) = (path.collection, path.documentID)
            order.append(
                (
                    collection.withUTF8 { CollectionDirectory.hash($0) }, id.withUTF8 { SegmentFormat.idKey($0) },
                    position
                ))
        }
        order.sort { ($0.collection, $0.id, $0.position) < ($1.collection, $1.id, $1.position) }
        var found = [JSONObject?](repeating: nil, count: paths.count)
        // Where the last lookup in a collection found its document, the next is likely found in
        // the same segment (a page's authors, its tweets by ID): its Bloom filter, a read of its
        // own for each lookup, is read only if the search there fails.
        var previous: (collection: UInt64, holder: Int?)?
        for entry in order {
            let expected = previous.flatMap { $0.collection == entry.collection ? $0.holder : nil }
            var holder: Int?
            found[entry.position] = try document(at: paths[entry.position], expectedIn: expected, foundIn: &holder)
            previous = (entry.collection, holder)
        }
        return paths.indices.compactMap { position in
            found[position].map { DocumentSnapshot(path: paths[position], data: $0) }
        }
    }

    /// Whether a source newer than `rank` (0 is the memtable, 1 the newest segment…) has `path`.
    private func isReplaced(_ path: DocumentPath, rank: Int) throws -> Bool {
        guard rank > 0 else { return false }
        if memtable.contains(path) { return true }
        for segment in segments.prefix(rank - 1) where try segment.find(path) != nil { return true }
        return false
    }

    /// The IDs of `collection`'s documents that start with `prefix`, in byte order, at most
    /// `limit`: each source's run of them, the newest source that has an ID saying whether its
    /// document lives.
    func documentIDs(in collection: String, startingWith prefix: String, limit: Int) throws -> [String] {
        // Each ID from the newest source that has it (a short list: the IDs of a few milliseconds).
        var entries: [(id: String, isDeletion: Bool)] = []
        for (id, entry) in memtable.collections[collection] ?? [:] where id.utf8.starts(with: prefix.utf8) {
            if case .deleted = entry { entries.append((id, true)) } else { entries.append((id, false)) }
        }
        for segment in segments {
            let range = try segment.range(ofCollection: collection)
            let start = try segment.bound(ofID: prefix, in: collection, upper: false, within: range)
            for entry in try segment.idRun(startingWith: prefix, from: start, within: range)
            where !entries.contains(where: { $0.id == entry.id }) {
                entries.append(entry)
            }
        }
        let live = entries.compactMap { $0.isDeletion ? nil : $0.id }
        return Array(live.sorted { ByteOrder.compare($0, $1) == .orderedAscending }.prefix(limit))
    }

    /// For each of `ids`, how many of its first bytes (at least `minimum`) no other live ID of
    /// `collection` starts with. An ID key is exactly an ID's first 8 bytes, so at that minimum the
    /// keys alone count the entries with them: one entry in every source is the ID's own, which
    /// the caller has read. Only a start with more entries (another ID, or this one written in
    /// several segments) has its IDs read and compared.
    func uniquePrefixLengths(in collection: String, of ids: [String], minimum: Int) throws -> [Int] {
        var pending: [UInt64: Int] = [:]
        if minimum == 8 {
            for id in (memtable.collections[collection] ?? [:]).keys where id.utf8.count >= 8 {
                pending[SegmentFormat.idKey(id.utf8), default: 0] += 1
            }
        }
        var ranges: [Range<Int>?] = Array(repeating: nil, count: segments.count)
        return try ids.map { id in
            guard id.utf8.count > minimum else { return id.utf8.count }
            if minimum == 8 {
                let key = SegmentFormat.idKey(id.utf8)
                var entries: Int? = pending[key] ?? 0
                for (position, segment) in segments.enumerated() {
                    guard let counted = entries, counted <= 1 else { break }
                    let range = try ranges[position] ?? segment.range(ofCollection: collection)
                    ranges[position] = range
                    entries = try segment.idKeyCount(key, within: range, upTo: 2).map { counted + $0 }
                }
                if let entries, entries <= 1 { return minimum }
            }
            let start = String(decoding: id.utf8.prefix(minimum), as: UTF8.self)
            let others = try documentIDs(in: collection, startingWith: start, limit: Int.max)
            return DocumentIDs.uniqueLength(of: id, among: others, minimum: minimum)
        }
    }

    // MARK: Queries

    func query(_ query: Query) throws -> [DocumentSnapshot] {
        let plan = self.plan(query)
        guard plan.isOrdered else {
            // No index gives the query's order: collect every match, then sort.
            var streams = try self.streams(query, plan)
            var matches: [DocumentSnapshot] = []
            for index in streams.indices {
                while let (snapshot, rank) = try streams[index].next() {
                    if try accepts(snapshot, rank, query, plan) { matches.append(snapshot) }
                }
            }
            return query.select(from: matches).map(query.projected)
        }
        var source = try OrderedSource(query, plan, in: self)
        var result: [DocumentSnapshot] = []
        while let snapshot = try source.next(in: self) { result.append(query.projected(snapshot)) }
        return result
    }

    /// The documents of several queries that order by the same fields, merged in that order (at
    /// equal values, the earlier query's first), at most `limit` of them, each with the position of
    /// its query. Each query's documents are read only as far as the merge takes them, plus one:
    /// a timeline whose newest rows are all retweets reads one tweet, not a page of them.
    func mergedQuery(_ queries: [Query], limit: Int) throws -> [(query: Int, snapshot: DocumentSnapshot)] {
        guard limit > 0 else { return [] }
        let plans = queries.map(plan)
        guard plans.allSatisfy(\.isOrdered) else {
            // A query that must be sorted whole is read whole: each within the limit, then merged.
            var rows: [(query: Int, snapshot: DocumentSnapshot)] = []
            for (position, query) in queries.enumerated() {
                rows += try self.query(query.wholeDocuments.limit(to: min(query.limit ?? limit, limit))).map {
                    (position, $0)
                }
            }
            return Query.merged(rows, of: queries, limit: limit)
        }
        var sources = try queries.indices.map { try OrderedSource(queries[$0], plans[$0], in: self) }
        var heads = try sources.indices.map { try sources[$0].next(in: self) }
        var rows: [(query: Int, snapshot: DocumentSnapshot)] = []
        while rows.count < limit {
            let best = Self.smallest(heads) { Query.mergeOrder($0, $1, $2, $3, of: queries) == .orderedAscending }
            guard let chosen = best, let snapshot = heads[chosen] else { break }
            rows.append((chosen, queries[chosen].projected(snapshot)))
            // The last row's successor is not read: nothing will compare with it.
            heads[chosen] = rows.count < limit ? try sources[chosen].next(in: self) : nil
        }
        return rows
    }

    /// The position of the first of `heads` that no other precedes (`precedes(a, its position, b,
    /// its position)`), or `nil` when every head is `nil`: the next of several ordered streams.
    private static func smallest<Head>(_ heads: [Head?], _ precedes: (Head, Int, Head, Int) -> Bool) -> Int? {
        var best: Int?
        for position in heads.indices {
            guard let head = heads[position] else { continue }
            if let current = best, let leader = heads[current], !precedes(head, position, leader, current) { continue }
            best = position
        }
        return best
    }

    /// How `query` reads the segments. Only an index every segment has can serve it: a segment
    /// written before an index existed would otherwise answer in the wrong order and without the
    /// index's filters.
    private func plan(_ query: Query) -> QueryPlan {
        QueryPlan(query, indexes: indexes.filter { index in segments.allSatisfy { $0.hasIndex(index) } })
    }

    /// The memtable's stream and each segment's, newest first.
    private func streams(_ query: Query, _ plan: QueryPlan) throws -> [any CandidateStream] {
        var streams: [any CandidateStream] = [try MemtableStream(memtable: memtable, query: query)]
        for (position, segment) in segments.enumerated() {
            streams += try plan.streams(in: segment, rank: position + 1, query: query)
        }
        return streams
    }

    /// Whether a candidate from the source at `rank` belongs in the query's results.
    private func accepts(_ snapshot: DocumentSnapshot, _ rank: Int, _ query: Query, _ plan: QueryPlan) throws -> Bool {
        guard rank > 0 else { return true }  // The memtable stream applied every filter already.
        return try plan.residualMatches(snapshot) && query.isAfterCursor(snapshot)
            && !isReplaced(snapshot.path, rank: rank)
    }

    /// One ordered query's results, read one at a time: its streams (each in the query's order)
    /// merged by taking the smallest head each time, within the query's limit; not yet projected
    /// (``Query/select(_:)``), so that they can still be compared.
    private struct OrderedSource {
        let query: Query
        let plan: QueryPlan
        var streams: [any CandidateStream]
        var heads: [(DocumentSnapshot, Int)?]
        var taken = 0

        init(_ query: Query, _ plan: QueryPlan, in snapshot: StoreSnapshot) throws {
            (self.query, self.plan) = (query, plan)
            var streams = try snapshot.streams(query, plan)
            heads = try streams.indices.map { try streams[$0].next() }
            self.streams = streams
        }

        mutating func next(in snapshot: StoreSnapshot) throws -> DocumentSnapshot? {
            while taken < query.limit ?? Int.max {
                let query = query
                let best = StoreSnapshot.smallest(heads) { lhs, _, rhs, _ in
                    query.compare(lhs.0, rhs.0) == .orderedAscending
                }
                guard let chosen = best, let (candidate, rank) = heads[chosen] else { return nil }
                heads[chosen] = try streams[chosen].next()
                if try snapshot.accepts(candidate, rank, query, plan) {
                    taken += 1
                    return candidate
                }
            }
            return nil
        }
    }

    /// Every live document in path order (segments merged, newest version wins), for export.
    func forEachDocument(_ body: (DocumentSnapshot) throws -> Void) throws {
        var memtableEntries = try memtable.sortedEntries()[...]
        var positions = [Int](repeating: 0, count: segments.count)
        var heads: [DocumentPath?] = try segments.indices.map {
            segments[$0].count > 0 ? try segments[$0].path(at: 0) : nil
        }
        while true {
            var best: DocumentPath? = memtableEntries.first?.path
            for head in heads {
                if let head, best == nil || SegmentFormat.comparePaths(head, best!) == .orderedAscending { best = head }
            }
            guard let path = best else { return }
            var data: JSONObject??
            if let entry = memtableEntries.first, entry.path == path {
                data = .some(entry.data)
                memtableEntries.removeFirst()
            }
            for index in segments.indices where heads[index] == path {
                if data == nil { data = .some(try segments[index].entry(at: positions[index]).data) }
                positions[index] += 1
                heads[index] =
                    positions[index] < segments[index].count ? try segments[index].path(at: positions[index]) : nil
            }
            if let fields = data ?? nil { try body(DocumentSnapshot(path: path, data: fields)) }
        }
    }
}

/// A sorted run of candidate documents from one source, with the source's rank.
protocol CandidateStream {
    mutating func next() throws -> (DocumentSnapshot, Int)?
}

/// The memtable's matching documents, filtered and sorted in full (it is small).
struct MemtableStream: CandidateStream {
    private var snapshots: [DocumentSnapshot]
    private var position = 0

    init(memtable: Memtable, query: Query) throws {
        snapshots = try memtable.documents(in: query.scope, ids: QueryPlan.IDRange(query.filters)).filter {
            query.matches($0) && query.hasOrderFields($0) && query.isAfterCursor($0)
        }
        snapshots.sort { query.compare($0, $1) == .orderedAscending }
    }

    mutating func next() throws -> (DocumentSnapshot, Int)? {
        guard position < snapshots.count else { return nil }
        defer { position += 1 }
        return (snapshots[position], 0)
    }
}

/// Positions of one segment's index (or its primary order), read lazily in either direction.
struct SegmentStream: CandidateStream {
    let segment: Segment
    let rank: Int
    /// `nil` reads the primary order (every document of the range).
    let index: IndexDefinition?
    var positions: Range<Int>
    let descending: Bool
    /// For a scan of a whole segment on behalf of a collection group: the group's ID.
    var collectionID: String? = nil
    /// Bytes every candidate's line must contain, ignoring ASCII case (a text search's literal).
    var requiredBytes: [UInt8]? = nil
    /// A top-level string field (its `"name":"` bytes) whose value must be one of these.
    var requiredValue: RequiredValue? = nil
    /// The tags an entry of a tagged index must have, one of (its tagged field's `in` filter).
    var requiredTags: TagSet? = nil
    /// The index's ordinals in this segment, found at the first position read.
    var table: Segment.OrdinalTable? = nil
    /// The only top-level fields to decode of each line (``QueryPlan/decodedFields``); `nil` for all.
    var fields: [[UInt8]]? = nil
    /// Range filters' bounds at the end of the stream's way (``QueryPlan/TrailingBound``): the
    /// stream ends at the first document past one.
    var trailingBounds: [QueryPlan.TrailingBound] = []

    mutating func next() throws -> (DocumentSnapshot, Int)? {
        while !positions.isEmpty {
            var position = descending ? positions.upperBound - 1 : positions.lowerBound
            var ordinal = position
            if let index {
                if table == nil { table = segment.ordinalTable(index) }
                guard let table else {
                    throw StoreError.io(
                        path: segment.indexPath, reason: "a query read index \(index.name), which it lacks")
                }
                if let requiredTags, table.taggedField != nil {
                    // The entries whose tags no value has are passed over without a line read.
                    guard
                        let found = try segment.firstTagged(
                            in: table, positions, descending: descending, passing: requiredTags)
                    else {
                        positions = positions.lowerBound..<positions.lowerBound
                        return nil
                    }
                    (position, ordinal) = found
                } else {
                    ordinal = try segment.ordinal(in: table, position)
                }
            }
            if descending {
                positions = positions.lowerBound..<position
            } else {
                positions = (position + 1)..<positions.upperBound
            }
            if let requiredBytes, try !segment.lineMayContain(ordinal, requiredBytes) { continue }
            if let requiredValue, try !segment.lineMayHave(ordinal, requiredValue) {
                continue
            }
            // A deletion yields nothing here; older versions of its path are skipped as replaced.
            if case (let path, let data?) = try segment.entry(at: ordinal, keepingFields: fields),
                collectionID.map({ path.collectionID == $0 }) ?? true
            {
                // In the index's order, every entry after one past a bound is past it too.
                if trailingBounds.contains(where: { $0.isPassed(by: data, descending: descending) }) {
                    positions = positions.lowerBound..<positions.lowerBound
                    return nil
                }
                return (DocumentSnapshot(path: path, data: data), rank)
            }
        }
        return nil
    }
}
