import TweetStore

/// How a query reads a segment: through the secondary index that gives its equality filters and
/// its order, or, without one, by scanning its collection and sorting.
struct QueryPlan {
    /// An index and the key prefixes to read from it (one per combination of `in` values).
    let index: IndexDefinition?
    let prefixes: [[JSONValue]]
    /// Filters the index range does not guarantee, checked on each candidate.
    let residual: [Query.Filter]
    /// Range filters (`<`, `<=`, `>`, `>=`) on the index field after the prefixes', which narrow
    /// each range with a binary search (a timeline's rows since a time). They stay in ``residual``.
    private let rangeFilters: [Query.Filter]
    /// The values of residual `in` filters made only of strings, by field, in the filters' order:
    /// a list, so the first (checked on each raw line) is the first filter's, where a dictionary's
    /// first changed with its per-process hash seed.
    private let stringSets: [(field: String, values: StringValues)]
    /// The first of them, checked on each candidate's raw line before it is parsed.
    private let requiredValue: RequiredValue?
    private let textSearch: Query.TextSearch?
    /// The only top-level fields a stream decodes of each line, for a query that selects some
    /// (``Query/decodedFields``): the rest is checked as strictly but not built. `nil` for all.
    let decodedFields: [[UInt8]]?
    /// Whether each stream comes in the query's order (else everything is collected and sorted).
    let isOrdered: Bool
    let descending: Bool

    /// The most `in` values read as separate ranges; above it, an order-only index is scanned with
    /// the `in` filter checked on each candidate (a feed of a hundred followed users reads a short
    /// run of entries rather than a hundred ranges).
    static let maximumRanges = 16

    init(_ query: Query, indexes: [IndexDefinition]) {
        var orderFields = query.orders.map(\.field)
        if orderFields.last == Query.documentID { orderFields.removeLast() }
        textSearch = query.textSearch
        decodedFields = query.decodedFields.map { $0.sorted().map { Array($0.utf8) } }
        let isDescending = query.orders.first?.descending ?? false
        descending = isDescending
        // One equality (or `in`) filter per field can be served by an index; any other filter,
        // a second one on the same field included, is checked on each candidate.
        var equalities: [String: [JSONValue]] = [:]
        var served: [String: Int] = [:]
        for (position, filter) in query.filters.enumerated() where filter.field != Query.documentID {
            guard served[filter.field] == nil else { continue }
            // A null test can be read from a presence field (`name?`) of an index: `!= null` exactly;
            // `== null` only narrows (a missing field reads as absent too), so it stays a residual.
            if filter.value == .null, filter.op == .notEqual || filter.op == .equal,
                equalities[filter.field + "?"] == nil
            {
                equalities[filter.field + "?"] = [.bool(filter.op == .notEqual)]
                if filter.op == .notEqual { served[filter.field + "?"] = position }
            }
            switch filter.op {
            case .equal:
                equalities[filter.field] = [filter.value]
                served[filter.field] = position
            case .in:
                guard case .array(let values) = filter.value else { continue }
                // One range per value, so duplicates are dropped; past a few times the most ranges,
                // the values cannot be ranges anyway, and hashing them cost more than the query's
                // scan spared (a following feed's hundred uids).
                var seen = Set<JSONValue>()
                equalities[filter.field] =
                    values.count > 4 * Self.maximumRanges ? values : values.filter { seen.insert($0).inserted }
                served[filter.field] = position
            default: break
            }
        }
        let (collectionID, isGroup, collectionPath): (String, Bool, String?) =
            switch query.scope {
            case .collection(let path): (String(path.split(separator: "/").last ?? Substring(path)), false, path)
            case .collectionGroup(let id): (id, true, nil)
            }
        var best: (IndexDefinition, Int)?
        if orderFields.count <= 1, query.orders.allSatisfy({ $0.descending == isDescending }) {
            for index in indexes
            where index.collectionID == collectionID && (index.scope == .collectionGroup) == isGroup {
                let equalityFields = orderFields.isEmpty ? index.fields : Array(index.fields.dropLast())
                guard orderFields.isEmpty || index.fields.last == orderFields[0],
                    equalityFields.allSatisfy({ equalities[$0] != nil }),
                    equalityFields.reduce(1, { $0 * (equalities[$1]?.count ?? 1) }) <= Self.maximumRanges
                else { continue }
                if best == nil || equalityFields.count > best!.1 { best = (index, equalityFields.count) }
            }
        }
        var ordered = true
        if best == nil {
            // No index gives the order, but one whose leading fields are all filtered on still
            // narrows the read to a range; its matches are then sorted.
            for index in indexes
            where index.collectionID == collectionID && (index.scope == .collectionGroup) == isGroup {
                let leading = index.fields.prefix { equalities[$0] != nil }
                guard !leading.isEmpty, leading.reduce(1, { $0 * equalities[$1]!.count }) <= Self.maximumRanges
                else { continue }
                if best == nil || leading.count > best!.1 { best = (index, leading.count) }
            }
            ordered = false
        }
        guard let (index, equalityCount) = best else {
            self.index = nil
            prefixes = []
            residual = query.filters
            rangeFilters = []
            stringSets = Self.stringSets(of: query.filters)
            requiredValue = nil  // a scan checks its filters on each parsed document
            // A collection's documents lie in ID order in each segment, so a query ordered by ID
            // alone streams them, as far as its limit, rather than reading the collection whole:
            // a walk over every tweet a page at a time would otherwise read the rest each time.
            isOrdered =
                collectionPath != nil && orderFields.isEmpty
                && query.orders.allSatisfy { $0.descending == isDescending }
            return
        }
        self.index = index
        let equalityFields = Array(index.fields.prefix(equalityCount))
        var prefixes: [[JSONValue]] = [collectionPath.map { [.string($0)] } ?? []]
        for field in equalityFields {
            prefixes = prefixes.flatMap { prefix in equalities[field]!.map { prefix + [$0] } }
        }
        self.prefixes = prefixes
        let rangeField = equalityCount < index.fields.count ? index.fields[equalityCount] : nil
        rangeFilters = query.filters.filter { filter in
            filter.field == rangeField
                && [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].contains(filter.op)
        }
        let servedPositions = Set(equalityFields.compactMap { served[$0] })
        residual = query.filters.enumerated().filter { !servedPositions.contains($0.offset) }.map(\.element)
        stringSets = Self.stringSets(of: residual)
        requiredValue = stringSets.first.map { RequiredValue(field: $0.field, values: $0.values.bytes) }
        isOrdered = ordered
    }

    private static func stringSets(of filters: [Query.Filter]) -> [(field: String, values: StringValues)] {
        var sets: [(field: String, values: StringValues)] = []
        for filter in filters where filter.op == .in && !sets.contains(where: { $0.field == filter.field }) {
            guard case .array(let values) = filter.value else { continue }
            let strings = values.compactMap(\.stringValue)
            if strings.count == values.count { sets.append((filter.field, StringValues(strings))) }
        }
        return sets
    }

    /// The string values of the residual `in` filter on `field`, when it has only strings.
    private func stringValues(of field: String) -> StringValues? {
        stringSets.first { $0.field == field }?.values
    }

    /// The bounds a query's range filters put on its documents' IDs (the rest of the query's
    /// filters on the ID are left to its residual check).
    struct IDRange {
        var lower: (id: String, inclusive: Bool)?
        var upper: (id: String, inclusive: Bool)?

        static let all = IDRange()

        private init() {}

        init(_ filters: [Query.Filter]) {
            for filter in filters where filter.field == Query.documentID {
                guard case .string(let id) = filter.value else { continue }
                switch filter.op {
                case .greaterThan, .greaterThanOrEqual:
                    if lower == nil || ByteOrder.compare(id, lower!.id) == .orderedDescending {
                        lower = (id, filter.op == .greaterThanOrEqual)
                    }
                case .lessThan, .lessThanOrEqual:
                    if upper == nil || ByteOrder.compare(id, upper!.id) == .orderedAscending {
                        upper = (id, filter.op == .lessThanOrEqual)
                    }
                default: break
                }
            }
        }

        /// Whether `id` is within the bounds.
        func contains(_ id: String) -> Bool {
            if let lower {
                let order = ByteOrder.compare(id, lower.id)
                if order == .orderedAscending || (order == .orderedSame && !lower.inclusive) { return false }
            }
            if let upper {
                let order = ByteOrder.compare(id, upper.id)
                if order == .orderedDescending || (order == .orderedSame && !upper.inclusive) { return false }
            }
            return true
        }
    }

    /// Whether `snapshot` passes the filters the index range does not guarantee.
    func residualMatches(_ snapshot: DocumentSnapshot) -> Bool {
        if let textSearch, !textSearch.matches(snapshot) { return false }
        for filter in residual {
            // An `in` of strings (a following feed's hundred uids) is a lookup of bytes, not a scan.
            if filter.op == .in, let strings = stringValues(of: filter.field) {
                guard case .string(let value)? = snapshot.lookup(filter.field), strings.contains(value) else {
                    return false
                }
            } else if !Query.matches([filter], snapshot) {
                return false
            }
        }
        return true
    }

    /// A text search's bytes, when every match must contain them literally in its stored JSON line
    /// (ASCII lowercase letters, digits and a few marks are never escaped); `nil` otherwise.
    static func literalBytes(_ search: Query.TextSearch) -> [UInt8]? {
        let bytes = Array(search.text.utf8)
        guard !bytes.isEmpty,
            bytes.allSatisfy({
                (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 32 || $0 == 46 || $0 == 45
            })
        else { return nil }
        return bytes
    }

    /// The candidate streams of one segment, each in the query's order when ``isOrdered``.
    func streams(in segment: Segment, rank: Int, query: Query) throws -> [any CandidateStream] {
        guard let index, segment.hasIndex(index) else {
            // No usable index: scan the collection (or, for a collection group, the whole segment).
            switch query.scope {
            case .collection(let path):
                var range = try segment.range(ofCollection: path)
                // Bounds on the ID (a short ID's prefix) narrow the scan to a range of the
                // segment, which is sorted by ID within a collection.
                let ids = IDRange(query.filters)
                if let lower = ids.lower {
                    let start = try segment.bound(ofID: lower.id, in: path, upper: !lower.inclusive, within: range)
                    range = start..<max(start, range.upperBound)
                }
                if let upper = ids.upper {
                    let end = try segment.bound(ofID: upper.id, in: path, upper: upper.inclusive, within: range)
                    range = range.lowerBound..<end
                }
                // A page after a cursor starts there with a binary search rather than by skipping.
                if isOrdered, let cursor = query.startAfter?.last?.stringValue,
                    cursor.utf8.starts(with: (path + "/").utf8)
                {
                    let id = String(decoding: cursor.utf8.dropFirst(path.utf8.count + 1), as: UTF8.self)
                    let bound = try segment.bound(ofID: id, in: path, upper: !descending, within: range)
                    range = descending ? range.lowerBound..<bound : bound..<range.upperBound
                }
                var stream = SegmentStream(
                    segment: segment, rank: rank, index: nil, positions: range, descending: isOrdered && descending)
                stream.requiredBytes = query.textSearch.flatMap(Self.literalBytes)
                stream.fields = decodedFields
                return [stream]
            case .collectionGroup(let id):
                var stream = SegmentStream(
                    segment: segment, rank: rank, index: nil, positions: 0..<segment.count, descending: false,
                    collectionID: id)
                stream.fields = decodedFields
                return [stream]
            }
        }
        let tagged = requiredTags(for: index, in: segment)
        // The cursor's document ID, the last part of its path: the same for every prefix (a
        // following feed has one per author), so found once.
        let cursorID = query.startAfter?.last?.stringValue.flatMap(DocumentPath.init)?.documentID
        return try prefixes.map { prefix in
            let range = try segment.range(index, prefix)
            var (low, high) = (range.lowerBound, range.upperBound)
            var trailing: [TrailingBound] = []
            // A range filter on the next field: its bound, from the same comparison as the filter's
            // (the index's keys are ordered by `JSONValue.compare`), so no match is left out.
            for filter in rangeFilters {
                let key = prefix + [filter.value]
                let isLower = filter.op == .greaterThan || filter.op == .greaterThanOrEqual
                if isLower == descending, let bound = trailingBound(filter, tagged: tagged != nil, query: query) {
                    trailing.append(bound)
                } else if isLower {
                    low = try segment.bound(index, key, upper: filter.op == .greaterThan, in: low..<high)
                } else {
                    high = try segment.bound(index, key, upper: filter.op == .lessThanOrEqual, in: low..<high)
                }
            }
            // Start after the cursor with a binary search rather than by skipping entries.
            if isOrdered, let cursor = query.startAfter, index.scope == .collection,
                cursor.count == index.fields.count - (prefix.count - 1) + 1
            {
                // The cursor ends with the document's path; a collection index's key with its ID.
                let key = prefix + cursor.dropLast() + [.string(cursorID ?? "")]
                if descending {
                    high = try segment.bound(index, key, upper: false, in: low..<high)
                } else {
                    low = try segment.bound(index, key, upper: true, in: low..<high)
                }
            }
            var stream = SegmentStream(
                segment: segment, rank: rank, index: index, positions: low..<high, descending: descending)
            // A text search's literal, and a residual `in` of strings (the following feed's uids),
            // are checked on the raw line first.
            stream.requiredBytes = query.textSearch.flatMap(Self.literalBytes)
            stream.requiredValue = requiredValue
            stream.fields = decodedFields
            stream.requiredTags = tagged
            stream.trailingBounds = trailing
            return stream
        }
    }

    /// The tags a stream of `segment` through `index` passes over entries by: an `in` of ASCII
    /// strings on the field this segment's entries tag, so that most entries are passed over
    /// without reading their lines.
    private func requiredTags(for index: IndexDefinition, in segment: Segment) -> TagSet? {
        guard let field = segment.ordinalTable(index)?.taggedField, field == index.taggedField else { return nil }
        return stringValues(of: field)?.tags
    }

    /// A range filter's bound at the end of a stream's way through the index: the low one going
    /// down, the high one going up. Rather than a binary search for it before the stream starts
    /// (where the entries' windows tie, as a day's timestamps do, each step reads a line), the
    /// stream checks it on each document it reads and ends at the first past it: the documents
    /// it reads are in the index's order, so every one after is past it too.
    struct TrailingBound {
        let field: String
        let value: JSONValue
        /// `>=` or `<=`, rather than `>` or `<`.
        let inclusive: Bool

        func isPassed(by data: JSONObject, descending: Bool) -> Bool {
            // An index keys a document by its top-level field (`IndexDefinition.key`).
            guard let found = data[field] else { return false }
            let order = compareKeys([found], [value])
            if order == .orderedSame { return !inclusive }
            return order == (descending ? .orderedAscending : .orderedDescending)
        }
    }

    /// `filter` as a ``TrailingBound``, or `nil` when the stream could pass documents beyond it
    /// without seeing them: lines passed over by their bytes alone (a text search's literal, an
    /// `in` checked on the raw line of an untagged segment), which could be all that is left of
    /// the range; or a selection that leaves the field out of the documents read.
    private func trailingBound(_ filter: Query.Filter, tagged: Bool, query: Query) -> TrailingBound? {
        guard query.textSearch.flatMap(Self.literalBytes) == nil, requiredValue == nil || tagged,
            decodedFields.map({ $0.contains(Array(filter.field.utf8)) }) ?? true
        else { return nil }
        return TrailingBound(
            field: filter.field, value: filter.value,
            inclusive: filter.op == .greaterThanOrEqual || filter.op == .lessThanOrEqual)
    }
}
