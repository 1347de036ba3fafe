import FoundationEssentials
import Synchronization
import TweetStore

/// The PostgreSQL engine: every document a JSONB row of `tweetcli_documents`, keyed by its
/// collection path and ID, with an expression index for each ``IndexDefinition`` the services
/// declare; queries become SQL an index serves (see ``PostgresQuery``).
///
/// A transaction runs at READ COMMITTED holding the row lock of `tweetcli_clock`, which every write
/// takes first: writers run one at a time, as on the local engine, so each reads what the one
/// before committed, and the clock row gives each commit a time after the last one. A body that
/// meets a serialization failure or deadlock anyway is run again from the start.
public actor PostgresDocumentStore: DocumentStore {
    /// Where the store is, and the device it connects as once one signs in (see ``use(_:)``).
    private nonisolated let current: Mutex<PostgresLocation>
    public nonisolated var location: PostgresLocation { current.withLock { $0 } }
    let indexes: [IndexDefinition]
    private let clock: @Sendable () -> Date
    private let createIfMissing: Bool
    private var connection: PostgresConnection?
    /// Whether the schema is there (checked when the connection opens, made by the first write).
    private var hasSchema = false
    private var gate = TransactionGate()
    /// Whether the database keeps the accounts (see ``AccountServer``), once asked.
    var keepsAccountsFound: Bool?
    /// Whether writes go through the rules' `tweetcli_apply` (a database set up for many people)
    /// rather than straight to the table.
    private var writesThroughRules = false
    /// How many writes this store has begun (``writesBegun``).
    private nonisolated let writes = Mutex(0)
    /// Queries and documents a service said it would read next (``prefetch(_:)``,
    /// ``prefetch(documentsAt:)``), sent with the next read.
    private var pendingPrefetches: [Prefetch] = []
    /// What prefetched queries' statements answered, each taken once and only within
    /// ``prefetchedMoment``; a write forgets them all.
    private var prefetched: [PrefetchKey: (rows: [[String?]], at: ContinuousClock.Instant)] = [:]

    /// What a service said it would read next.
    private enum Prefetch {
        case query(Query)
        case documents([DocumentPath])
        case named(Query, collection: String, field: String?)
        /// Reads made with ``lookupStandIn`` for the ID of the lookup's first document.
        case dependent(lookup: Query, [Prefetch])
        /// The documents of `collection` the last `count` strings of array `field` across the
        /// rows of `query` name.
        case namedByLast(Int, field: String, query: Query, collection: String)
        /// Reads made with ``lookupStandIn`` in a list, for the strings of the array `field` of
        /// the document at `path`.
        case listDependent(path: DocumentPath, field: String, [Prefetch])
    }

    /// What ``prefetch(dependingOnFirstIDOf:_:)`` gives for the ID it does not know yet: no ID or
    /// path any engine makes holds `~`.
    static let lookupStandIn = "~tweetcli-lookup~"

    /// What a statement sent ahead answers, when that is not the statement as sent.
    private enum SentAhead {
        /// Sent with ``lookupStandIn`` replaced by a lookup on the server: the statement as made,
        /// and the lookup's, whose answer says what it is an answer to.
        case dependent(made: PrefetchKey, lookup: PrefetchKey)
        /// Sent for ``prefetch(documentsIn:namedByLast:of:across:)``: the collection named, whose
        /// paths its first row lists.
        case arrayNamed(collection: String)
        /// Sent for ``prefetch(dependingOnList:at:_:)``: the statement as made, and which of its
        /// parameters its first row gives as the server filled them in.
        case listDependent(made: PrefetchKey, filled: [Int])
    }

    /// The statements sent ahead that answer something else than themselves, by what they are as sent.
    private var sentAhead: [PrefetchKey: SentAhead] = [:]

    /// A statement as sent: its SQL and parameters.
    private struct PrefetchKey: Hashable {
        let sql: String
        let parameters: [String?]
    }

    /// How long a prefetched answer stands for the store: one command's time, as the session
    /// check's documents do (``AuthService``). Tests that run beside many others make it longer.
    private var prefetchedMoment = Duration.seconds(2)

    /// Sets ``prefetchedMoment``.
    package func keepPrefetchedAnswers(for moment: Duration) {
        prefetchedMoment = moment
    }

    /// A store on the server at `location`; nothing connects until the first call.
    /// - Parameters:
    ///   - indexes: the indexes the queries need, made with the schema.
    ///   - createIfMissing: whether a write may create the schema in an empty database; without it,
    ///     writes to one fail with ``StoreError/noStore(path:)``. Reads of an empty database find nothing.
    public init(
        location: PostgresLocation, indexes: [IndexDefinition] = [], clock: @escaping @Sendable () -> Date = Date.init,
        createIfMissing: Bool = true
    ) {
        current = Mutex(location)
        self.indexes = indexes
        self.clock = clock
        self.createIfMissing = createIfMissing
    }

    /// A connection of its own that listens for the writes' notifications (see
    /// ``PostgresChangeWatch``).
    public nonisolated func watchChanges() throws -> any StoreChangeWatch {
        try PostgresChangeWatch(location: location)
    }

    /// Runs on the main actor's executor, as the local engine does: one thread per command.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { MainActor.sharedUnownedExecutor }

    private var name: String { location.displayName }

    /// Connects as `device` from now on: the connection open now (as someone else) is closed.
    public func use(_ device: DeviceLogin?) {
        current.withLock { $0.device = device }
        connection = nil
        // Another login may read other rows of the same statements.
        noteWrite()
    }

    /// The connection, opened (and the schema's version checked) on first use.
    func connected() throws -> PostgresConnection {
        // A connection left inside a transaction or a COPY (a failed rollback) is not reused.
        if let connection, connection.isIdle { return connection }
        connection = nil
        let opened = try PostgresConnection(location)
        try checkSchema(opened)
        opened.isSplit = writesThroughRules
        connection = opened
        return opened
    }

    /// The connection for a read, opened if need be. A new one's schema check goes in the same
    /// round trip as the first statement (see ``reading(orEmpty:_:)``).
    private func connectedForReading() throws -> PostgresConnection {
        if let connection, connection.isIdle { return connection }
        connection = nil
        let opened = try PostgresConnection(location)
        connection = opened
        opened.isSplit = writesThroughRules
        if !hasSchema { opened.prelude = Self.schemaRead }
        return opened
    }

    /// The schema's version, and whether the database was set up for many people.
    private static let schemaRead = "SELECT max(version), to_regclass('tweetcli_private') IS NULL FROM tweetcli_schema"

    /// Looks for the schema (until it is found: another process may make it at any time) and
    /// refuses one newer than this build.
    private func checkSchema(_ connection: PostgresConnection) throws {
        guard !hasSchema else { return }
        // With the version, whether the database was set up for many people: then every write,
        // the owner's too, goes through the rules' function (which trusts the owner's).
        let read = Self.schemaRead
        let row: [String?]?
        if connection.isIdle {
            // Outside a transaction a failed statement leaves nothing behind, so the usual case is
            // one statement, and a database without the table (an empty store) is this error.
            do {
                row = try connection.execute(read).first
            } catch PostgresError.statement(state: "42P01", _) {
                return
            }
        } else {
            // Inside one (making the schema), an error would abort it: ask first.
            let schema = try connection.execute("SELECT to_regclass('tweetcli_schema') IS NOT NULL")
            guard schema.first?.first == "t" else { return }
            row = try connection.execute(read).first
        }
        try takeSchema(row)
    }

    /// Takes what the schema's check read: its version (a newer one than this build's is refused)
    /// and whether the database was set up for many people.
    private func takeSchema(_ row: [String?]?) throws {
        let version = row?.first ?? nil
        writesThroughRules = row?.last == "f"
        if let version, let number = Int(version), number > PostgresSQL.schemaVersion {
            throw StoreError.unsupportedFormat(file: "the database \(name)", version: "schema \(number)")
        }
        hasSchema = version != nil
    }

    /// Creates the schema and the indexes in an empty database, once, whoever else tries at once.
    private func createSchema(_ connection: PostgresConnection) throws {
        try connection.begin()
        do {
            try connection.execute("SELECT pg_advisory_xact_lock(7310427731)")
            // Another process may have made it (or a newer build a newer one) while this one waited.
            hasSchema = false
            try checkSchema(connection)
            if hasSchema {
                try connection.execute("COMMIT")
                return
            }
            for statement in PostgresSQL.createSchema { try connection.execute(statement) }
            try Self.createKeyFunctions(on: connection)
            for index in indexes { try connection.execute(try PostgresSQL.createIndex(index)) }
            let present = try connection.execute("SELECT count(*) FROM tweetcli_schema").first?.first ?? nil
            if present == "0" {
                try connection.execute(
                    "INSERT INTO tweetcli_schema VALUES ($1::integer)", [String(PostgresSQL.schemaVersion)])
            }
            try connection.execute("COMMIT")
        } catch {
            // The error that failed the schema is the one to report; a connection whose rollback
            // fails is left in a transaction and never reused (`connected()` checks it is idle).
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        hasSchema = true
    }

    /// Makes (or remakes) the key functions in the form this server keeps best.
    static func createKeyFunctions(on connection: PostgresConnection) throws {
        let version = try connection.execute(PostgresSQL.serverVersionRead).first?.first ?? nil
        for statement in PostgresSQL.keyFunctions(serverVersion: version.flatMap { Int($0) } ?? 0) {
            try connection.execute(statement)
        }
    }

    func waitForTransactions() async throws {
        if gate.isCalledFromTheOpenTransaction { throw TransactionGate.directRead(name) }
        while gate.isOpen { await withCheckedContinuation { gate.wait($0) } }
    }

    /// Runs a read; an empty database reads as empty.
    private func reading<T>(orEmpty empty: T, _ body: (PostgresConnection) throws -> T) async throws -> T {
        try await waitForTransactions()
        let connection = try connectedForReading()
        guard connection.prelude != nil else {
            // A connection that found no schema before asks again: another process may have made it.
            if !hasSchema { try checkSchema(connection) }
            guard hasSchema else { return empty }
            attachPrefetches(to: connection)
            defer { keepPrefetched(from: connection) }
            return try body(connection)
        }
        // A new connection: the read goes with the schema's check, in one round trip, on the
        // guess that a device's login is to a database set up for many people (it always is) and
        // any other login is not. A wrong guess reads the same documents: the owner's reads
        // through the view of both halves, and the guest may read none either way.
        connection.isSplit = location.device != nil
        attachPrefetches(to: connection)
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try body(connection))
        } catch {
            outcome = .failure(error)
        }
        // Answers to a wrong guess of the split are kept under statements no one will ask.
        keepPrefetched(from: connection)
        switch connection.takePreludeOutcome() {
        case .success(let rows): try takeSchema(rows.first)
        case .failure(.statement(state: "42P01", _)): return empty
        case .failure(let error): throw error
        case nil where connection.prelude == nil:
            // Sent, but the round trip itself failed: the body's error says how.
            if case .failure(let error) = outcome { throw error }
        case nil:
            // Never sent (the body sent nothing, or only in a transaction of its own): asked now,
            // if the connection can still be asked; otherwise the body's error says why not.
            connection.prelude = nil
            if case .failure(let error) = outcome, !connection.isIdle { throw error }
            try checkSchema(connection)
        }
        connection.isSplit = writesThroughRules
        guard hasSchema else { return empty }
        return try outcome.get()
    }

    // MARK: Reads

    public func exists() async throws -> Bool {
        try await waitForTransactions()
        try checkSchema(try connected())
        return hasSchema
    }

    public func getDocument(_ path: DocumentPath) async throws -> DocumentSnapshot? {
        try await reading(orEmpty: nil) { connection in
            if let rows = takePrefetched(
                Self.documentsStatement(at: [path], split: connection.isSplit), from: connection)
            {
                return try Self.documents(from: rows, at: [path]).first
            }
            return try Self.document(at: path, on: connection)
        }
    }

    public func getDocuments(_ paths: [DocumentPath]) async throws -> [DocumentSnapshot] {
        try await reading(orEmpty: []) { connection in
            guard !paths.isEmpty else { return [] }
            let statement = Self.documentsStatement(at: paths, split: connection.isSplit)
            if let rows = takePrefetched(statement, from: connection) {
                return try Self.documents(from: rows, at: paths)
            }
            return try Self.documents(from: try connection.execute(statement.sql, statement.parameters), at: paths)
        }
    }

    public func runQuery(_ query: Query) async throws -> [DocumentSnapshot] {
        try await reading(orEmpty: []) { connection in
            try Self.run(query, on: connection) { takePrefetched($0, from: connection) }.map(query.projected)
        }
    }

    /// Sends `query` with the next read, in its round trip, and keeps its rows for a moment
    /// (``prefetchedMoment``) for the ``runQuery(_:)`` that asks for them; a write before forgets
    /// them. A text search is decided in Swift (see ``PostgresQuery``) and is not sent ahead.
    public func prefetch(_ query: Query) async {
        guard query.textSearch == nil else { return }
        pendingPrefetches.append(.query(query))
    }

    /// The documents of `query` and, in the same statement, those of `collection` they name.
    public func runQuery(_ query: Query, withDocumentsIn collection: String, namedBy field: String?) async throws -> (
        documents: [DocumentSnapshot], named: [DocumentSnapshot]
    ) {
        try await reading(orEmpty: ([], [])) { connection in
            let statement = try Self.namedStatement(query, in: collection, by: field, split: connection.isSplit)
            let rows =
                try takePrefetched(statement, from: connection)
                ?? connection.execute(statement.sql, statement.parameters)
            var (found, named): ([DocumentSnapshot], [DocumentSnapshot]) = ([], [])
            for row in rows {
                guard let part = row.first else { continue }
                let snapshot = try Self.snapshot(Array(row.dropFirst()))
                if part == "0" { found.append(snapshot) } else { named.append(snapshot) }
            }
            // The rows are the query's already; selecting them again keeps the one set of rules exact.
            let selected = query.select(from: found)
            let kept = Set(
                selected.compactMap { document in
                    field.map { document.data[$0]?.stringValue } ?? document.documentID
                })
            var seen: Set<String> = []
            return (
                selected.map(query.projected),
                named.filter {
                    $0.path.collection == collection && kept.contains($0.documentID)
                        && seen.insert($0.documentID).inserted
                }
            )
        }
    }

    /// ``prefetch(_:)`` for ``runQuery(_:withDocumentsIn:namedBy:)``.
    public func prefetch(_ query: Query, withDocumentsIn collection: String, namedBy field: String?) async {
        guard query.textSearch == nil else { return }
        pendingPrefetches.append(.named(query, collection: collection, field: field))
    }

    /// `query`'s rows (`0` first) and the rows of `collection` they name (`1` first), by their IDs
    /// or by the string in their `field`, in one statement: the query's, used twice, so the server
    /// reads it once.
    private static func namedStatement(_ query: Query, in collection: String, by field: String?, split: Bool) throws
        -> (sql: String, parameters: [String?])
    {
        // A field of the rows themselves, as Swift reads it back: not a path into them.
        if let field, field.contains(".") {
            throw StoreError.io(path: "the PostgreSQL store", reason: "documents cannot be named by \(field)")
        }
        var page = try PostgresQuery(query, split: split)
        let named = page.statement.bind(collection)
        // The field as the page's text holds it (checked as every queried field is).
        let key =
            try field.map { "((page.data::jsonb)\(try PostgresSQL.field($0).dropFirst(4)) #>> '{}')" } ?? "page.id"

        let table = PostgresSQL.table(forGroupOf: [collection], split: split)
        return (
            """
            WITH page AS (\(page.sql))
            SELECT '0', collection, id, data FROM page UNION ALL
            SELECT '1', d.collection, d.id, d.data::text FROM page
            JOIN \(table) d ON d.collection = \(named) COLLATE "C" AND d.id = \(key) COLLATE "C"
            """, page.statement.parameters
        )
    }

    /// ``prefetch(_:)`` for ``runMergedQuery(_:limit:)``: each of its statements.
    public func prefetch(mergedQuery queries: [Query], limit: Int) async {
        for query in Self.shaped(queries, limit: limit) { await prefetch(query) }
    }

    /// The queries ``runMergedQuery(_:limit:)`` sends for `queries`: each within `limit`.
    private static func shaped(_ queries: [Query], limit: Int) -> [Query] {
        queries.map { $0.wholeDocuments.limit(to: min($0.limit ?? limit, limit)) }
    }

    /// ``prefetch(_:)`` for ``getDocuments(_:)`` of `paths`, or ``getDocument(_:)`` of one.
    public func prefetch(documentsAt paths: [DocumentPath]) async {
        guard !paths.isEmpty else { return }
        pendingPrefetches.append(.documents(paths))
    }

    /// ``prefetch(_:)`` and its kin for the reads `reads` asks with ``lookupStandIn`` for the ID of
    /// `lookup`'s first document (an account found by its username), which must have been asked
    /// ahead just before. Each goes in the same round trip with the ID found on the server (a
    /// subquery of the lookup's statement), and its answer is kept, once the lookup's says what
    /// the ID is, for the statement `reads` would have made with it.
    public func prefetch(dependingOnFirstIDOf lookup: Query, _ reads: @Sendable (String) async -> Void) async {
        guard lookup.textSearch == nil, let asked = await prefetches(askedBy: reads) else { return }
        pendingPrefetches.append(.dependent(lookup: lookup, asked))
    }

    /// ``prefetch(_:)`` and its kin for the reads `reads` asks with ``lookupStandIn`` as one value
    /// of a list (`field in [values]`), for the strings of the array `field` of the document at
    /// `path` (whom an account follows). Each goes in the next read's round trip with the list
    /// filled in on the server; its first row says the parameters as filled, and its answer is
    /// kept for the statement with exactly those, which is the one asked later only if the list
    /// read then is the same.
    public func prefetch(
        dependingOnList field: String, at path: DocumentPath, _ reads: @Sendable (String) async -> Void
    )
        async
    {
        guard let asked = await prefetches(askedBy: reads) else { return }
        pendingPrefetches.append(.listDependent(path: path, field: field, asked))
    }

    /// What `reads` asks with ``lookupStandIn``, taken out of the pending prefetches.
    private func prefetches(askedBy reads: @Sendable (String) async -> Void) async -> [Prefetch]? {
        let start = pendingPrefetches.count
        await reads(Self.lookupStandIn)
        // A write meanwhile forgot what was asked; what a concurrent task asked goes as it is.
        guard pendingPrefetches.count > start else { return nil }
        let asked = Array(pendingPrefetches[start...])
        pendingPrefetches.removeSubrange(start...)
        return asked
    }

    /// `statement` with its parameters holding ``lookupStandIn`` as an element of an array
    /// literal filled in, on the server, with the strings of the array `field` of the document at
    /// `path` (each a plain ID), and a first row of nulls and those parameters as filled;
    /// `path`'s collection and ID follow `statement`'s parameters.
    static func fillingList(
        in statement: (sql: String, parameters: [String?]), from field: String, at path: DocumentPath, split: Bool
    ) throws -> (sql: String, parameters: [String?], filled: [Int]) {
        let offset = statement.parameters.count
        let array = "d." + (try PostgresSQL.field(field))
        let table = PostgresSQL.table(forGroupOf: [path.collection], split: split)
        let items =
            "SELECT e.u FROM \(table) AS d, jsonb_array_elements_text(CASE WHEN jsonb_typeof(\(array)) = 'array' "
            + "THEN \(array) ELSE '[]' END) AS e(u) WHERE d.collection = $\(offset + 1) COLLATE \"C\" "
            + "AND d.id = $\(offset + 2) COLLATE \"C\" AND e.u ~ '^[A-Za-z0-9]+$'"
        let quoted = "\"\(lookupStandIn)\""
        var filled: [Int] = []
        for (index, parameter) in statement.parameters.enumerated() where parameter?.contains(quoted) == true {
            filled.append(index + 1)
        }
        // The list's other values and the document's, each once, in byte order, each quoted: the
        // array literal the engine binds for `field in [values]` (PostgresSQL.arrayLiteral).
        func fill(_ number: Int) -> String {
            "(SELECT '{' || coalesce(string_agg('\"' || v || '\"', ',' ORDER BY v COLLATE \"C\"), '') || '}' FROM "
                + "(SELECT v FROM unnest($\(number)::text[]) AS a(v) WHERE v <> '\(lookupStandIn)' UNION \(items)) "
                + "AS x(v))"
        }
        // Filled once, for the statement and for its first row.
        let sql = renumberingParameters(statement.sql) { number in
            filled.contains(number) ? "(SELECT p\(number) FROM tweetcli_filled)" : "$\(number)"
        }
        let columns = filled.map { "\(fill($0)) AS p\($0)" }.joined(separator: ", ")
        let marker =
            "SELECT NULL, NULL, json_build_array(\(filled.map { "p\($0)" }.joined(separator: ", ")))::text "
            + "FROM tweetcli_filled"
        return (
            "WITH tweetcli_filled AS MATERIALIZED (SELECT \(columns)) \(marker) UNION ALL (\(sql))",
            statement.parameters + [path.collection, path.documentID], filled
        )
    }

    /// The documents of `collection` that the last `count` strings of the array `field` across
    /// `query`'s rows name (the rows in order, each one's array from its end: a posting list's
    /// newest entries), found on the server in the round trip of the next read; kept for the
    /// ``getDocuments(_:)`` of those paths in that order. Both halves of the answer come from one
    /// statement: the paths it chose, then their documents, so that they always agree.
    public func prefetch(documentsIn collection: String, namedByLast count: Int, of field: String, across query: Query)
        async
    {
        guard query.textSearch == nil, count > 0 else { return }
        pendingPrefetches.append(.namedByLast(count, field: field, query: query, collection: collection))
    }

    /// The statement of ``prefetch(documentsIn:namedByLast:of:across:)``: first a row of nulls
    /// and the IDs chosen as a JSON array, then their documents.
    private static func lastNamedStatement(
        _ count: Int, field: String, query: Query, collection: String, split: Bool
    ) throws -> (sql: String, parameters: [String?]) {
        guard !field.contains(".") else {
            throw StoreError.io(path: "the PostgreSQL store", reason: "documents cannot be named by \(field)")
        }
        var rows = try PostgresQuery(query, split: split)
        let named = rows.statement.bind(collection)
        let array = "(q.data::jsonb)\(try PostgresSQL.field(field).dropFirst(4))"
        let table = PostgresSQL.table(forGroupOf: [collection], split: split)
        return (
            """
            WITH q AS (SELECT s.data, row_number() OVER () AS n FROM (\(rows.sql)) AS s),
            chosen AS (SELECT i, r FROM (SELECT t.i, row_number() OVER (ORDER BY q.n, e.o DESC) AS r
              FROM q, jsonb_array_elements(CASE WHEN jsonb_typeof(\(array)) = 'array' THEN \(array) ELSE '[]' END)
              WITH ORDINALITY AS e(v, o), LATERAL (SELECT e.v #>> '{}' AS i WHERE jsonb_typeof(e.v) = 'string') AS t
              ) AS x WHERE r <= \(count))
            SELECT NULL, NULL, coalesce((SELECT json_agg(i ORDER BY r) FROM chosen), '[]')::text UNION ALL
            SELECT d.collection, d.id, d.data::text FROM chosen
            JOIN \(table) d ON d.collection = \(named) COLLATE "C" AND d.id = chosen.i COLLATE "C"
            """, rows.statement.parameters
        )
    }

    /// Puts the pending prefetches on `connection`, to go after the next statements it sends.
    private func attachPrefetches(to connection: PostgresConnection) {
        guard !pendingPrefetches.isEmpty else { return }
        defer { pendingPrefetches = [] }
        sentAhead = [:]
        var statements: [(sql: String, parameters: [String?])] = []
        for prefetch in pendingPrefetches {
            if case .listDependent(let path, let field, let asked) = prefetch {
                for read in asked {
                    guard let made = statement(for: read, split: connection.isSplit) else { continue }
                    let quoted = "\"\(Self.lookupStandIn)\""
                    guard made.parameters.contains(where: { $0?.contains(quoted) == true }) else {
                        statements.append(made)
                        continue
                    }
                    // A list this engine cannot fill in is not sent ahead.
                    guard !made.sql.contains(Self.lookupStandIn),
                        let sent = try? Self.fillingList(in: made, from: field, at: path, split: connection.isSplit)
                    else { continue }
                    sentAhead[PrefetchKey(sql: sent.sql, parameters: sent.parameters)] = .listDependent(
                        made: PrefetchKey(sql: made.sql, parameters: made.parameters), filled: sent.filled)
                    statements.append((sent.sql, sent.parameters))
                }
                continue
            }
            if case .namedByLast(let count, let field, let query, let collection) = prefetch {
                // One this engine cannot write is not sent ahead: asked for, it fails then.
                guard
                    let statement = try? Self.lastNamedStatement(
                        count, field: field, query: query, collection: collection, split: connection.isSplit),
                    !statement.parameters.contains(where: { $0?.utf8.contains(0) == true })
                else { continue }
                sentAhead[PrefetchKey(sql: statement.sql, parameters: statement.parameters)] = .arrayNamed(
                    collection: collection)
                statements.append(statement)
                continue
            }
            guard case .dependent(let lookup, let asked) = prefetch else {
                if let statement = statement(for: prefetch, split: connection.isSplit) { statements.append(statement) }
                continue
            }
            // A lookup this engine cannot write sends nothing that depends on it.
            guard let found = try? PostgresQuery(lookup, split: connection.isSplit) else { continue }
            let lookupKey = PrefetchKey(sql: found.sql, parameters: found.statement.parameters)
            for read in asked {
                guard let made = statement(for: read, split: connection.isSplit) else { continue }
                guard made.parameters.contains(where: { $0?.contains(Self.lookupStandIn) == true }) else {
                    statements.append(made)
                    continue
                }
                // The stand-in only ever goes into parameters; a statement with it in its text
                // would not be the one later asked for.
                guard !made.sql.contains(Self.lookupStandIn) else { continue }
                let sent = Self.substitutingLookup(in: made, by: (found.sql, found.statement.parameters))
                sentAhead[PrefetchKey(sql: sent.sql, parameters: sent.parameters)] = .dependent(
                    made: PrefetchKey(sql: made.sql, parameters: made.parameters), lookup: lookupKey)
                statements.append(sent)
            }
        }
        connection.extras = statements
    }

    /// The statement a prefetch sends, or `nil` for one not sent ahead: a query this engine
    /// cannot write as SQL, or with a value the server refuses (U+0000, which would fail the whole
    /// round trip); asked for, it fails then. Its answer kept from before is dropped: asked again,
    /// it is older than this one will be.
    private func statement(for prefetch: Prefetch, split: Bool) -> (sql: String, parameters: [String?])? {
        let statement: (sql: String, parameters: [String?])
        switch prefetch {
        case .query(let query):
            // Not sent ahead, as the doc comment says.
            guard let sql = try? PostgresQuery(query, split: split) else { return nil }
            statement = (sql.sql, sql.statement.parameters)
        case .documents(let paths): statement = Self.documentsStatement(at: paths, split: split)
        case .named(let query, let collection, let field):
            // Not sent ahead, as the doc comment says.
            guard let named = try? Self.namedStatement(query, in: collection, by: field, split: split) else {
                return nil
            }
            statement = named
        case .dependent, .namedByLast, .listDependent: return nil
        }
        guard !statement.parameters.contains(where: { $0?.utf8.contains(0) == true }) else { return nil }
        prefetched[PrefetchKey(sql: statement.sql, parameters: statement.parameters)] = nil
        return statement
    }

    /// `statement` with each parameter holding ``lookupStandIn`` made to hold, on the server, the
    /// ID of the first row of `lookup` instead (none: the parameter is null, and the statement
    /// finds nothing); `lookup`'s parameters follow `statement`'s.
    static func substitutingLookup(
        in statement: (sql: String, parameters: [String?]), by lookup: (sql: String, parameters: [String?])
    ) -> (sql: String, parameters: [String?]) {
        let offset = statement.parameters.count
        let lookupSQL = renumberingParameters(lookup.sql) { "$\($0 + offset)" }
        let found = "(SELECT l.id FROM (\(lookupSQL)) AS l LIMIT 1)"
        let sql = renumberingParameters(statement.sql) { number in
            guard number >= 1, number <= offset,
                statement.parameters[number - 1]?.contains(lookupStandIn) == true
            else { return "$\(number)" }
            return "replace($\(number)::text, '\(lookupStandIn)', \(found))"
        }
        return (sql, statement.parameters + lookup.parameters)
    }

    /// `sql` with each parameter reference (`$` and digits) written as `write` says.
    private static func renumberingParameters(_ sql: String, _ write: (Int) -> String) -> String {
        var result = ""
        var rest = Substring(sql)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let digits = rest[rest.index(after: dollar)...].prefix { $0.isASCII && $0.isNumber }
            if let number = Int(digits) {
                result += write(number)
            } else {
                result += "$"
            }
            rest = rest[rest.index(dollar, offsetBy: 1 + digits.count)...]
        }
        return result + rest
    }

    /// Keeps what the prefetches `connection` sent came to; unsent ones are dropped.
    private func keepPrefetched(from connection: PostgresConnection) {
        connection.extras = []
        var dependents: [(made: PrefetchKey, lookup: PrefetchKey, rows: [[String?]])] = []
        for (statement, outcome) in connection.takeExtraOutcomes() {
            // One that failed is asked again when it is needed, and fails or not then.
            guard case .success(let rows) = outcome else { continue }
            let key = PrefetchKey(sql: statement.sql, parameters: statement.parameters)
            switch sentAhead[key] {
            case .dependent(let made, let lookup): dependents.append((made, lookup, rows))
            case .arrayNamed(let collection): keepLastNamed(rows, in: collection, split: connection.isSplit)
            case .listDependent(let made, let filled): keepListFilled(rows, made: made, filled: filled)
            case nil: prefetched[key] = (rows, .now)
            }
        }
        sentAhead = [:]
        // Each answers the statement made with the ID the lookup found, as its answer says.
        for (made, lookup, rows) in dependents {
            guard let first = prefetched[lookup]?.rows.first, first.count > 1, let id = first[1],
                !id.contains(Self.lookupStandIn)
            else { continue }
            let parameters = made.parameters.map { $0?.replacingEvery(Self.lookupStandIn, with: id) }
            prefetched[PrefetchKey(sql: made.sql, parameters: parameters)] = (rows, .now)
        }
    }

    /// Keeps the rows of a statement ``fillingList(in:from:at:split:)`` made, for `made` with the
    /// parameters its first row says the server filled in.
    private func keepListFilled(_ rows: [[String?]], made: PrefetchKey, filled: [Int]) {
        func isMarker(_ row: [String?]) -> Bool { row.count == 3 && row[0] == nil && row[1] == nil }
        // An answer that does not say its parameters is dropped: they are read when asked.
        guard let marker = rows.first(where: isMarker), let text = marker[2],
            case .array(let values)? = try? JSONValue.parse(Array(text.utf8)), values.count == filled.count
        else { return }
        var parameters = made.parameters
        for (number, value) in zip(filled, values) {
            guard let value = value.stringValue else { return }
            parameters[number - 1] = value
        }
        prefetched[PrefetchKey(sql: made.sql, parameters: parameters)] = (rows.filter { !isMarker($0) }, .now)
    }

    /// Keeps the documents a ``lastNamedStatement(_:field:query:collection:split:)`` found for
    /// the ``getDocuments(_:)`` of the paths its first row lists, in that order.
    private func keepLastNamed(_ rows: [[String?]], in collection: String, split: Bool) {
        // An answer that does not say its paths is dropped: they are read when asked.
        guard let listed = rows.first(where: { $0.count == 3 && $0[0] == nil && $0[1] == nil }),
            let text = listed[2], case .array(let values)? = try? JSONValue.parse(Array(text.utf8))
        else { return }
        let ids = values.compactMap(\.stringValue)
        guard !ids.isEmpty, ids.count == values.count else { return }
        let statement = Self.documentsStatement(
            at: ids.map { DocumentPath(collection: collection, documentID: $0) }, split: split)
        prefetched[PrefetchKey(sql: statement.sql, parameters: statement.parameters)] = (
            rows.filter { !($0.count == 3 && $0[0] == nil && $0[1] == nil) }, .now
        )
    }

    /// The rows a prefetch of `statement` brought, taken once; `nil` when none did, or too long
    /// ago. The same statement still waiting to be sent with this one is not sent twice.
    private func takePrefetched(_ statement: PostgresQuery, from connection: PostgresConnection) -> [[String?]]? {
        takePrefetched((statement.sql, statement.statement.parameters), from: connection)
    }

    /// ``takePrefetched(_:from:)`` of a statement's SQL and parameters.
    private func takePrefetched(_ statement: (sql: String, parameters: [String?]), from connection: PostgresConnection)
        -> [[String?]]?
    {
        guard !prefetched.isEmpty || !connection.extras.isEmpty else { return nil }
        let key = PrefetchKey(sql: statement.sql, parameters: statement.parameters)
        connection.extras.removeAll { $0.sql == key.sql && $0.parameters == key.parameters }
        guard let found = prefetched.removeValue(forKey: key), ContinuousClock.now - found.at < prefetchedMoment
        else { return nil }
        return found.rows
    }

    /// Forgets prefetched answers: a write may change what they would say.
    private func forgetPrefetched() {
        pendingPrefetches = []
        prefetched = [:]
    }

    /// The queries in one round trip (libpq's pipeline mode), then merged as the protocol's
    /// default merges them: a timeline's tweets and retweets wait on nothing but the page.
    public func runMergedQuery(_ queries: [Query], limit: Int) async throws -> [(
        query: Int, snapshot: DocumentSnapshot
    )] {
        let shaped = Self.shaped(queries, limit: limit)
        return try await reading(orEmpty: []) { connection in
            let statements = try shaped.map { try PostgresQuery($0, split: connection.isSplit) }
            // Those prefetched are taken; the rest go together.
            var results = statements.map { takePrefetched($0, from: connection) }
            let unanswered = results.indices.filter { results[$0] == nil }
            if !unanswered.isEmpty {
                let read = try connection.executeTogether(
                    unanswered.map { (statements[$0].sql, statements[$0].statement.parameters) })
                for (index, rows) in zip(unanswered, read) { results[index] = rows }
            }
            var rows: [(query: Int, snapshot: DocumentSnapshot)] = []
            for (position, (query, result)) in zip(shaped, results).enumerated() {
                // The rows are the query's already; selecting them again keeps the one set of rules exact.
                rows += query.select(from: try (result ?? []).map(Self.snapshot)).map {
                    (position, query.projected($0))
                }
            }
            return Query.merged(rows, of: queries, limit: limit)
        }
    }

    public func count(_ query: Query) async throws -> Int {
        try await reading(orEmpty: 0) { connection in
            // A text search is decided in Swift (see PostgresQuery), so it is counted there too.
            if query.textSearch != nil { return try Self.run(query, on: connection).count }
            let sql = try PostgresQuery(query, columns: "1", split: connection.isSplit)
            let rows = try connection.execute("SELECT count(*) FROM (\(sql.sql)) AS selected", sql.statement.parameters)
            return Int(rows.first?.first.flatMap { $0 } ?? "0") ?? 0
        }
    }

    /// Every prefix's run of IDs in one statement: a query each, as the protocol's default runs
    /// them, is a round trip each, and a page's short IDs ask for fifty.
    public func documentIDs(in collection: String, startingWith prefixes: [String], limit: Int) async throws
        -> [[String]]
    {
        let none = [[String]](repeating: [], count: prefixes.count)
        guard !prefixes.isEmpty, limit > 0 else { return none }
        return try await reading(orEmpty: none) { connection in
            let statement = Self.idRuns(in: collection, startingWith: prefixes, limit: limit, split: connection.isSplit)
            return try Self.idRuns(
                from: try connection.execute(statement.sql, statement.parameters), count: prefixes.count)
        }
    }

    public nonisolated var readsAreRoundTrips: Bool { true }

    /// The page's documents and its IDs' short lengths in one round trip (see the protocol).
    public func getDocuments(
        _ paths: [DocumentPath], uniquePrefixLengthsIn collection: String, of ids: [String], minimum: Int
    ) async throws -> (documents: [DocumentSnapshot], lengths: [Int]) {
        let request = UniquePrefixRequest(ids: ids, minimum: minimum)
        guard !paths.isEmpty, !request.starts.isEmpty else {
            return (
                try await getDocuments(paths), try await uniquePrefixLengths(in: collection, of: ids, minimum: minimum)
            )
        }
        return try await reading(orEmpty: ([], request.lengths(from: []))) { connection in
            let documents = Self.documentsStatement(at: paths, split: connection.isSplit)
            let runs = Self.idRuns(
                in: collection, startingWith: request.starts, limit: Int.max, split: connection.isSplit)
            let rows = try connection.executeTogether([documents, runs])
            return (
                try Self.documents(from: rows[0], at: paths),
                request.lengths(from: try Self.idRuns(from: rows[1], count: request.starts.count))
            )
        }
    }

    /// Every prefix's run of IDs in one statement: a query each, as the protocol's default runs
    /// them, is a round trip each, and a page's short IDs ask for fifty.
    private static func idRuns(in collection: String, startingWith prefixes: [String], limit: Int, split: Bool)
        -> (sql: String, parameters: [String?])
    {
        (
            """
            SELECT p.n, d.id FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS p(low, high, n)
            CROSS JOIN LATERAL (
              SELECT id FROM \(PostgresSQL.table(forGroupOf: [collection], split: split)) AS t
              WHERE collection = $3
              AND id >= p.low COLLATE "C" AND id < p.high COLLATE "C" ORDER BY id COLLATE "C" LIMIT $4::bigint
            ) AS d ORDER BY p.n, d.id COLLATE "C"
            """,
            [
                PostgresQuery.arrayLiteral(prefixes),
                PostgresQuery.arrayLiteral(prefixes.map(Query.successor(ofPrefix:))), collection, String(limit),
            ]
        )
    }

    /// The runs of IDs of ``idRuns(in:startingWith:limit:split:)``'s rows, one for each of `count` prefixes.
    private static func idRuns(from rows: [[String?]], count: Int) throws -> [[String]] {
        var runs = [[String]](repeating: [], count: count)
        for row in rows {
            // Nothing from the server is trusted: a row must name one of the prefixes asked.
            guard row.count == 2, let number = row[0].flatMap({ Int($0) }), runs.indices.contains(number - 1),
                let id = row[1]
            else {
                throw StoreError.io(path: "the PostgreSQL store", reason: "a row came back without its columns")
            }
            runs[number - 1].append(id)
        }
        return runs
    }

    private static func document(at path: DocumentPath, on connection: PostgresConnection) throws -> DocumentSnapshot? {
        if connection.isSplit, PostgresSQL.isPrivate(path.collection) {
            return try documents(at: [path], on: connection).first
        }
        let table = PostgresSQL.table(forGroupOf: [path.collection], split: connection.isSplit)
        let rows = try connection.execute(
            "SELECT data::text FROM \(table) AS t WHERE collection = $1 AND id = $2",
            [path.collection, path.documentID])
        guard let text = rows.first?.first ?? nil else { return nil }
        return DocumentSnapshot(path: path, data: try fields(text, at: path))
    }

    private static func documents(at paths: [DocumentPath], on connection: PostgresConnection) throws
        -> [DocumentSnapshot]
    {
        guard !paths.isEmpty else { return [] }
        let statement = documentsStatement(at: paths, split: connection.isSplit)
        return try documents(from: try connection.execute(statement.sql, statement.parameters), at: paths)
    }

    /// The statement that reads the documents at `paths`. Two arrays through unnest, whose length
    /// the planner knows, so that a batch of a few paths is a few primary-key lookups at any table
    /// size (JSONB's record set is guessed at 100 rows, and against a small table that made a hash
    /// join over all of it).
    private static func documentsStatement(at paths: [DocumentPath], split: Bool) -> (
        sql: String, parameters: [String?]
    ) {
        if split, paths.contains(where: { PostgresSQL.isPrivate($0.collection) }) {
            // The private ones through the function that returns only what the account may read.
            let hidden = paths.filter { PostgresSQL.isPrivate($0.collection) }
            return (
                """
                SELECT d.collection, d.id, d.data::text FROM unnest($1::text[], $2::text[]) AS p(c, i)
                JOIN tweetcli_public d ON d.collection = p.c COLLATE "C" AND d.id = p.i COLLATE "C"
                UNION ALL SELECT d.collection, d.id, d.data::text FROM tweetcli_private_at($3::text[], $4::text[]) AS d
                """, Self.pathArrays(paths.filter { !PostgresSQL.isPrivate($0.collection) }) + Self.pathArrays(hidden)
            )
        }
        return (
            """
            SELECT d.collection, d.id, d.data::text FROM unnest($1::text[], $2::text[]) AS p(c, i)
            JOIN \(split ? "tweetcli_public" : PostgresSQL.documents) d ON d.collection = p.c COLLATE "C" AND d.id = p.i COLLATE "C"
            """, Self.pathArrays(paths)
        )
    }

    /// The documents of ``documentsStatement(at:split:)``'s rows, in the order of `paths`.
    private static func documents(from rows: [[String?]], at paths: [DocumentPath]) throws -> [DocumentSnapshot] {
        var found: [DocumentPath: DocumentSnapshot] = [:]
        for snapshot in try rows.map(snapshot) { found[snapshot.path] = snapshot }
        // In the order asked for, as every engine answers.
        return paths.compactMap { found[$0] }
    }

    /// `query`'s documents, from what `prefetched` has for its statement if anything, else read.
    private static func run(
        _ query: Query, on connection: PostgresConnection,
        prefetched: (PostgresQuery) -> [[String?]]? = { _ in nil }
    ) throws -> [DocumentSnapshot] {
        let sql = try PostgresQuery(query, split: connection.isSplit)
        let rows = try prefetched(sql) ?? connection.execute(sql.sql, sql.statement.parameters)
        // The rows are the query's already; selecting them again keeps the one set of rules exact.
        return query.select(from: try rows.map(snapshot))
    }

    private static func snapshot(_ row: [String?]) throws -> DocumentSnapshot {
        guard row.count == 3, let collection = row[0], let id = row[1], let text = row[2] else {
            throw StoreError.io(path: "the PostgreSQL store", reason: "a row came back without its columns")
        }
        let path = DocumentPath(collection: collection, documentID: id)
        return DocumentSnapshot(path: path, data: try fields(text, at: path))
    }

    /// A row's JSONB text as fields: nothing from the server is trusted to be an object.
    private static func fields(_ text: String, at path: DocumentPath) throws -> JSONObject {
        // A parse error and a non-object both mean a document this engine did not write: one error names it.
        guard case .object(let fields) = try? JSONValue.parse(Array(text.utf8)) else {
            throw StoreError.undecodable(path: path.description, reason: "the stored document is not a JSON object")
        }
        return fields
    }

    // MARK: Writes

    public func runTransaction<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T {
        try await waitForTransactions()
        let number = gate.open()
        defer { gate.close() }
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await attemptTransaction(number) { transaction, _ in try await body(transaction) }
            } catch let error as PostgresError where error.isRetryable && attempt < 10 {
                try await Task.sleep(nanoseconds: UInt64(attempt) * 5_000_000)
            }
        }
    }

    /// One try of a transaction. With `version` (the clock as a bulk write found it), the body is
    /// told whether any write committed since, and `load` runs before the body's writes are applied.
    /// `begun`: a connection already in the transaction (a bulk load's), instead of the store's.
    private func attemptTransaction<T: Sendable>(
        _ number: Int, since version: String? = nil, on begun: PostgresConnection? = nil,
        _ body: @Sendable (Transaction, _ changed: Bool) async throws -> T,
        load: (PostgresConnection, [Transaction.Write]) throws -> Void = { _, _ in }
    ) async throws -> T {
        let connection = try begun ?? writableConnection()
        // A plain transaction's BEGIN and its clock go in one round trip.
        let together = begun == nil && version == nil
        if begun == nil, !together { try connection.begin() }
        do {
            var changed = true
            if let version {
                // The clock row's lock first, so that the value read is the last commit's.
                let rows = try connection.execute("SELECT last_ms FROM tweetcli_clock WHERE id = 1 FOR UPDATE")
                changed = (rows.first?.first ?? nil) != version
            }
            let tick = Self.clockTick(now: clock(), throughRules: writesThroughRules)
            let time = try Self.commitTime(
                from: together ? connection.begin(then: tick) : connection.execute(tick.sql, tick.parameters))
            let reads = TransactionReads()
            let transaction = Transaction(
                reader: PostgresTransactionReader(store: self, number: number, reads: reads), time: time)
            let result = try await body(transaction, changed)
            try load(connection, transaction.writes)
            if writesThroughRules {
                try Self.applyThroughRules(transaction.writes, on: connection)
            } else {
                try Self.apply(transaction.writes, knowing: reads, on: connection)
            }
            try connection.execute("COMMIT")
            return result
        } catch {
            // As above: the first error is the one to report, and a connection left in a
            // transaction is not reused.
            if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    public nonisolated var writesBegun: Int? { writes.withLock { $0 } }

    /// Counts a write about to begin, and forgets prefetched answers it may make old: every write
    /// calls it first (``writableConnection()``, the account functions, a change of login).
    func noteWrite() {
        writes.withLock { $0 += 1 }
        forgetPrefetched()
    }

    /// The connection for a write, with the schema made first if this use of the store may.
    func writableConnection() throws -> PostgresConnection {
        noteWrite()
        let connection = try connected()
        try checkSchema(connection)
        if !hasSchema {
            guard createIfMissing else { throw StoreError.noStore(path: name) }
            try createSchema(connection)
        }
        return connection
    }

    /// Takes the clock row's lock (every writer's first step) and moves it to a time after the last
    /// commit's, in one statement: the lock is held to the commit, and a rollback undoes the move.
    private static func commitTime(on connection: PostgresConnection, now: Date, throughRules: Bool = false) throws
        -> Date
    {
        let tick = clockTick(now: now, throughRules: throughRules)
        return try commitTime(from: connection.execute(tick.sql, tick.parameters))
    }

    /// The statement that moves the clock for a transaction committing at `now`, and says to when.
    /// Under the rules, the server's own clock.
    private static func clockTick(now: Date, throughRules: Bool) -> (sql: String, parameters: [String?]) {
        throughRules
            ? ("SELECT tweetcli_begin_write()", [])
            : (
                "UPDATE tweetcli_clock SET last_ms = greatest($1::bigint, last_ms + 1) WHERE id = 1 "
                    + "RETURNING last_ms, pg_notify('\(PostgresChangeWatch.channel)', current_schema())",
                [String(Int64((now.timeIntervalSince1970 * 1000).rounded()))]
            )
    }

    /// The commit time a clock tick's `rows` say.
    private static func commitTime(from rows: [[String?]]) throws -> Date {
        guard let text = rows.first?.first ?? nil, let milliseconds = Int64(text) else {
            throw StoreError.io(path: "the PostgreSQL store", reason: "its clock row is missing")
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Writes a transaction's resolved documents in two statements: the sets, then the deletions.
    /// The documents its updates and deletions resolve against are those the body read, which no
    /// other writer can have changed since (they wait for the clock row); only the others are read.
    private static func apply(
        _ writes: [Transaction.Write], knowing reads: TransactionReads, on connection: PostgresConnection
    ) throws {
        guard !writes.isEmpty else { return }
        let known = reads.documents.withLock { $0 }
        var committed: [DocumentPath: JSONObject] = [:]
        var unread: [DocumentPath] = []
        for write in writes {
            switch write {
            case .update(let path, _), .delete(let path):
                if let read = known[path] {
                    committed[path] = read
                } else {
                    unread.append(path)
                }
            case .set: break
            }
        }
        for snapshot in try documents(at: unread, on: connection) { committed[snapshot.path] = snapshot.data }
        let resolved = try Transaction.resolve(writes) { committed[$0] }
        var sets: [JSONValue] = []
        var deletions: [DocumentPath] = []
        for (path, fields) in resolved {
            if let fields {
                sets.append(row(path, fields))
            } else {
                deletions.append(path)
            }
        }
        try upsert(sets, on: connection)
        if !deletions.isEmpty {
            try connection.execute(
                """
                DELETE FROM tweetcli_documents d USING unnest($1::text[], $2::text[]) AS p(c, i)
                WHERE d.collection = p.c COLLATE "C" AND d.id = p.i COLLATE "C"
                """, pathArrays(deletions))
        }
    }

    /// Hands a transaction's writes, as made, to `tweetcli_apply`, which resolves and checks them
    /// against the rules on the server, and writes them or refuses them all.
    private static func applyThroughRules(_ writes: [Transaction.Write], on connection: PostgresConnection) throws {
        guard !writes.isEmpty else { return }
        let list: [JSONValue] = writes.map { write in
            switch write {
            case .set(let path, let fields):
                return .object([
                    "op": .string("set"), "c": .string(path.collection), "i": .string(path.documentID),
                    "d": .object(fields),
                ])
            case .delete(let path):
                return .object([
                    "op": .string("delete"), "c": .string(path.collection), "i": .string(path.documentID),
                ])
            case .update(let path, let changes):
                var fields: JSONObject = [:]
                for (field, change) in changes {
                    switch change {
                    case .value(let value): fields[field] = .object(["value": value])
                    case .delete: fields[field] = .object(["delete": .bool(true)])
                    case .increment(let amount): fields[field] = .object(["inc": .integer(amount)])
                    case .incrementCount(let amount): fields[field] = .object(["count": .integer(amount)])
                    }
                }
                return .object([
                    "op": .string("update"), "c": .string(path.collection), "i": .string(path.documentID),
                    "u": .object(fields),
                ])
            }
        }
        do {
            try connection.execute(
                "SELECT tweetcli_apply($1::jsonb)",
                [String(decoding: JSONValue.array(list).serialized(), as: UTF8.self)])
        } catch PostgresError.statement(PostgresRulesSQL.missingDocument, let message) {
            throw StoreError.documentNotFound(path: message)
        }
    }

    /// `paths`' collections and IDs as two array parameters, for `unnest($1::text[], $2::text[])`.
    private static func pathArrays(_ paths: [DocumentPath]) -> [String?] {
        [PostgresQuery.arrayLiteral(paths.map(\.collection)), PostgresQuery.arrayLiteral(paths.map(\.documentID))]
    }

    /// Inserts or replaces rows given as `{"c", "i", "g", "d"}` objects, in one statement.
    private static func upsert(_ rows: [JSONValue], on connection: PostgresConnection) throws {
        guard !rows.isEmpty else { return }
        try connection.execute(
            """
            INSERT INTO tweetcli_documents (collection, id, group_id, data)
            SELECT c, i, g, d FROM jsonb_to_recordset($1::jsonb) AS p(c text, i text, g text, d jsonb)
            ON CONFLICT (collection, id) DO UPDATE SET data = EXCLUDED.data
            """, [String(decoding: JSONValue.array(rows).serialized(), as: UTF8.self)])
    }

    /// The last component of a collection path: what a collection group query matches.
    static func groupID(of collection: String) -> String {
        collection.split(separator: "/").last.map(String.init) ?? collection
    }

    // MARK: Blobs

    /// Whether this process has made sure the blobs' table is there (a database set up by an
    /// earlier build has none).
    private var hasBlobTable = false

    /// One row of `tweetcli_blobs`, inserted in a statement of its own: committed (and so durable)
    /// before it returns. Inserting one that is there already changes nothing.
    public func putBlob(_ bytes: [UInt8], address: String) async throws {
        let address = try BlobAddress.checked(address)
        try await waitForTransactions()
        let connection = try writableConnection()
        try makeBlobTable(connection)
        // Put again, its time is made now's: a collection of unnamed photos leaves it to the post
        // that puts it, and the row's lock orders the two.
        try connection.execute(
            "INSERT INTO tweetcli_blobs (address, data) VALUES ($1, $2::bytea) "
                + "ON CONFLICT (address) DO UPDATE SET kept = now()",
            [address, PostgresBulkLoad.hex(bytes)])
    }

    /// The table, and its `kept` column where a table made before it lacks one: looked up first,
    /// since `ALTER TABLE` locks the table against every reader even when it changes nothing.
    private func makeBlobTable(_ connection: PostgresConnection) throws {
        guard !hasBlobTable else { return }
        try connection.execute(PostgresSQL.createBlobTable)
        let kept = try connection.execute(
            "SELECT 1 FROM pg_attribute WHERE attrelid = 'tweetcli_blobs'::regclass AND attname = 'kept' "
                + "AND NOT attisdropped")
        if kept.isEmpty { try connection.execute(PostgresSQL.addBlobKeptColumn) }
        hasBlobTable = true
    }

    /// Moved, in one statement, to `tweetcli_blobs_aside`, which nothing reads.
    public func setBlobAside(_ address: String) async throws -> Bool {
        let address = try BlobAddress.checked(address)
        try await waitForTransactions()
        let connection = try writableConnection()
        try makeBlobTable(connection)
        try connection.execute(PostgresSQL.createBlobAsideTable)
        let rows = try connection.execute(
            "WITH moved AS (DELETE FROM tweetcli_blobs WHERE address = $1 RETURNING address, data) "
                + "INSERT INTO tweetcli_blobs_aside (address, data) SELECT address, data FROM moved RETURNING address",
            [address])
        return !rows.isEmpty
    }

    public func blobAddresses() async throws -> [String] {
        try await reading(orEmpty: []) { connection in
            do {
                return try connection.execute("SELECT address FROM tweetcli_blobs").compactMap { $0.first ?? nil }
            } catch PostgresError.statement(state: "42P01", _) {
                return []  // A database no photo was ever posted to has no table for them.
            }
        }
    }

    public func removeBlobs(_ addresses: [String], putBefore seconds: Int) async throws -> (count: Int, bytes: Int) {
        guard !addresses.isEmpty else { return (0, 0) }
        for address in addresses { _ = try BlobAddress.checked(address) }
        try await waitForTransactions()
        let connection = try writableConnection()
        try makeBlobTable(connection)
        let rows = try connection.execute(
            "DELETE FROM tweetcli_blobs WHERE address = ANY(string_to_array($1, ',')) "
                + "AND kept < now() - make_interval(secs => $2::int) RETURNING octet_length(data)",
            [addresses.joined(separator: ","), String(seconds)])
        return (rows.count, rows.reduce(0) { $0 + (($1.first ?? nil).flatMap { Int($0) } ?? 0) })
    }

    public func getBlob(_ address: String) async throws -> [UInt8]? {
        let address = try BlobAddress.checked(address)
        return try await reading(orEmpty: nil) { connection in
            let rows: [[String?]]
            do {
                rows = try connection.execute("SELECT data FROM tweetcli_blobs WHERE address = $1", [address])
            } catch PostgresError.statement(state: "42P01", _) {
                return nil  // A database no photo was ever posted to has no table for them.
            }
            guard let row = rows.first else { return nil }
            guard let text = row.first ?? nil, let bytes = PostgresBulkLoad.bytes(text) else {
                throw StoreError.io(path: self.name, reason: "the blob \(address) came back damaged")
            }
            return bytes
        }
    }

    /// The produced documents and the records sorted aside go to temporary tables of a connection
    /// of their own (``PostgresBulkLoad``), a batch at a time; `finish` then runs as a transaction on
    /// that connection, and the documents it does not write itself are copied into the store in it.
    /// `finish` is told whether any write committed since the bulk write began (the clock row moved).
    public func bulkWrite<T: Sendable>(
        produce: sending (_ bulk: BulkWrite) async throws -> Void,
        finish: @Sendable (_ transaction: Transaction, _ changed: Bool) async throws -> T
    ) async throws -> T {
        try await refuseBulkWritesUnderRules()
        // Read before anything the producer reads; no schema yet reads as a version no clock has.
        let version = try await reading(orEmpty: "none") { connection in
            try connection.execute("SELECT last_ms FROM tweetcli_clock WHERE id = 1").first?.first ?? nil
        }
        let load = try PostgresBulkLoad(location: location)
        try await produce(BulkWrite(add: { try load.add($0, $1) }, sorter: PostgresRecordSorter(load)))
        // No await from here to the gate: a transaction of this process still open on the store's
        // connection ends first, and none starts in between.
        try await waitForTransactions()
        let bulkConnection = try load.finish()
        // The schema, if it is missing, on the store's own connection and in a transaction of its
        // own (the load's transaction is the commit's), once the last batch was found sound.
        _ = try writableConnection()
        let number = gate.open()
        let previous = connection
        connection = bulkConnection
        defer {
            connection = previous
            gate.close()
        }
        // No retry: a failed try leaves the connection, and its temporary tables, unusable.
        return try await attemptTransaction(number, since: version ?? "none", on: bulkConnection, finish) {
            connection, writes in
            // The documents `finish` writes are its own; the rest are copied over what the store has.
            let written = writes.map { write in
                switch write {
                case .set(let path, _), .update(let path, _), .delete(let path): path
                }
            }
            if !written.isEmpty {
                try connection.execute(
                    """
                    DELETE FROM tweetcli_bulk_documents b USING unnest($1::text[], $2::text[]) AS p(c, i)
                    WHERE b.collection = p.c COLLATE "C" AND b.id = p.i COLLATE "C"
                    """, Self.pathArrays(written))
            }
            try connection.execute(
                """
                INSERT INTO tweetcli_documents (collection, id, group_id, data)
                SELECT collection, id, group_id, data FROM tweetcli_bulk_documents
                ON CONFLICT (collection, id) DO UPDATE SET data = EXCLUDED.data
                """)
        }
    }

    /// The documents go to a bulk load's temporary table a batch at a time, so that a seed of ten
    /// million tweets holds one batch, not all of them (the protocol's default gathers them all);
    /// then, in the load's transaction, holding the clock row, the store is checked and they are
    /// copied in: into an empty table as ``bulkLoad(_:on:)`` loads one, else over what is there.
    public func importDocuments(
        requiringEmpty collection: String?,
        from produce: sending (_ add: (DocumentPath, JSONObject) throws -> Void) async throws -> Void
    ) async throws {
        try await refuseBulkWritesUnderRules()
        // An empty store's table takes the documents straight (a seed's millions are then written
        // once, not into a temporary table and again into the store's), so its schema comes first.
        if try writableConnection().execute("SELECT 1 FROM tweetcli_documents LIMIT 1").isEmpty {
            let load = try PostgresBulkLoad(location: location) { try self.emptyForLoad($0) }
            if load.loadsDirectly {
                try await produce { path, fields in try load.add(path, fields) }
                try await waitForTransactions()
                let connection = try load.finish()
                _ = try Self.commitTime(on: connection, now: clock())
                try restoreIndexes(afterLoadOn: connection)
                try connection.execute("COMMIT")
                return
            }
            try await importDocuments(requiringEmpty: collection, through: load, from: produce)
        } else {
            try await importDocuments(
                requiringEmpty: collection, through: try PostgresBulkLoad(location: location), from: produce)
        }
    }

    /// ``importDocuments(requiringEmpty:from:)`` through a temporary table.
    private func importDocuments(
        requiringEmpty collection: String?, through load: PostgresBulkLoad,
        from produce: sending (_ add: (DocumentPath, JSONObject) throws -> Void) async throws -> Void
    ) async throws {
        try await produce { path, fields in try load.add(path, fields) }
        // As in a bulk write: no transaction of this process open on the store's connection, the
        // last batch found sound (the load's transaction is the import's).
        try await waitForTransactions()
        let connection = try load.finish()
        _ = try writableConnection()
        _ = try Self.commitTime(on: connection, now: clock())
        if let collection {
            let query = try PostgresQuery(self.collection(collection).query.limit(to: 1), columns: "1")
            if try !connection.execute(query.sql, query.statement.parameters).isEmpty {
                throw StoreError.notEmpty(collection: collection)
            }
        }
        if try connection.execute("SELECT 1 FROM tweetcli_documents LIMIT 1").isEmpty {
            try withoutIndexes(on: connection) {
                try connection.execute(
                    """
                    INSERT INTO tweetcli_documents (collection, id, group_id, data)
                    SELECT collection, id, group_id, data FROM tweetcli_bulk_documents
                    """)
            }
        } else {
            try connection.execute(
                """
                INSERT INTO tweetcli_documents (collection, id, group_id, data)
                SELECT collection, id, group_id, data FROM tweetcli_bulk_documents
                ON CONFLICT (collection, id) DO UPDATE SET data = EXCLUDED.data
                """)
        }
        try connection.execute("COMMIT")
    }

    public func importDocuments(_ documents: [(DocumentPath, JSONObject)], requiringEmpty collection: String?)
        async throws
    {
        try await waitForTransactions()
        try writingInOneTransaction { connection in
            if let collection {
                let query = try PostgresQuery(self.collection(collection).query.limit(to: 1), columns: "1")
                if try !connection.execute(query.sql, query.statement.parameters).isEmpty {
                    throw StoreError.notEmpty(collection: collection)
                }
            }
            if try connection.execute("SELECT 1 FROM tweetcli_documents LIMIT 1").isEmpty {
                try bulkLoad(documents, on: connection)
            } else {
                // Batches of a few thousand rows: one statement each, one transaction for all. Of
                // two writes to one path the later wins (one statement cannot write a row twice).
                var last: [DocumentPath: Int] = [:]
                for (position, (path, _)) in documents.enumerated() { last[path] = position }
                var batch: [JSONValue] = []
                for (position, (path, fields)) in documents.enumerated() where last[path] == position {
                    batch.append(
                        Self.row(path, fields))
                    if batch.count == 4096 {
                        try Self.upsert(batch, on: connection)
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                try Self.upsert(batch, on: connection)
            }
        }
    }

    /// Adds the documents the table does not have, in one transaction that holds the clock row (so
    /// no writer comes in between): the paths are read a few thousand at a time, then the new
    /// documents inserted in batches.
    public func mergeDocuments(_ documents: [(DocumentPath, JSONObject)]) async throws -> MergeReport {
        let latest = MergeReport.latest(documents)
        try await waitForTransactions()
        return try writingInOneTransaction { connection in
            var report = MergeReport()
            var batch: [JSONValue] = []
            for start in stride(from: 0, to: latest.count, by: 4096) {
                let chunk = latest[start..<min(start + 4096, latest.count)]
                var stored: [DocumentPath: JSONObject] = [:]
                for snapshot in try Self.documents(at: chunk.map(\.0), on: connection) {
                    stored[snapshot.path] = snapshot.data
                }
                for (path, fields) in chunk {
                    if let existing = stored[path] {
                        report.count(existing, against: fields, at: path)
                        continue
                    }
                    batch.append(
                        Self.row(path, fields))
                    report.added += 1
                }
                try Self.upsert(batch, on: connection)
                batch.removeAll(keepingCapacity: true)
            }
            return report
        }
    }

    /// Runs `body` in one transaction that holds the clock row (so no writer comes in between),
    /// committed when it returns and rolled back when it throws.
    /// A seed, an import or a merge writes many documents at once, past the rules: a database set
    /// up for many people refuses them, its owner's included.
    private func refuseBulkWritesUnderRules() async throws {
        try await waitForTransactions()
        try checkSchema(try connected())
        guard !writesThroughRules else { throw PostgresError.unreachable(name, reason: PostgresError.bulkUnderRules) }
    }

    private func writingInOneTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try writableConnection()
        guard !writesThroughRules else { throw PostgresError.unreachable(name, reason: PostgresError.bulkUnderRules) }
        // A bulk load lifts the deadline for its transaction; the next one has it again.
        defer { connection.waitsWithoutDeadline = false }
        try connection.begin()
        do {
            _ = try Self.commitTime(on: connection, now: clock())
            let result = try body(connection)
            try connection.execute("COMMIT")
            return result
        } catch {
            // As above: the first error is the one to report, and a connection left in a
            // transaction is not reused.
            if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// A document as the `{"c", "i", "g", "d"}` object ``upsert(_:on:)`` inserts.
    private static func row(_ path: DocumentPath, _ fields: JSONObject) -> JSONValue {
        .object([
            "c": .string(path.collection), "i": .string(path.documentID),
            "g": .string(groupID(of: path.collection)), "d": .object(fields),
        ])
    }

    /// Loads an empty table the fast way, inside the caller's transaction (see
    /// ``withoutIndexes(on:_:)``), the rows streamed with COPY (the later of two writes to one path
    /// wins, as everywhere).
    private func bulkLoad(_ documents: [(DocumentPath, JSONObject)], on connection: PostgresConnection) throws {
        var last: [DocumentPath: Int] = [:]
        for (position, (path, _)) in documents.enumerated() { last[path] = position }
        try withoutIndexes(on: connection) {
            let rows = documents.enumerated().lazy.filter { last[$0.element.0] == $0.offset }.map { _, document in
                [
                    document.0.collection, document.0.documentID, Self.groupID(of: document.0.collection),
                    String(decoding: JSONValue.object(document.1).serialized(), as: UTF8.self),
                ]
            }
            try connection.copy(
                into: "tweetcli_documents", columns: ["collection", "id", "group_id", "data"], rows: rows, freeze: true)
        }
    }

    /// Fills the empty table with `fill`, inside the caller's transaction, with every index, the
    /// primary key too, dropped first and built once after the rows are in (a sort, instead of a
    /// random insert per row), with memory enough to sort in it. Truncating the table in this
    /// transaction lets COPY write the rows frozen: no later pass over millions of rows to set
    /// their hint bits or freeze them.
    private func withoutIndexes(on connection: PostgresConnection, _ fill: () throws -> Void) throws {
        try dropIndexes(forLoadOn: connection)
        try fill()
        try restoreIndexes(afterLoadOn: connection)
    }

    /// The first half of ``withoutIndexes(on:_:)``.
    private func dropIndexes(forLoadOn connection: PostgresConnection) throws {
        try connection.execute("SET LOCAL maintenance_work_mem = '512MB'")
        // A load of millions of documents takes longer than any statement of a command should:
        // no statement timeout for the rest of this transaction, on the server or here.
        try connection.execute("SET LOCAL statement_timeout = 0")
        connection.waitsWithoutDeadline = true
        try connection.execute("TRUNCATE tweetcli_documents")
        try connection.execute("ALTER TABLE tweetcli_documents DROP CONSTRAINT tweetcli_documents_pkey")
        // Made by the first builds of this schema for collection-group queries without an index of
        // their own; the services have none, and keeping it up made every seed slower.
        try connection.execute("DROP INDEX IF EXISTS tweetcli_documents_group")
        for index in indexes { try connection.execute("DROP INDEX IF EXISTS \(PostgresSQL.indexName(index))") }
    }

    /// The second half of ``withoutIndexes(on:_:)``.
    /// - Throws: ``StoreError/duplicateDocument(path:)`` for a path loaded twice.
    private func restoreIndexes(afterLoadOn connection: PostgresConnection) throws {
        try connection.execute("SAVEPOINT tweetcli_key")
        do {
            try connection.execute("ALTER TABLE tweetcli_documents ADD PRIMARY KEY (collection, id)")
        } catch PostgresError.statement(state: "23505", _) {
            // The server's message names the index, not the key: the rows say which path it was.
            try connection.execute("ROLLBACK TO SAVEPOINT tweetcli_key")
            let twice = try connection.execute(
                "SELECT collection, id FROM tweetcli_documents GROUP BY 1, 2 HAVING count(*) > 1 LIMIT 1"
            ).first
            guard let twice, twice.count == 2, let collection = twice[0], let id = twice[1] else {
                throw StoreError.duplicateDocument(path: "a document of the bulk write")
            }
            throw StoreError.duplicateDocument(path: DocumentPath(collection: collection, documentID: id).description)
        }
        for index in indexes { try connection.execute(try PostgresSQL.createIndex(index)) }
        try connection.execute("ANALYZE tweetcli_documents")
    }

    /// Makes the store's table ready to take a bulk load straight, in the load's transaction, if
    /// it is empty: the clock row held first (every writer takes it before the table, so no
    /// deadlock) for the whole load, then the table itself, found empty again and emptied of its
    /// indexes. Commands of other processes wait meanwhile, within their timeouts.
    private func emptyForLoad(_ connection: PostgresConnection) throws -> Bool {
        try connection.execute("SELECT 1 FROM tweetcli_clock WHERE id = 1 FOR UPDATE")
        try connection.execute("LOCK TABLE tweetcli_documents IN ACCESS EXCLUSIVE MODE")
        guard try connection.execute("SELECT 1 FROM tweetcli_documents LIMIT 1").isEmpty else { return false }
        try dropIndexes(forLoadOn: connection)
        return true
    }

    public func exportDocuments(_ body: @Sendable ([DocumentSnapshot]) throws -> Void) async throws {
        try await reading(orEmpty: ()) { connection in
            // One snapshot for the whole export; pages by key in the order every engine exports.
            try connection.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY")
            // Ending a read-only snapshot cannot lose anything; if it fails, the connection is left
            // in a transaction and not reused.
            defer { _ = try? connection.execute("COMMIT") }
            var after: (String, String)?
            while true {
                var parameters: [String?] = []
                var condition = ""
                if let after {
                    parameters = [after.0, after.1]
                    condition = "WHERE (collection, id) > ($1::text COLLATE \"C\", $2::text COLLATE \"C\")"
                }
                let rows = try connection.execute(
                    "SELECT collection, id, data::text FROM "
                        + (connection.isSplit ? PostgresSQL.privateUnion : PostgresSQL.documents)
                        + " AS t \(condition) ORDER BY collection, id LIMIT 1024",
                    parameters)
                let page = try rows.map(Self.snapshot)
                guard let last = page.last else { return }
                try body(page)
                after = (last.path.collection, last.path.documentID)
                if page.count < 1024 { return }
            }
        }
    }

    /// A read of the open transaction `number`, on its connection.
    fileprivate func transactionRead<T>(_ number: Int, _ body: (PostgresConnection) throws -> T) throws -> T {
        guard gate.isOpen(number), let connection else { throw TransactionGate.readAfterEnd(name) }
        return try body(connection)
    }

    fileprivate static func transactionDocument(_ path: DocumentPath, _ connection: PostgresConnection) throws
        -> JSONObject?
    {
        try document(at: path, on: connection)?.data
    }

    fileprivate static func transactionDocuments(_ paths: [DocumentPath], _ connection: PostgresConnection) throws
        -> [DocumentSnapshot]
    {
        try documents(at: paths, on: connection)
    }

    fileprivate static func transactionQuery(_ query: Query, _ connection: PostgresConnection) throws
        -> [DocumentSnapshot]
    {
        try run(query, on: connection)
    }
}

/// Reads of one PostgreSQL transaction, on the connection that holds it.
private struct PostgresTransactionReader: TransactionReader {
    let store: PostgresDocumentStore
    let number: Int
    let reads: TransactionReads

    func document(at path: DocumentPath) async throws -> JSONObject? {
        let fields = try await store.transactionRead(number) { try PostgresDocumentStore.transactionDocument(path, $0) }
        reads.documents.withLock { $0[path] = .some(fields) }
        return fields
    }

    func documents(at paths: [DocumentPath]) async throws -> [DocumentPath: JSONObject?] {
        let found = try await store.transactionRead(number) {
            try PostgresDocumentStore.transactionDocuments(paths, $0)
        }
        var byPath: [DocumentPath: JSONObject?] = [:]
        for path in paths { byPath[path] = .some(nil) }
        for snapshot in found { byPath[snapshot.path] = .some(snapshot.data) }
        reads.documents.withLock { known in
            for (path, fields) in byPath { known[path] = fields }
        }
        return byPath
    }

    func query(_ query: Query) async throws -> [DocumentSnapshot] {
        let found = try await store.transactionRead(number) { try PostgresDocumentStore.transactionQuery(query, $0) }
        // The whole documents are what the commit resolves updates against; the body gets the selection.
        reads.documents.withLock { known in
            for snapshot in found { known[snapshot.path] = .some(snapshot.data) }
        }
        return found.map(query.projected)
    }
}

/// What a transaction's body read, by path (`nil` inside: read and not there), so that its commit
/// resolves updates against them without reading them again.
private final class TransactionReads: Sendable {
    let documents = Mutex<[DocumentPath: JSONObject?]>([:])
}
