import FoundationEssentials
import TweetStore
import TweetSystem

/// How the store's documents and ordering rules look in SQL.
///
/// A field's value sorts by three keys, so that SQL orders as ``Query`` does on every engine:
/// `tweetcli_rank` (null < boolean < number < string < array < object), `tweetcli_num` (booleans and
/// numbers, exactly), then `tweetcli_str` in byte order (`COLLATE "C"`). Document IDs and
/// collection paths are `COLLATE "C"` columns, so they sort by bytes too.
enum PostgresSQL {
    static let documents = "tweetcli_documents"
    /// The schema this build creates and understands.
    static let schemaVersion = 1

    /// Version 1: the documents table, the clock row that orders commits, the key functions.
    /// Photos and avatars by their SHA-256 (issue 44), in a table of their own; made by the first
    /// blob written, so that databases set up by earlier builds get it too.
    /// `kept` is when the blob was last put, so that a collection of unnamed ones leaves those a
    /// post is putting (a table made before it gets it, as now).
    static let createBlobTable =
        "CREATE TABLE IF NOT EXISTS tweetcli_blobs (address text COLLATE \"C\" PRIMARY KEY, data bytea NOT NULL, "
        + "kept timestamptz NOT NULL DEFAULT now())"
    static let addBlobKeptColumn =
        "ALTER TABLE tweetcli_blobs ADD COLUMN IF NOT EXISTS kept timestamptz NOT NULL DEFAULT now()"

    /// Blobs `doctor --repair` found damaged, kept for a person to look at.
    static let createBlobAsideTable =
        "CREATE TABLE IF NOT EXISTS tweetcli_blobs_aside (address text NOT NULL, data bytea NOT NULL, "
        + "set_aside timestamptz NOT NULL DEFAULT now())"

    static let createSchema = [
        "CREATE TABLE IF NOT EXISTS tweetcli_schema (version integer NOT NULL)",
        "CREATE TABLE IF NOT EXISTS tweetcli_clock (id integer PRIMARY KEY, last_ms bigint NOT NULL)",
        "INSERT INTO tweetcli_clock VALUES (1, 0) ON CONFLICT (id) DO NOTHING",
        """
        CREATE TABLE IF NOT EXISTS tweetcli_documents (
          collection text COLLATE "C" NOT NULL,
          id text COLLATE "C" NOT NULL,
          group_id text COLLATE "C" NOT NULL,
          data jsonb NOT NULL,
          PRIMARY KEY (collection, id))
        """,
    ]

    /// The three key functions, for a server whose version is `serverVersion`
    /// (`server_version_num`). From PostgreSQL 14 their bodies are SQL-standard (`RETURN`), which
    /// the server keeps parsed: every index expression and query that calls them has them inlined
    /// when a connection first plans against the documents table, and a body kept as text is
    /// parsed again for each call. Both forms compute the same values, so either one may replace
    /// the other under existing indexes.
    static func keyFunctions(serverVersion: Int) -> [String] {
        let bodies = [
            (
                "tweetcli_rank", "integer",
                "CASE jsonb_typeof(x) WHEN 'null' THEN 0 WHEN 'boolean' THEN 1 WHEN 'number' THEN 2 "
                    + "WHEN 'string' THEN 3 WHEN 'array' THEN 4 ELSE 5 END"
            ),
            (
                "tweetcli_num", "numeric",
                "CASE jsonb_typeof(x) WHEN 'number' THEN x::numeric "
                    + "WHEN 'boolean' THEN CASE WHEN x::boolean THEN 1 ELSE 0 END ELSE 0 END"
            ),
            (
                "tweetcli_str", "text",
                "CASE jsonb_typeof(x) WHEN 'string' THEN x #>> '{}' WHEN 'array' THEN x::text ELSE '' END"
            ),
        ]
        return bodies.map { name, type, body in
            "CREATE OR REPLACE FUNCTION \(name)(x jsonb) RETURNS \(type) LANGUAGE sql IMMUTABLE PARALLEL SAFE "
                + (serverVersion >= 140_000 ? "RETURN \(body)" : "AS $$ SELECT \(body) $$")
        }
    }

    /// The server's version number, as ``keyFunctions(serverVersion:)`` takes it.
    static let serverVersionRead = "SELECT current_setting('server_version_num')::integer"

    /// A field as a JSONB expression: `data->'a'->'b'` for `a.b`. Field names come from the
    /// services' code, not from users; anything but letters, digits and `_` is refused rather
    /// than written into SQL.
    static func field(_ name: String) throws -> String {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty,
            parts.allSatisfy({ part in
                !part.isEmpty
                    && part.utf8.allSatisfy {
                        $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
                    }
            })
        else {
            throw StoreError.io(path: "the PostgreSQL store", reason: "the field name \(name) cannot be queried")
        }
        return "data" + parts.map { "->'\($0)'" }.joined()
    }

    /// The three sort keys of a JSONB expression.
    static func keys(_ expression: String) -> [String] {
        ["tweetcli_rank(\(expression))", "tweetcli_num(\(expression))", "(tweetcli_str(\(expression)) COLLATE \"C\")"]
    }

    /// The sort keys of a value, as bound parameters' text: what ``keys(_:)`` computes for it.
    static func keyValues(_ value: JSONValue) -> [String] {
        switch value {
        case .null: return ["0", "0", ""]
        case .bool(let flag): return ["1", flag ? "1" : "0", ""]
        case .integer(let number): return ["2", String(number), ""]
        case .double(let number): return ["2", "\(number)", ""]
        case .string(let text): return ["3", "0", text]
        case .array: return ["4", "0", String(decoding: value.serialized(), as: UTF8.self)]
        case .object: return ["5", "0", ""]
        }
    }

    /// The index of `definition`, partial to the collections it is for (`WHERE group_id = …`):
    /// for one collection its path, its fields' keys, then the ID; for a collection group the
    /// keys, then the path.
    static func createIndex(_ definition: IndexDefinition) throws -> String {
        var columns: [String] = []
        for field in definition.fields {
            columns += keys(try self.field(field.hasSuffix("?") ? String(field.dropLast()) : field))
        }
        // The collection's ID comes from the services' code; checked, then written as a literal
        // (an index's predicate cannot be a parameter).
        let group = definition.collectionID
        guard !group.isEmpty,
            group.utf8.allSatisfy({
                $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
            })
        else { throw StoreError.io(path: "the PostgreSQL store", reason: "the collection \(group) cannot be indexed") }
        let ordered =
            definition.scope == .collection
            ? ["collection"] + columns + ["id"] : columns + ["collection", "id"]
        return "CREATE INDEX IF NOT EXISTS \(indexName(definition)) ON tweetcli_documents "
            + "(\(ordered.joined(separator: ", "))) WHERE group_id = '\(group)'"
    }

    /// The table that holds the documents of `collections`: the documents, or in a database set
    /// up for many people (`split`) the public or the private half when they are all of one, so
    /// that the planner meets one table and its own indexes; the union of both when mixed.
    static func table(forGroupOf collections: [String], split: Bool) -> String {
        guard split else { return documents }
        return collections.contains(where: isPrivate) ? privateUnion : "tweetcli_public"
    }

    /// Whether `collection` is one a database set up for many people keeps private.
    static func isPrivate(_ collection: String) -> Bool {
        PostgresAccountsSQL.privateGroups.contains(PostgresDocumentStore.groupID(of: collection))
    }

    /// Every document an account may read, in a database set up for many people: the public
    /// half and its own private documents (which it reaches only through a function).
    static let privateUnion =
        "(SELECT collection, id, group_id, data FROM tweetcli_public UNION ALL "
        + "SELECT collection, id, group_id, data FROM tweetcli_private_all())"

    /// A stable name for `definition`'s index: a hash of it, letters and digits only.
    static func indexName(_ definition: IndexDefinition) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in definition.name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "tweetcli_index_\(String(hash, radix: 16))"
    }
}

/// One statement's SQL and the parameters it binds.
struct BoundStatement {
    var parameters: [String?] = []

    /// Binds `value`, returning its placeholder.
    mutating func bind(_ value: String?) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }
}

/// A ``Query`` in SQL: its scope, filters, cursor, order and limit, so that an index serves it;
/// the rows are then selected once more by the query itself, so that what comes back is exactly
/// what the local engine returns.
struct PostgresQuery {
    let query: Query
    var statement = BoundStatement()
    private(set) var sql = ""

    /// The table the rows come from: the documents, or in a database set up for many people
    /// (`split`) the public or the private half, so that the planner serves the query's order from
    /// the public half's indexes, as from the one table before.
    let table: String

    init(_ query: Query, columns: String = PostgresQuery.allColumns, split: Bool = false) throws {
        self.query = query
        var conditions: [String] = []
        let collection: String?
        let group: String
        switch query.scope {
        case .collection(let path):
            collection = path
            // The collection's ID too, which the partial indexes are for.
            group = path.split(separator: "/").last.map(String.init) ?? path
            conditions.append("collection = \(statement.bind(path)) AND group_id = \(statement.bind(group))")
        case .collectionGroup(let id):
            collection = nil
            group = id
            conditions.append("group_id = \(statement.bind(id))")
        }
        if !split {
            table = PostgresSQL.documents
        } else if PostgresAccountsSQL.privateGroups.contains(group) {
            // Only through the function, which returns what the account may read of the group.
            table = "tweetcli_private_in(\(statement.bind(collection))::text, \(statement.bind(group))::text)"
        } else {
            table = "tweetcli_public"
        }
        // A page over "field in [strings]" (the following feed: tweets whose author is one of those
        // followed) is best read as each value's own first page, then merged: one index range each.
        var perValue: String?
        var valueCount = 0
        for filter in query.filters {
            if perValue == nil, query.limit != nil, query.textSearch == nil, columns == Self.allColumns,
                filter.op == .in, filter.field != Query.documentID, case .array(let options) = filter.value,
                !options.isEmpty, options.allSatisfy({ $0.stringValue != nil })
            {
                let keys = PostgresSQL.keys(try PostgresSQL.field(filter.field))
                // Each value once: a repeated one would give its documents twice.
                let values = Set(options.compactMap(\.stringValue)).sorted()
                valueCount = values.count
                perValue = statement.bind(Self.arrayLiteral(values))
                conditions.append("(\(keys[0]) = 3 AND \(keys[1]) = 0 AND \(keys[2]) = value.value)")
                continue
            }
            conditions.append(try condition(filter))
        }
        for order in query.orders where order.field != Query.documentID {
            conditions.append("(\(try PostgresSQL.field(order.field))) IS NOT NULL")
        }
        // A text search is left to the query's own check in Swift (case folding and Unicode
        // equivalence differ between Swift and the server's locale), so its rows come without a
        // LIMIT: SQL must never cut off a row that Swift would keep.
        if let search = query.textSearch {
            for field in search.fields { _ = try PostgresSQL.field(field) }
            if search.fields.isEmpty { conditions.append("FALSE") }
            if let prefilter = try Self.prefilter(search, statement: &statement) { conditions.append(prefilter) }
        }
        // The sort keys, each with its direction; the document's path last.
        var keys: [(String, Bool)] = []
        for order in query.effectiveOrders {
            if order.field == Query.documentID {
                keys.append((collection == nil ? "(collection || '/' || id) COLLATE \"C\"" : "id", order.descending))
            } else {
                for key in PostgresSQL.keys(try PostgresSQL.field(order.field)) { keys.append((key, order.descending)) }
            }
        }
        if let cursor = query.startAfter {
            var values: [String] = []
            for (order, value) in zip(query.effectiveOrders, cursor) {
                if order.field == Query.documentID {
                    let path = value.stringValue ?? ""
                    if let collection, path.hasPrefix(collection + "/") {
                        values.append(statement.bind(String(path.dropFirst(collection.count + 1))))
                    } else if collection != nil {
                        // A cursor from another collection: compare whole paths.
                        keys[keys.count - 1].0 = "(collection || '/' || id) COLLATE \"C\""
                        values.append(statement.bind(path))
                    } else {
                        values.append(statement.bind(path))
                    }
                } else {
                    values += PostgresSQL.keyValues(value).map { statement.bind($0) }
                }
            }
            conditions.append(Self.after(keys, values))
        }
        let order = keys.map { "\($0.0)\($0.1 ? " DESC" : "")" }.joined(separator: ", ")
        let filter = conditions.joined(separator: " AND ")
        if let perValue, let limit = query.limit {
            sql = Self.mergedPages(
                values: perValue, valueCount: valueCount, limit: limit, filter: filter, keys: keys, table: table,
                statement: &statement)
            return
        }
        sql = "SELECT \(columns) FROM \(table) WHERE \(filter) ORDER BY \(order)"
        if let limit = query.limit, query.textSearch == nil { sql += " LIMIT \(statement.bind(String(limit)))" }
    }

    /// What the server can rule out of a text search of ASCII text without deciding it: a field
    /// that is all ASCII and does not contain the text in any case (`ILIKE`, which folds only
    /// ASCII letters under the C collation, as lowercasing ASCII does in Swift). A field holding
    /// anything else is left to Swift, whose case folding and Unicode equivalence the server's
    /// do not match (`K`, the Kelvin sign, lowercases to `k`). So the rows are always a superset of
    /// Swift's answer, and a search among many users reads the few that may match, not all.
    /// `nil` (no condition) for text that is not ASCII.
    private static func prefilter(_ search: Query.TextSearch, statement: inout BoundStatement) throws -> String? {
        // U+0000 cannot be bound: Swift alone decides such text, as before.
        guard !search.fields.isEmpty, search.text.utf8.allSatisfy({ $0 > 0 && $0 < 0x80 }) else { return nil }
        var escaped = ""
        for character in search.text.unicodeScalars {
            if character == "\\" || character == "%" || character == "_" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(character)
        }
        let pattern = statement.bind("%" + escaped + "%")
        let alternatives = try search.fields.map { field in
            let value = try PostgresSQL.field(field)
            let text = "(\(value) #>> '{}')"
            return "(jsonb_typeof(\(value)) = 'string' AND (\(text) ILIKE \(pattern) "
                + "OR octet_length(\(text)) <> char_length(\(text))))"
        }
        return "(" + alternatives.joined(separator: " OR ") + ")"
    }

    /// A page over "field in [values]": each value's own first page (LATERAL, so each is one index
    /// range) as keys only, merged by the same keys; only the merged page's documents are then read
    /// out as text (turning every value's page into text first cost most of the query).
    ///
    /// Each value's first row comes first, and only the values whose first rows are among the
    /// `limit` first of those read a page: a row of any other value comes after its own first row,
    /// which comes after `limit` others. The following feed of 100 people reads about 100 + 20 × 20
    /// rows instead of 100 × 20. (With fewer values than the page holds the heads cost one row each
    /// and choose them all; one form for every list lets a statement asked ahead with a list the
    /// server fills in be the one later asked with the list, whatever its length.)
    private static func mergedPages(
        values: String, valueCount: Int, limit: Int, filter: String, keys: [(String, Bool)], table: String,
        statement: inout BoundStatement
    ) -> String {
        let count = statement.bind(String(limit))
        let named = keys.enumerated().map { "\($1.0) AS k\($0)" }.joined(separator: ", ")
        let order = keys.map { "\($0.0)\($0.1 ? " DESC" : "")" }.joined(separator: ", ")
        func merged(_ table: String) -> String {
            keys.indices.map { "\(table).k\($0)\(keys[$0].1 ? " DESC" : "")" }.joined(separator: ", ")
        }
        func pages(of values: String, columns: String, limit: String) -> String {
            "\(values) CROSS JOIN LATERAL (SELECT \(columns) FROM \(table) WHERE \(filter) "
                + "ORDER BY \(order) LIMIT \(limit)) AS page"
        }
        var chosen = "unnest(\(values)::text[]) AS value(value)"
        if valueCount > 0 {
            let heads =
                "SELECT value.value, page.* FROM "
                + pages(of: chosen, columns: named, limit: "1") + " ORDER BY \(merged("page")) LIMIT \(count)"
            chosen = "(SELECT head.value FROM (\(heads)) AS head) AS value"
        }
        let page =
            "SELECT page.* FROM " + pages(of: chosen, columns: "collection, id, \(named)", limit: count)
            + " ORDER BY \(merged("page")) LIMIT \(count)"
        return "SELECT d.collection, d.id, d.data::text FROM (\(page)) AS top JOIN \(table) d "
            + "ON d.collection = top.collection AND d.id = top.id ORDER BY \(merged("top"))"
    }

    /// The columns a query's rows come back with.
    static let allColumns = "collection, id, data::text"

    /// A PostgreSQL array literal of `strings`: each element quoted, `"` and `\\` escaped.
    static func arrayLiteral(_ strings: [String]) -> String {
        "{"
            + strings.map { text in
                // IDs and paths hold neither character: most elements are copied as they are.
                let plain = !text.utf8.contains { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }
                return "\""
                    + (plain ? text : text.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\""))
                    + "\""
            }
            .joined(separator: ",") + "}"
    }

    /// Rows strictly after `values` in the order of `keys`: `k1 > v1 OR (k1 = v1 AND (k2 > v2 OR …))`.
    private static func after(_ keys: [(String, Bool)], _ values: [String]) -> String {
        var clause = "FALSE"
        for ((key, descending), value) in zip(keys, values).reversed() {
            let cast = Self.cast(key, value)
            clause = "(\(key) \(descending ? "<" : ">") \(cast) OR (\(key) = \(cast) AND \(clause)))"
        }
        return clause
    }

    /// A bound text parameter cast to the type of the key it is compared with.
    private static func cast(_ key: String, _ placeholder: String) -> String {
        if key.hasPrefix("tweetcli_rank(") { return "\(placeholder)::integer" }
        if key.hasPrefix("tweetcli_num(") { return "\(placeholder)::numeric" }
        return "\(placeholder)::text COLLATE \"C\""
    }

    private mutating func condition(_ filter: Query.Filter) throws -> String {
        if filter.field == Query.documentID {
            // Filters on the ID compare it alone, not the path.
            func id(_ value: JSONValue) -> String? { value.stringValue.map { statement.bind($0) } }
            switch filter.op {
            case .equal: return id(filter.value).map { "id = \($0)::text COLLATE \"C\"" } ?? "FALSE"
            case .notEqual: return id(filter.value).map { "id <> \($0)::text COLLATE \"C\"" } ?? "TRUE"
            case .in:
                let options = filter.value.arrayValue?.compactMap(id) ?? []
                return options.isEmpty
                    ? "FALSE" : "id IN (\(options.map { "\($0)::text COLLATE \"C\"" }.joined(separator: ", ")))"
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
                guard let placeholder = id(filter.value) else {
                    // An ID is a string: it sorts after null, booleans and numbers, before arrays and objects.
                    let rank = Int(PostgresSQL.keyValues(filter.value)[0]) ?? 0
                    let below = filter.op == .lessThan || filter.op == .lessThanOrEqual
                    return (below ? rank > 3 : rank < 3) ? "TRUE" : "FALSE"
                }
                let symbol: String
                switch filter.op {
                case .lessThan: symbol = "<"
                case .lessThanOrEqual: symbol = "<="
                case .greaterThan: symbol = ">"
                default: symbol = ">="
                }
                return "id \(symbol) \(placeholder)::text COLLATE \"C\""
            }
        }
        let expression = try PostgresSQL.field(filter.field)
        let keys = PostgresSQL.keys(expression)
        func equal(_ value: JSONValue) -> String {
            switch value {
            case .array, .object:
                return "(\(expression)) = \(statement.bind(String(decoding: value.serialized(), as: UTF8.self)))::jsonb"
            default:
                let values = PostgresSQL.keyValues(value)
                return "("
                    + zip(keys, values).map { "\($0) = \(Self.cast($0, statement.bind($1)))" }.joined(
                        separator: " AND ") + ")"
            }
        }
        switch filter.op {
        case .equal:
            return equal(filter.value)
        case .notEqual:
            return "((\(expression)) IS NOT NULL AND NOT \(equal(filter.value)))"
        case .in:
            guard case .array(let options) = filter.value, !options.isEmpty else { return "FALSE" }
            let strings = options.compactMap(\.stringValue)
            if strings.count == options.count {
                // One array parameter (`= ANY`), which an index on the field serves, rather than an
                // OR per value, which made the following feed scan every row.
                let array = statement.bind(Self.arrayLiteral(strings))
                return "(\(keys[0]) = 3 AND \(keys[1]) = 0 AND \(keys[2]) = ANY(\(array)::text[]))"
            }
            return "(" + options.map(equal).joined(separator: " OR ") + ")"
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            let values = PostgresSQL.keyValues(filter.value).map { statement.bind($0) }
            let descending = filter.op == .lessThan || filter.op == .lessThanOrEqual
            let strictly = Self.after(keys.map { ($0, descending) }, values)
            let inclusive = filter.op == .lessThanOrEqual || filter.op == .greaterThanOrEqual
            let same = "(" + zip(keys, values).map { "\($0) = \(Self.cast($0, $1))" }.joined(separator: " AND ") + ")"
            return "((\(expression)) IS NOT NULL AND (\(strictly)\(inclusive ? " OR \(same)" : "")))"
        }
    }
}
