import FoundationEssentials
import Synchronization
import TweetStore

/// The server side of a PostgreSQL bulk write (see ``PostgresDocumentStore/bulkWrite(produce:finish:)``):
/// a connection of its own whose temporary tables take the produced documents and the records
/// sorted aside, a batch at a time with COPY, so that the client holds one batch, however many
/// there are. The server sorts the records; the commit runs on this connection too, since a
/// temporary table belongs to its session, and a session that ends (a killed process) drops them.
final class PostgresBulkLoad: Sendable {
    /// Rows gathered before they are copied: enough for COPY to pay, little enough to hold.
    static let batchRows = 4096
    static let batchBytes = 4 << 20

    private struct State {
        var connection: PostgresConnection?
        var documents: [[String]] = []
        var documentBytes = 0
        var records: [[String]] = []
        var recordBytes = 0
        var recordCount = 0
        /// Whether the records have been sorted (they are then read, and no more may come).
        var sorted = false
        var direct = false
        /// Whether a COPY into the store's table is under way (a direct load keeps one open from
        /// its first batch to its last).
        var copying = false
    }

    private let state: Mutex<State>
    private let name: String
    /// Whether the documents go straight into the store's own table (empty, without its indexes,
    /// which ``PostgresDocumentStore`` builds at the commit) rather than a temporary one.
    let loadsDirectly: Bool

    /// Opens the connection and, in the one transaction the whole load is, makes the temporary
    /// tables: a pooler in transaction mode (PgBouncer) keeps a client on one server connection
    /// only for a transaction, and a temporary table lives on its server connection.
    ///
    /// `intoEmptyTable`, run in that transaction first, may make the store's table ready to take
    /// the documents straight, and says whether it did.
    init(location: PostgresLocation, intoEmptyTable: ((PostgresConnection) throws -> Bool)? = nil) throws {
        let connection = try PostgresConnection(location)
        try connection.begin()
        // A load and the sort of millions of records take as long as they take; this connection
        // does nothing else, and the commit that ends it is as long as a bulk load's. Its
        // transaction is open while the producer works, however long it pauses between batches.
        // LOCAL, so that a pooled server connection goes back to the next client as it came.
        try connection.execute("SET LOCAL statement_timeout = 0")
        try connection.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
        connection.waitsWithoutDeadline = true
        try connection.execute("SET LOCAL work_mem = '64MB'")
        loadsDirectly = try intoEmptyTable?(connection) ?? false
        // A direct load's documents go to the store's table: no table of their own.
        if !loadsDirectly {
            try connection.execute(
                """
                CREATE TEMPORARY TABLE tweetcli_bulk_documents (
                  collection text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL, group_id text NOT NULL,
                  data jsonb NOT NULL, PRIMARY KEY (collection, id)) ON COMMIT DROP
                """)
        }
        try connection.execute(
            """
            CREATE TEMPORARY TABLE tweetcli_bulk_records (position bigint NOT NULL, key bytea NOT NULL,
              value bytea NOT NULL) ON COMMIT DROP
            """)
        name = location.displayName
        state = Mutex(State(connection: connection, direct: loadsDirectly))
    }

    /// Takes a produced document.
    /// - Throws: ``StoreError/duplicateDocument(path:)`` for a path given twice (found when its
    ///   batch is copied), or the server's errors.
    func add(_ path: DocumentPath, _ fields: JSONObject) throws {
        try state.withLock { state in
            let json = String(decoding: JSONValue.object(fields).serialized(), as: UTF8.self)
            state.documents.append([
                path.collection, path.documentID, PostgresDocumentStore.groupID(of: path.collection), json,
            ])
            state.documentBytes += json.utf8.count + path.collection.utf8.count + path.documentID.utf8.count
            if state.documents.count >= Self.batchRows || state.documentBytes >= Self.batchBytes {
                try Self.copyDocuments(&state)
            }
        }
    }

    /// Takes a record to sort aside.
    func addRecord(key: [UInt8], value: [UInt8]) throws {
        try state.withLock { state in
            guard !state.sorted else {
                throw StoreError.io(path: "a bulk write", reason: "its records were sorted already")
            }
            state.records.append([String(state.recordCount), Self.hex(key), Self.hex(value)])
            state.recordCount += 1
            state.recordBytes += 2 * (key.count + value.count) + 24
            if state.records.count >= Self.batchRows || state.recordBytes >= Self.batchBytes {
                try Self.copyRecords(&state)
            }
        }
    }

    /// The records, sorted by key (equal keys in the order they came) by the server, read a batch
    /// at a time from a cursor of the load's transaction.
    func sortedRecords() throws -> RecordStream {
        try state.withLock { state in
            guard !state.sorted, let connection = state.connection else {
                throw StoreError.io(path: "a bulk write", reason: "its records were sorted already")
            }
            try Self.endCopy(&state)
            try Self.copyRecords(&state)
            state.sorted = true
            try connection.execute(
                """
                DECLARE tweetcli_bulk_sorted NO SCROLL CURSOR FOR
                SELECT key, value FROM tweetcli_bulk_records ORDER BY key, position
                """)
        }
        var batch: [[String?]] = []
        var next = 0
        var ended = false
        return RecordStream { [self] in
            if next == batch.count {
                guard !ended else { return nil }
                batch = try state.withLock { state in
                    guard let connection = state.connection else {
                        throw StoreError.io(path: "a bulk write", reason: "its records were read after its commit")
                    }
                    return try connection.execute("FETCH \(Self.batchRows) FROM tweetcli_bulk_sorted")
                }
                next = 0
                ended = batch.count < Self.batchRows
                guard !batch.isEmpty else { return nil }
            }
            let row = batch[next]
            next += 1
            guard row.count == 2, let key = row[0].flatMap(Self.bytes), let value = row[1].flatMap(Self.bytes) else {
                throw StoreError.io(path: name, reason: "a sorted record came back damaged")
            }
            return (key, value)
        }
    }

    /// Copies what is gathered, and hands over the connection, still in the load's transaction,
    /// for the commit.
    func finish() throws -> PostgresConnection {
        try state.withLock { state in
            try Self.copyDocuments(&state)
            try Self.endCopy(&state)
            guard let connection = state.connection else {
                throw StoreError.io(path: "a bulk write", reason: "it was committed already")
            }
            state.connection = nil
            return connection
        }
    }

    private static func copyDocuments(_ state: inout State) throws {
        guard !state.documents.isEmpty, let connection = state.connection else { return }
        do {
            if state.direct {
                // Straight in, the rows written frozen, in one COPY that the server works through
                // while the producer makes the next batch; a path given twice is found when the
                // primary key is built.
                if !state.copying {
                    try connection.beginCopy(into: "tweetcli_documents", columns: columns, freeze: true)
                    state.copying = true
                }
                try connection.putCopyRows(state.documents)
            } else {
                try connection.copy(into: "tweetcli_bulk_documents", columns: columns, rows: state.documents)
            }
        } catch PostgresError.statement(state: "23505", _) {
            // The key the server names is the first repeated one; the batch says no more.
            throw StoreError.duplicateDocument(path: duplicate(in: state.documents) ?? "a document of the bulk write")
        }
        state.documents.removeAll(keepingCapacity: true)
        state.documentBytes = 0
    }

    /// A path given twice within `rows`, if the batch itself repeats one.
    private static func duplicate(in rows: [[String]]) -> String? {
        var seen = Set<[String]>()
        for row in rows where !seen.insert([row[0], row[1]]).inserted {
            return DocumentPath(collection: row[0], documentID: row[1]).description
        }
        return nil
    }

    private static let columns = ["collection", "id", "group_id", "data"]

    /// Ends a direct load's COPY, before the connection does anything else.
    private static func endCopy(_ state: inout State) throws {
        guard state.copying, let connection = state.connection else { return }
        state.copying = false
        try connection.endCopy()
    }

    private static func copyRecords(_ state: inout State) throws {
        try endCopy(&state)
        guard !state.records.isEmpty, let connection = state.connection else { return }
        try connection.copy(into: "tweetcli_bulk_records", columns: ["position", "key", "value"], rows: state.records)
        state.records.removeAll(keepingCapacity: true)
        state.recordBytes = 0
    }

    /// `bytes` as bytea's hex input, `\x` and two digits a byte.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [0x5C, 0x78]
        text.reserveCapacity(2 + 2 * bytes.count)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// bytea's hex output as bytes; `nil` for anything else.
    static func bytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == 0x5C, utf8[1] == 0x78, utf8.count % 2 == 0 else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x61...0x66: byte - 0x61 + 10
            case 0x41...0x46: byte - 0x41 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

/// A bulk write's records, sorted aside on the server.
final class PostgresRecordSorter: RecordSorter {
    private let load: PostgresBulkLoad

    init(_ load: PostgresBulkLoad) {
        self.load = load
    }

    func add(key: [UInt8], value: [UInt8]) throws {
        try load.addRecord(key: key, value: value)
    }

    func sorted() throws -> RecordStream {
        try load.sortedRecords()
    }
}
