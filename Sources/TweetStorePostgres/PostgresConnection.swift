import CLibPQ
import FoundationEssentials
import Synchronization
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One libpq connection: statements with bound parameters (`PQexecParams`, text format), never
/// values spliced into SQL.
package final class PostgresConnection {
    private let pq: LibPQ
    private let connection: OpaquePointer
    /// How errors name the server: host, port and database, never the connection string (it may
    /// hold a password).
    let name: String
    /// How long a statement's answer is waited for (the statement timeout and a little more), or
    /// `nil` for as long as it takes: a server that stops answering ends the command.
    private let deadline: Duration?
    /// Set when a statement's answer did not come in time: the connection is in an unknown state
    /// and is never used again.
    private var abandoned = false
    /// Set for the rest of a bulk load's transaction, whose statements (a COPY of millions of rows,
    /// the indexes built over them, the commit that writes them out) take as long as they take.
    package var waitsWithoutDeadline = false
    /// Whether the server refused start-up options, as a pooler in front of PostgreSQL (PgBouncer)
    /// does: then no session state (a `LISTEN`, a temporary table) outlives a transaction.
    package let isPooled: Bool
    /// Whether the database was set up for many people, its documents split in a public and a
    /// private table (see ``PostgresAccountsSQL/split()``), as the store found when it connected.
    package var isSplit = false
    /// A statement to send with the next one, in the same round trip (libpq's pipeline mode): the
    /// schema's check, which a new connection's first read need not wait for.
    var prelude: String?
    /// What ``prelude`` came to, once sent: its rows, or its error.
    private var preludeOutcome: Result<[[String?]], PostgresError>?
    /// Reads to send after the next statements, in the same round trip: those a service said it
    /// would ask next (see ``PostgresDocumentStore/prefetch(_:)``). After the statements, so that
    /// one that fails leaves their answers as they are.
    var extras: [(sql: String, parameters: [String?])] = []
    /// What ``extras`` came to, once sent, with each statement, in their order.
    private var extraOutcomes:
        [(statement: (sql: String, parameters: [String?]), outcome: Result<[[String?]], PostgresError>)] = []
    /// The statement and lock timeouts, set in each transaction when the start-up packet could not.
    private let timeouts: PostgresTimeouts

    /// Connects with a libpq connection URI or `key=value` string.
    /// - Throws: ``PostgresError`` with one sentence a user can act on.
    package init(_ location: PostgresLocation) throws {
        name = location.displayName
        let pq = try LibPQ.get()
        self.pq = pq
        let given = location.options ?? PostgresLocation.environment("PGOPTIONS")
        let connectTimeout = location.effectiveConnectTimeout
        deadline = location.timeouts.clientDeadline(options: given)
        timeouts = location.timeouts
        let pooled = Self.pooled.withLock { $0.contains(location.connectionString) }
        var opened = try Self.open(
            pq, location, options: pooled ? nil : location.timeouts.serverOptions(before: given), name: name)
        if case .failure(let failure) = opened, failure.message.contains("unsupported startup parameter: options") {
            // A pooler (PgBouncer) that passes no start-up options on: the timeouts are then the
            // client's own deadline alone, and options the user asked for cannot be honoured.
            guard given?.isEmpty ?? true else {
                throw PostgresError.unreachable(
                    name,
                    reason: "the server (a pooler such as PgBouncer) takes no options; leave options out of the "
                        + "connection string and PGOPTIONS, and set them on the role with ALTER ROLE … SET")
            }
            _ = Self.pooled.withLock { $0.insert(location.connectionString) }
            opened = try Self.open(pq, location, options: nil, name: name)
        }
        isPooled = pooled || Self.pooled.withLock { $0.contains(location.connectionString) }
        let connection: OpaquePointer
        switch opened {
        case .success(let made): connection = made
        case .failure(let failure):
            let error = PostgresError.connecting(name, message: failure.message, timeout: connectTimeout)
            // A device's role that no longer logs in was ended: signed out, or its account's
            // password changed on another device.
            if location.device != nil, case .unreachable(_, let reason) = error,
                reason == PostgresError.refusedLogin || reason == PostgresError.unknownRole
            {
                throw PostgresError.unreachable(name, reason: PostgresError.endedDevice)
            }
            throw error
        }
        guard let encoding = pq.parameterStatus(connection, "client_encoding"), String(cString: encoding) == "UTF8"
        else {
            pq.finish(connection)
            throw PostgresError.unreachable(name, reason: "the server cannot speak UTF-8 to this client")
        }
        self.connection = connection
        // Notices (such as "relation already exists, skipping") are not the user's business.
        _ = pq.setNoticeProcessor(connection, { _, _ in }, nil)
    }

    /// The connection strings whose server refused start-up options, so that this process's
    /// other connections to it (a bulk load's, a watch's) do not try them again.
    private static let pooled = Mutex<Set<String>>([])

    /// One try at connecting, with `options` (the timeouts, and the string's own options) in the
    /// start-up packet or none; a refusal is libpq's message.
    private static func open(_ pq: LibPQ, _ location: PostgresLocation, options: String?, name: String) throws
        -> Result<OpaquePointer, ConnectFailure>
    {
        // `connect_timeout` before the connection string (expanded as `dbname`), so that the
        // string's own wins; after it, `client_encoding`, which overrides whatever it or
        // PGCLIENTENCODING says and goes in the start-up packet (text goes both ways as UTF-8, and
        // no `SET` costs a round trip), and `options` with the statement and lock timeouts ahead of
        // the string's own options (or PGOPTIONS, which an explicit `options` would hide).
        var texts = [
            ("connect_timeout", String(location.effectiveConnectTimeout)), ("dbname", location.connectionString),
            ("client_encoding", "UTF8"),
        ]
        if let device = location.device { texts += [("user", device.role), ("password", device.password)] }
        if let options { texts.append(("options", options)) }
        let strings: [UnsafeMutablePointer<CChar>?] = texts.map { strdup($0.0) } + texts.map { strdup($0.1) }
        defer { strings.forEach { free($0) } }
        let keywords: [UnsafePointer<CChar>?] = strings[0..<texts.count].map { UnsafePointer($0) } + [nil]
        let values: [UnsafePointer<CChar>?] = strings[texts.count...].map { UnsafePointer($0) } + [nil]
        guard let connection = pq.connectdbParams(keywords, values, 1) else {
            throw PostgresError.unreachable(name, reason: "libpq could not allocate a connection")
        }
        guard pq.status(connection) == CONNECTION_OK else {
            let message = text(pq.errorMessage(connection))
            pq.finish(connection)
            return .failure(ConnectFailure(message: message))
        }
        return .success(connection)
    }

    /// libpq's words for a connection it could not make.
    private struct ConnectFailure: Error {
        let message: String
    }

    deinit {
        pq.finish(connection)
    }

    /// Begins a transaction (`BEGIN` and `how`, such as an isolation level). Behind a pooler, which
    /// passed no timeouts on when the connection opened, the transaction sets its own (`SET LOCAL`,
    /// so that the pooled server connection goes back to the next client as it came).
    package func begin(_ how: String = "") throws {
        try execute(how.isEmpty ? "BEGIN" : "BEGIN " + how)
        if isPooled {
            try execute("SET LOCAL statement_timeout = '\(timeouts.statement)s'")
            try execute("SET LOCAL lock_timeout = '\(timeouts.lock)s'")
        }
    }

    /// ``begin(_:)``, then `first`, the transaction's first statement, in one round trip where the
    /// connection pipelines: `first`'s rows. If it fails, the transaction is left open, aborted,
    /// for the caller's `ROLLBACK`, as after any failed statement in one.
    package func begin(_ how: String = "", then first: (sql: String, parameters: [String?])) throws -> [[String?]] {
        guard prelude == nil, extras.isEmpty, isIdle, pq.pipeline != nil else {
            try begin(how)
            return try execute(first.sql, first.parameters)
        }
        var statements: [(sql: String, parameters: [String?])] = [(how.isEmpty ? "BEGIN" : "BEGIN " + how, [])]
        if isPooled {
            statements += [
                ("SET LOCAL statement_timeout = '\(timeouts.statement)s'", []),
                ("SET LOCAL lock_timeout = '\(timeouts.lock)s'", []),
            ]
        }
        let outcomes = try pipeline(statements + [first])
        // The first error is the one to report: a later statement's is only that it was skipped.
        for outcome in outcomes.dropLast() { _ = try outcome.get() }
        return try outcomes[outcomes.count - 1].get()
    }

    /// `password`'s SCRAM-SHA-256 verifier, made by libpq on this machine, so that the password
    /// itself never goes to the server.
    package func scramVerifier(_ password: String) throws -> String {
        guard let made = pq.encryptPasswordConn(connection, password, "tweetcli", "scram-sha-256") else {
            throw PostgresError.unreachable(name, reason: "libpq could not make a password's verifier")
        }
        defer { pq.freemem(made) }
        return String(cString: made)
    }

    /// Runs one statement with `parameters` bound as text (`nil` is SQL NULL).
    /// - Returns: the rows, each column as text or `nil` for NULL.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [String?] = []) throws -> [[String?]] {
        // Not with a BEGIN, whose isolation level must come before any statement of its transaction.
        // Only where executeTogether pipelines: otherwise it runs each statement through here.
        if prelude != nil || !extras.isEmpty, isIdle, pq.pipeline != nil, !sql.hasPrefix("BEGIN") {
            return try executeTogether([(sql, parameters)])[0]
        }
        let result = try run(sql, parameters)
        defer { pq.clear(result) }
        return rows(of: result)
    }

    /// Runs `statements` (none a `BEGIN`) in one round trip outside a transaction, with a pending
    /// ``prelude`` ahead of them and pending ``extras`` after; inside one, one after another. Each
    /// one's rows, in order; the first one's error, if any failed.
    func executeTogether(_ statements: [(sql: String, parameters: [String?])]) throws -> [[[String?]]] {
        guard isIdle, pq.pipeline != nil, statements.count > 1 || prelude != nil || !extras.isEmpty else {
            return try statements.map { try execute($0.sql, $0.parameters) }
        }
        let (ahead, after) = (prelude, extras)
        prelude = nil
        extras = []
        var outcomes = try pipeline((ahead.map { [($0, [])] } ?? []) + statements + after)
        if ahead != nil { preludeOutcome = outcomes.removeFirst() }
        extraOutcomes = Array(zip(after, outcomes.suffix(after.count))).map { ($0, $1) }
        return try outcomes.prefix(statements.count).map { try $0.get() }
    }

    /// What ``extras`` came to, taken once: each statement with its rows or error, in order; empty
    /// when they were not sent.
    func takeExtraOutcomes()
        -> [(statement: (sql: String, parameters: [String?]), outcome: Result<[[String?]], PostgresError>)]
    {
        defer { extraOutcomes = [] }
        return extraOutcomes
    }

    /// What ``prelude`` came to, taken once: `nil` when it was not sent (yet).
    func takePreludeOutcome() -> Result<[[String?]], PostgresError>? {
        defer { preludeOutcome = nil }
        return preludeOutcome
    }

    /// Runs `statements` in one round trip (libpq's pipeline mode, one sync at the end), outside a
    /// transaction: together they are one implicit transaction, so one that fails leaves the
    /// rest not run. Each statement's rows or error, in order.
    private func pipeline(_ statements: [(sql: String, parameters: [String?])]) throws
        -> [Result<[[String?]], PostgresError>]
    {
        guard !abandoned else { throw PostgresError.lost(name, message: "it stopped answering") }
        guard let mode = pq.pipeline else { throw PostgresError.lost(name, message: "this libpq has no pipeline mode") }
        // Refused before anything is sent, so that the connection stays as it was.
        if statements.contains(where: { $0.parameters.contains { $0?.utf8.contains(0) == true } }) {
            throw PostgresError.statement(state: "22021", message: "a value holds the character U+0000")
        }
        guard mode.enter(connection) == 1 else {
            throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection)))
        }
        var outcomes: [Result<[[String?]], PostgresError>] = []
        do {
            for statement in statements { try send(statement.sql, statement.parameters) }
            guard mode.sync(connection) == 1 else {
                throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection)))
            }
            for _ in statements {
                var outcome: Result<[[String?]], PostgresError>?
                // Each statement has the server's statement timeout of its own, so the client's
                // deadline starts again with each.
                let start = ContinuousClock.now
                // A statement's results end with no result.
                while let result = try nextResult(since: start) {
                    defer { pq.clear(result) }
                    switch pq.resultStatus(result) {
                    case PGRES_COMMAND_OK, PGRES_TUPLES_OK: outcome = .success(rows(of: result))
                    case PGRES_PIPELINE_ABORTED:
                        outcome = .failure(.statement(state: "25P02", message: "an earlier statement failed"))
                    default: outcome = .failure(Self.error(pq, result, connection, name))
                    }
                }
                outcomes.append(outcome ?? .failure(.lost(name, message: "a statement had no answer")))
            }
            guard let sync = try nextResult(since: .now) else {
                throw PostgresError.lost(name, message: "the round trip did not end")
            }
            defer { pq.clear(sync) }
            guard pq.resultStatus(sync) == PGRES_PIPELINE_SYNC else {
                throw PostgresError.lost(name, message: "the round trip did not end")
            }
        } catch {
            // Half-way through a pipeline the connection is in no state to reuse.
            abandoned = true
            throw error
        }
        guard mode.exit(connection) == 1 else {
            abandoned = true
            throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection)))
        }
        return outcomes
    }

    /// The next result of what was sent, waiting no longer than ``deadline`` since `start`.
    private func nextResult(since start: ContinuousClock.Instant) throws -> OpaquePointer? {
        while pq.isBusy(connection) == 1 {
            try waitForInput(since: start)
            guard pq.consumeInput(connection) == 1 else {
                throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection)))
            }
        }
        return pq.getResult(connection)
    }

    /// A result's rows, each column as text or `nil` for NULL.
    private func rows(of result: OpaquePointer) -> [[String?]] {
        let rows = Int(pq.ntuples(result))
        let columns = Int(pq.nfields(result))
        var table: [[String?]] = []
        table.reserveCapacity(rows)
        for row in 0..<rows {
            var values: [String?] = []
            values.reserveCapacity(columns)
            for column in 0..<columns {
                if pq.getisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(Self.text(pq.getvalue(result, Int32(row), Int32(column))))
                }
            }
            table.append(values)
        }
        return table
    }

    /// Sends one statement with `parameters` bound as text, without waiting for its answer.
    private func send(_ sql: String, _ parameters: [String?]) throws {
        // A C string ends at its first NUL: a value holding one would reach the server cut short.
        if parameters.contains(where: { $0?.utf8.contains(0) == true }) {
            throw PostgresError.statement(state: "22021", message: "a value holds the character U+0000")
        }
        // The parameters as C strings that live until PQsendQueryParams returns.
        let storage = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for pointer in storage { free(pointer) } }
        let pointers: [UnsafePointer<CChar>?] = storage.map { $0.map { UnsafePointer($0) } }
        guard !abandoned else { throw PostgresError.lost(name, message: "it stopped answering") }
        let sent = pointers.withUnsafeBufferPointer { buffer in
            pq.sendQueryParams(connection, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        guard sent == 1 else {
            throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection)))
        }
    }

    private func run(_ sql: String, _ parameters: [String?], expectCopy: Bool = false) throws -> OpaquePointer {
        try send(sql, parameters)
        guard let result = try awaitResult() else {
            throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection)))
        }
        switch pq.resultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        case PGRES_COPY_IN where expectCopy:
            return result
        default:
            let error = Self.error(pq, result, connection, name)
            pq.clear(result)
            throw error
        }
    }

    /// The result of the statement just sent, as `PQexec` would give it (the last one, or the first
    /// COPY state), waiting on the socket no longer than ``deadline`` for each part of it.
    private func awaitResult() throws -> OpaquePointer? {
        let start = ContinuousClock.now
        var last: OpaquePointer?
        while true {
            let next: OpaquePointer?
            do {
                next = try nextResult(since: start)
            } catch {
                if let last { pq.clear(last) }
                throw error
            }
            guard let result = next else { return last }
            switch pq.resultStatus(result) {
            case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
                // libpq hands a COPY state out again at every call: it is the answer, for now.
                if let last { pq.clear(last) }
                return result
            default:
                if let last { pq.clear(last) }
                last = result
            }
        }
    }

    /// Waits until the server's socket has something to read, or throws once ``deadline`` has
    /// passed since `start`: a silent server ends the command with a sentence instead of hanging it.
    private func waitForInput(since start: ContinuousClock.Instant) throws {
        let socket = pq.socket(connection)
        guard socket >= 0 else { throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection))) }
        while true {
            var timeout: Int32 = -1
            if let deadline, !waitsWithoutDeadline {
                let left = start + deadline - ContinuousClock.now
                guard left > .zero else {
                    abandoned = true
                    throw PostgresError.silent(name, seconds: Int(deadline.components.seconds))
                }
                let (seconds, attoseconds) = left.components
                timeout = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, timeout)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR {
                throw PostgresError.lost(name, message: String(cString: strerror(errno)))
            }
        }
    }

    /// The socket to the server, to wait on for notifications (-1 when the connection is gone).
    var socket: Int32 { pq.socket(connection) }

    /// Reads what the server sent without waiting, and returns the payloads of the notifications
    /// among it, oldest first.
    /// - Throws: ``PostgresError/lost(_:message:)`` when the connection is gone.
    func notifications() throws -> [String] {
        guard pq.consumeInput(connection) == 1 else {
            throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection)))
        }
        var payloads: [String] = []
        while let notify = pq.notifies(connection) {
            payloads.append(Self.text(notify.pointee.extra))
            pq.freemem(notify)
        }
        return payloads
    }

    /// The error a failed result reports: a lost connection, or the statement's SQLSTATE and message.
    private static func error(_ pq: LibPQ, _ result: OpaquePointer, _ connection: OpaquePointer, _ name: String)
        -> PostgresError
    {
        let state = pq.resultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let message = pq.resultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
        let text = message ?? Self.text(pq.errorMessage(connection))
        if pq.status(connection) != CONNECTION_OK { return .lost(name, message: text) }
        return .statement(state: state, message: text)
    }

    /// Streams `rows` into `table` with `COPY … FROM STDIN` (libpq's `PQputCopyData`): each row's
    /// columns as text, escaped for COPY's text format.
    func copy(into table: String, columns: [String], rows: some Sequence<[String]>, freeze: Bool = false) throws {
        try beginCopy(into: table, columns: columns, freeze: freeze)
        try putCopyRows(rows)
        try endCopy()
    }

    /// Starts a `COPY … FROM STDIN` that ``putCopyRows(_:)`` feeds, as rows come, and ``endCopy()``
    /// ends: the server takes each batch in while the client makes the next.
    func beginCopy(into table: String, columns: [String], freeze: Bool = false) throws {
        let start = try run(
            "COPY \(table) (\(columns.joined(separator: ", "))) FROM STDIN\(freeze ? " WITH (FREEZE)" : "")", [],
            expectCopy: true)
        pq.clear(start)
    }

    /// Sends rows of the COPY under way, each row's columns as text, escaped for COPY's text format.
    func putCopyRows(_ rows: some Sequence<[String]>) throws {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        func flush() throws {
            let sent = buffer.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { pq.putCopyData(connection, $0.baseAddress, Int32($0.count)) }
            }
            guard sent == 1 else {
                throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection)))
            }
            buffer.removeAll(keepingCapacity: true)
        }
        for row in rows {
            for (index, column) in row.enumerated() {
                if index > 0 { buffer.append(0x09) }
                for byte in column.utf8 {
                    switch byte {
                    case 0x5C: buffer += [0x5C, 0x5C]  // backslash
                    case 0x09: buffer += [0x5C, 0x74]  // tab
                    case 0x0A: buffer += [0x5C, 0x6E]  // newline
                    case 0x0D: buffer += [0x5C, 0x72]  // carriage return
                    default: buffer.append(byte)
                    }
                }
            }
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 { try flush() }
        }
        if !buffer.isEmpty { try flush() }
    }

    /// Ends the COPY under way and waits for the server to say whether it took every row.
    func endCopy() throws {
        guard pq.putCopyEnd(connection, nil) == 1 else {
            throw PostgresError.lost(name, message: Self.text(pq.errorMessage(connection)))
        }
        var failure: PostgresError?
        while let result = pq.getResult(connection) {
            if pq.resultStatus(result) != PGRES_COMMAND_OK && failure == nil {
                failure = Self.error(pq, result, connection, name)
            }
            pq.clear(result)
        }
        if let failure { throw failure }
    }

    /// A C string from libpq, or "" for none.
    static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    /// Whether the connection is still up.
    var isConnected: Bool { !abandoned && pq.status(connection) == CONNECTION_OK }

    /// Whether the connection is up and outside any transaction or COPY: the only state a new
    /// command may start from.
    var isIdle: Bool { isConnected && pq.transactionStatus(connection) == PQTRANS_IDLE }
}

/// What can go wrong talking to PostgreSQL, in sentences that never hold a password.
enum PostgresError: Error, LocalizedError, Equatable {
    /// The server could not be reached or refused the connection.
    case unreachable(String, reason: String)
    /// The connection failed or broke mid-command.
    case lost(String, message: String)
    /// A statement failed; `state` is its SQLSTATE.
    case statement(state: String, message: String)
    /// The server took a statement's answer past the client's deadline.
    case silent(String, seconds: Int)

    /// The reasons for a refused user name or password, and for an unknown one.
    static let refusedLogin = "the user name or password was refused"
    static let unknownRole = "there is no such user on the server"
    static let bulkUnderRules =
        "it is set up for many people and takes writes only one transaction at a time, through its rules; "
        + "seed or import before admin setup"
    static let endedDevice =
        "this device's session has ended (signed out, or the password changed on another device); sign in again"

    /// A connection failure, named by its cause.
    static func connecting(_ name: String, message: String, timeout: Int) -> PostgresError {
        let lowered = message.lowercased()
        let reason: String
        if lowered.contains("timeout expired") {
            reason = "the server did not answer within \(timeout) seconds"
        } else if lowered.contains("certificate verify failed") {
            reason = "the server's certificate is not signed by an authority this client trusts (sslrootcert)"
        } else if lowered.contains("does not match host name") {
            reason = "the server's certificate is for another host name than the one connected to"
        } else if lowered.contains("root certificate file") || lowered.contains("could not read root certificate") {
            reason = "the certificate authority's file (sslrootcert) cannot be read"
        } else if lowered.contains("no encryption") {
            reason = "the server refuses this connection without TLS (sslmode)"
        } else if lowered.contains("server does not support ssl") {
            reason = "the server does not offer TLS, which the connection string asks for (sslmode)"
        } else if lowered.contains("password authentication failed") || lowered.contains("no password supplied")
            || lowered.contains("is not permitted to log in") || lowered.contains("sasl authentication failed")
        {
            reason = refusedLogin
        } else if lowered.contains("fatal:  database \"") && lowered.contains("does not exist") {
            reason = "there is no such database on the server"
        } else if lowered.contains("fatal:  role \"") && lowered.contains("does not exist") {
            reason = unknownRole
        } else if lowered.contains("no such file or directory") || lowered.contains("connection refused")
            || lowered.contains("could not connect") || lowered.contains("could not translate host name")
            || lowered.contains("network is unreachable") || lowered.contains("no route to host")
            || lowered.contains("host is unreachable") || lowered.contains("connection timed out")
        {
            reason = "the server is not running or not reachable there"
        } else {
            reason = Self.firstLine(message)
        }
        return .unreachable(name, reason: reason)
    }

    /// Whether a retry of the whole transaction may succeed (a serialization failure or deadlock).
    var isRetryable: Bool {
        if case .statement(let state, _) = self { return state == "40001" || state == "40P01" }
        return false
    }

    var errorDescription: String? {
        switch self {
        case .unreachable(let name, let reason):
            return "cannot connect to the PostgreSQL store \(name): \(reason)"
        case .lost(let name, let message):
            return "the connection to the PostgreSQL store \(name) was lost (\(Self.firstLine(message))); "
                + "a transaction it had not committed was rolled back"
        case .statement("57014", let message) where message.contains("statement timeout"):
            return "PostgreSQL stopped a statement that ran longer than the statement timeout; "
                + "a transaction it had not committed was rolled back"
        case .statement("55P03", let message) where message.contains("lock timeout"):
            return "another client held the PostgreSQL store's lock longer than the lock timeout; "
                + "a transaction that waited for it was rolled back"
        case .statement("42501", _):
            return "the PostgreSQL store refused this to the role connected: a store set up for many people "
                + "lets only a signed-in account read and write, and only its own"
        case .statement(let state, let message):
            return "PostgreSQL refused a statement (\(state)): \(Self.firstLine(message))"
        case .silent(let name, let seconds):
            return "the PostgreSQL store \(name) did not answer within \(seconds) seconds; "
                + "a transaction it had not committed was rolled back"
        }
    }

    private static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n").first ?? "").trimmedSpaces()
    }
}
