import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A query over a collection, built the way Firestore's are:
/// `store.collection("tweets").whereField("uid", isEqualTo: .string(uid)).order(by: "timestamp", descending: true).limit(to: 20)`.
public struct Query: Sendable {
    /// Which documents the query looks at.
    public enum Scope: Sendable, Hashable {
        /// The documents of one collection.
        case collection(String)
        /// The documents of every collection with this ID.
        case collectionGroup(String)
    }

    /// A condition on one field.
    public struct Filter: Sendable, Equatable {
        /// How the field is compared with the value.
        public enum Operator: Sendable, Equatable {
            case equal, notEqual, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual
            /// The field equals one of the values of an array.
            case `in`
        }
        public var field: String
        public var op: Operator
        public var value: JSONValue
    }

    /// One sort key.
    public struct Order: Sendable, Equatable {
        public var field: String
        public var descending: Bool
    }

    /// The field name that stands for a document's ID in filters, orders and cursors.
    public static let documentID = "__name__"

    /// A string above every string that starts with `prefix`, in byte order: the prefix with its
    /// last byte raised by one when that byte is ASCII (IDs are), else the prefix and U+10FFFF,
    /// the highest character (a raised byte there could be invalid UTF-8).
    package static func successor(ofPrefix prefix: String) -> String {
        var bytes = Array(prefix.utf8)
        guard let last = bytes.last, last < 0x7F else { return prefix + "\u{10FFFF}" }
        bytes[bytes.count - 1] = last + 1
        return String(decoding: bytes, as: UTF8.self)
    }

    let store: any DocumentStore
    public let scope: Scope
    public private(set) var filters: [Filter] = []
    public private(set) var orders: [Order] = []
    public private(set) var limit: Int?
    /// Values of the order fields (then the document's path) to start after.
    public private(set) var startAfter: [JSONValue]?
    /// Text one of some string fields must contain, ignoring case (see ``whereAny(_:containsText:)``).
    public private(set) var textSearch: TextSearch?
    /// The top-level fields each document comes back with, when the query asks for only some
    /// (see ``select(_:)``); `nil` for whole documents.
    public private(set) var selectedFields: [String]?

    /// A case-insensitive substring search over string fields.
    public struct TextSearch: Sendable, Equatable {
        public var fields: [String]
        /// Lowercased.
        public var text: String

        package func matches(_ snapshot: DocumentSnapshot) -> Bool {
            fields.contains { field in
                guard let value = snapshot.lookup(field)?.stringValue?.lowercased() else { return false }
                return Self.contains(value, text)
            }
        }

        /// Whether `haystack` contains `needle`, as `String.contains` says: for ASCII on both sides
        /// (usernames, most names) a search of their bytes, which is the same answer when neither
        /// holds a carriage return (a `\r\n` is one character); otherwise the standard library's.
        static func contains(_ haystack: String, _ needle: String) -> Bool {
            var haystack = haystack
            var needle = needle
            let fast = needle.withUTF8 { needleBytes in
                haystack.withUTF8 { bytes -> Bool? in
                    guard needleBytes.allSatisfy({ $0 < 0x80 && $0 != 0x0D }),
                        bytes.allSatisfy({ $0 < 0x80 && $0 != 0x0D })
                    else { return nil }
                    guard let first = needleBytes.first else { return true }
                    guard needleBytes.count <= bytes.count else { return false }
                    for start in 0...(bytes.count - needleBytes.count) where bytes[start] == first {
                        if memcmp(bytes.baseAddress! + start, needleBytes.baseAddress!, needleBytes.count) == 0 {
                            return true
                        }
                    }
                    return false
                }
            }
            return fast ?? haystack.contains(needle)
        }

    }

    init(store: any DocumentStore, scope: Scope) {
        self.store = store
        self.scope = scope
    }

    /// Keeps documents whose `field` equals `value`.
    public func whereField(_ field: String, isEqualTo value: JSONValue) -> Query {
        filtered(field, .equal, value)
    }

    /// Keeps documents whose `field` differs from `value`; a missing field never matches.
    public func whereField(_ field: String, isNotEqualTo value: JSONValue) -> Query {
        filtered(field, .notEqual, value)
    }

    /// Keeps documents whose `field` equals one of `values`.
    public func whereField(_ field: String, in values: [JSONValue]) -> Query {
        filtered(field, .in, .array(values))
    }

    /// Keeps documents whose `field` is less than `value`.
    public func whereField(_ field: String, isLessThan value: JSONValue) -> Query {
        filtered(field, .lessThan, value)
    }

    /// Keeps documents whose `field` is less than or equal to `value`.
    public func whereField(_ field: String, isLessThanOrEqualTo value: JSONValue) -> Query {
        filtered(field, .lessThanOrEqual, value)
    }

    /// Keeps documents whose `field` is greater than `value`.
    public func whereField(_ field: String, isGreaterThan value: JSONValue) -> Query {
        filtered(field, .greaterThan, value)
    }

    /// Keeps documents whose `field` is greater than or equal to `value`.
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: JSONValue) -> Query {
        filtered(field, .greaterThanOrEqual, value)
    }

    /// Keeps documents where at least one of `fields` is a string containing `text`, ignoring case
    /// (explore's user search). Engines may skip stored documents that cannot contain the text
    /// without decoding them.
    public func whereAny(_ fields: [String], containsText text: String) -> Query {
        var copy = self
        copy.textSearch = TextSearch(fields: fields, text: text.lowercased())
        return copy
    }

    /// Sorts by `field`; ties fall back to later orders and finally to the document path.
    /// Documents without `field` are left out, as in Firestore.
    public func order(by field: String, descending: Bool = false) -> Query {
        var copy = self
        copy.orders.append(Order(field: field, descending: descending))
        return copy
    }

    /// Returns each document with only the top-level fields named in `fields` (those it has), as
    /// Firestore's `select` does; `select([])` returns their paths alone. Filters, orders and
    /// cursors still see whole documents. An engine may leave the rest of each stored document
    /// undecoded: a list of IDs costs a fraction of the documents' parse.
    public func select(_ fields: [String]) -> Query {
        var copy = self
        copy.selectedFields = fields
        return copy
    }

    /// Returns at most `count` documents.
    public func limit(to count: Int) -> Query {
        var copy = self
        copy.limit = max(0, count)
        return copy
    }

    /// Starts after `snapshot` in this query's order: the next page after it.
    public func start(after snapshot: DocumentSnapshot) -> Query {
        var copy = self
        copy.startAfter = orders.map { snapshot.value(of: $0.field) } + [.string(snapshot.path.description)]
        return copy
    }

    /// Runs the query.
    public func getDocuments() async throws -> [DocumentSnapshot] {
        try await store.runQuery(self)
    }

    /// Counts what the query selects.
    public func count() async throws -> Int {
        try await store.count(self)
    }

    private func filtered(_ field: String, _ op: Filter.Operator, _ value: JSONValue) -> Query {
        var copy = self
        copy.filters.append(Filter(field: field, op: op, value: value))
        return copy
    }
}

extension DocumentSnapshot {
    /// The value of a (dotted) field, `.null` when missing. For ``Query/documentID`` it is the full
    /// path, which orders documents as Firestore does, collection groups included.
    func value(of field: String) -> JSONValue {
        if field == Query.documentID { return .string(path.description) }
        return lookup(field) ?? .null
    }

    package func lookup(_ field: String) -> JSONValue? {
        // By bytes: String's contains(_:) goes through Foundation's NSString search, which a sort's
        // comparisons made the hottest code of an archive import.
        guard field.utf8.contains(UInt8(ascii: ".")) else { return data[field] }
        var current: JSONValue = .object(data)
        for part in field.split(separator: ".") {
            guard case .object(let fields) = current, let next = fields[String(part)] else { return nil }
            current = next
        }
        return current
    }
}

extension Query {
    /// Whether `snapshot` passes every filter.
    package func matches(_ snapshot: DocumentSnapshot) -> Bool {
        Self.matches(filters, snapshot) && (textSearch?.matches(snapshot) ?? true)
    }

    /// Whether `snapshot` passes every one of `filters`.
    package static func matches(_ filters: [Filter], _ snapshot: DocumentSnapshot) -> Bool {
        filters.allSatisfy { filter in
            let value: JSONValue? =
                filter.field == Query.documentID ? .string(snapshot.documentID) : snapshot.lookup(filter.field)
            guard let value else { return false }
            switch filter.op {
            case .equal: return JSONValue.queryEquals(value, filter.value)
            case .notEqual: return !JSONValue.queryEquals(value, filter.value)
            case .in:
                guard case .array(let options) = filter.value else { return false }
                return options.contains { JSONValue.queryEquals(value, $0) }
            case .lessThan: return JSONValue.compare(value, filter.value) == .orderedAscending
            case .lessThanOrEqual: return JSONValue.compare(value, filter.value) != .orderedDescending
            case .greaterThan: return JSONValue.compare(value, filter.value) == .orderedDescending
            case .greaterThanOrEqual: return JSONValue.compare(value, filter.value) != .orderedAscending
            }
        }
    }

    /// The sort keys with the document ID last, in the direction of the last explicit order.
    package var effectiveOrders: [Order] {
        if orders.last?.field == Query.documentID { return orders }
        return orders + [Order(field: Query.documentID, descending: orders.last?.descending ?? false)]
    }

    /// Compares two documents in the query's order.
    package func compare(_ lhs: DocumentSnapshot, _ rhs: DocumentSnapshot) -> ComparisonResult {
        compare(lhs, rhs, in: effectiveOrders)
    }

    private func compare(_ lhs: DocumentSnapshot, _ rhs: DocumentSnapshot, in orders: [Order]) -> ComparisonResult {
        for order in orders {
            var result =
                order.field == Query.documentID
                ? ByteOrder.comparePaths(lhs.path, rhs.path)
                : JSONValue.compare(lhs.lookup(order.field) ?? .null, rhs.lookup(order.field) ?? .null)
            if order.descending { result = ComparisonResult(rawValue: -result.rawValue)! }
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// Whether `snapshot` has every field the query orders by: as in Firestore, a document
    /// without one is left out of the results (and out of every index on it).
    package func hasOrderFields(_ snapshot: DocumentSnapshot) -> Bool {
        orders.allSatisfy { $0.field == Query.documentID || snapshot.lookup($0.field) != nil }
    }

    /// Whether `snapshot` comes after the cursor (always true without one).
    package func isAfterCursor(_ snapshot: DocumentSnapshot) -> Bool {
        guard let cursor = startAfter else { return true }
        for (order, cursorValue) in zip(effectiveOrders, cursor) {
            var result = JSONValue.compare(snapshot.value(of: order.field), cursorValue)
            if order.descending { result = ComparisonResult(rawValue: -result.rawValue)! }
            if result != .orderedSame { return result == .orderedDescending }
        }
        return false
    }

    /// The top-level fields an engine must decode of each candidate document: the selected ones
    /// and those its filters, orders and text search read; `nil` for all of them.
    package var decodedFields: Set<String>? {
        guard let selectedFields else { return nil }
        var names = Set(selectedFields)
        for field in filters.map(\.field) + orders.map(\.field) + (textSearch?.fields ?? [])
        where field != Query.documentID {
            names.insert(String(field.prefix { $0 != "." }))
        }
        return names
    }

    /// `snapshot` as the query returns it: with only the selected fields, when it selects some.
    package func projected(_ snapshot: DocumentSnapshot) -> DocumentSnapshot {
        guard let selectedFields else { return snapshot }
        var data = JSONObject(minimumCapacity: selectedFields.count)
        for field in selectedFields {
            if let value = snapshot.data[field] { data[field] = value }
        }
        return DocumentSnapshot(path: snapshot.path, data: data)
    }

    /// The same query returning whole documents (its ``select(_:)`` undone): what a merge of
    /// several queries compares, before it projects.
    package var wholeDocuments: Query {
        var copy = self
        copy.selectedFields = nil
        return copy
    }

    /// How a row of query `lhsQuery` compares with one of query `rhsQuery` in a merge of `queries`
    /// (``DocumentStore/runMergedQuery(_:limit:)``): by the fields the first query orders by (the
    /// document ID too where it names it), then the earlier query's row first, then in that
    /// query's own order.
    package static func mergeOrder(
        _ lhs: DocumentSnapshot, _ lhsQuery: Int, _ rhs: DocumentSnapshot, _ rhsQuery: Int, of queries: [Query]
    ) -> ComparisonResult {
        let order = queries[0].compare(lhs, rhs, in: queries[0].orders)
        if order != .orderedSame { return order }
        if lhsQuery != rhsQuery { return lhsQuery < rhsQuery ? .orderedAscending : .orderedDescending }
        return queries[lhsQuery].compare(lhs, rhs)
    }

    /// Rows of several queries, each query's in its own order, merged as
    /// ``mergeOrder(_:_:_:_:of:)`` orders them, the first `limit`, each projected as its query selects.
    package static func merged(
        _ rows: [(query: Int, snapshot: DocumentSnapshot)], of queries: [Query], limit: Int
    ) -> [(query: Int, snapshot: DocumentSnapshot)] {
        let sorted = rows.sorted {
            mergeOrder($0.snapshot, $0.query, $1.snapshot, $1.query, of: queries) == .orderedAscending
        }
        return sorted.prefix(max(0, limit)).map { ($0.query, queries[$0.query].projected($0.snapshot)) }
    }

    /// Applies filters, cursor, order and limit to candidate documents.
    ///
    /// An array, not `some Sequence`: the engines call it from their own modules, where a generic
    /// function of this one runs unspecialised, looking its iterator's type up at run time by
    /// demangling, in the first query of every command.
    package func select(from candidates: [DocumentSnapshot]) -> [DocumentSnapshot] {
        var selected = candidates.filter { matches($0) && hasOrderFields($0) && isAfterCursor($0) }
        let orders = effectiveOrders
        selected.sort { compare($0, $1, in: orders) == .orderedAscending }
        if let limit, selected.count > limit { selected.removeSubrange(limit...) }
        return selected
    }
}
