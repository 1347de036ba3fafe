import Foundation

/// Turns `tweetcli export` (JSON Lines of `{"data":{…},"path":"collection/id"}`) into SQL for the
/// `sqlite3` or `psql` shell and measures the same documents as one plain JSON array, streaming: it holds a
/// few hundred rows at a time, never the data set.
struct ExportConverter {
    /// How many rows go into one `INSERT`: fewer statements for the shell to parse.
    static let rowsPerInsert = 500

    /// Documents read so far, credentials included.
    private(set) var documents = 0
    /// Rows written so far, by table name.
    private(set) var rowCounts: [String: Int] = [:]
    /// Bytes of all documents as they would appear in the plain JSON array, without separators.
    private var documentBytes = 0
    private var sql: DescriptorWriter
    private let engine: Engine
    private var pending: [String: [String]] = [:]
    /// How many captions hold each lowercase ASCII word (once per occurrence), to pick a rare one.
    private(set) var wordCounts: [String: Int] = [:]
    private let decoder = JSONDecoder()

    /// A converter writing SQL for `engine`'s peer database to `sql`.
    init(sql: DescriptorWriter, engine: Engine) {
        self.sql = sql
        self.engine = engine
    }

    /// The size in bytes of every document read, written as one plain JSON array: `[`, each
    /// document's data object with an added `"id"` field, joined by `,`, then `]`.
    var jsonArrayBytes: Int { 2 + documentBytes + max(0, documents - 1) }

    /// Writes the tables' definitions and opens the load's transaction.
    /// - Throws: ``BenchmarkError/io(path:reason:)``.
    mutating func begin() throws {
        try sql.append(PeerSchema.loadPrologue(engine))
    }

    /// Takes one export line: measures it and queues its row, if its collection has a table.
    /// Credentials, the `followers` mirror of each follow and unknown collections have none.
    /// - Throws: ``BenchmarkError/badExportLine(number:reason:)``, ``BenchmarkError/io(path:reason:)``.
    mutating func consume(_ line: Data, number: Int) throws {
        // A photo's bytes (`{"blob":…,"data":…}`, after the documents): the peer keeps no photos.
        if line.starts(with: Data("{\"blob\":".utf8)) { return }
        let record: ExportRecord
        do {
            record = try decoder.decode(ExportRecord.self, from: line)
        } catch {
            throw BenchmarkError.badExportLine(
                number: number, reason: "it is not a {\"data\":{…},\"path\":\"…\"} object")
        }
        let components = record.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard components.count >= 2, components.count.isMultiple(of: 2), components.allSatisfy({ !$0.isEmpty }) else {
            throw BenchmarkError.badExportLine(number: number, reason: "\"\(record.path)\" is not a document path")
        }
        let id = components[components.count - 1]
        documents += 1
        documentBytes += try Self.arrayDocumentSize(line: line, id: id, number: number)

        let fields = record.data
        func value(_ name: String) -> String { fields[name]?.sql ?? "NULL" }
        if components.count == 2, components[0] == "tweets", case .string(let caption)? = fields["caption"] {
            for word in caption.split(separator: " ") where word.utf8.allSatisfy({ (0x61...0x7A).contains($0) }) {
                wordCounts[String(word), default: 0] += 1
            }
        }
        switch (components.count, components[0], components.count == 4 ? components[2] : "") {
        case (2, "tweets", _):
            try add([SQL.literal(id)] + PeerSchema.tweets.columns.dropFirst().map(value), to: PeerSchema.tweets)
        case (2, "users", _):
            try add([SQL.literal(id)] + PeerSchema.users.columns.dropFirst().map(value), to: PeerSchema.users)
        case (4, "users", "user-likes"):
            try add([SQL.literal(components[1]), SQL.literal(id), value("timestamp")], to: PeerSchema.likes)
        case (4, "following", "user-following"):
            try add([SQL.literal(components[1]), SQL.literal(id)], to: PeerSchema.follows)
        case (2, "retweets", _):
            try add([value("uid"), value("tweetId"), value("timestamp")], to: PeerSchema.retweets)
        case (4, "users", "bookmarks"):
            try add([SQL.literal(components[1]), SQL.literal(id), value("timestamp")], to: PeerSchema.bookmarks)
        case (4, "users", "notifications"):
            try add(
                [
                    SQL.literal(components[1]), SQL.literal(id), value("type"), value("from"), value("tweetId"),
                    value("timestamp"),
                ],
                to: PeerSchema.notifications)
        default:
            break
        }
    }

    /// Writes the queued rows, builds the indexes, commits and flushes.
    /// - Throws: ``BenchmarkError/io(path:reason:)``.
    mutating func finish() throws {
        for table in PeerSchema.tables { try flush(table) }
        try sql.append(PeerSchema.loadEpilogue(engine))
        try sql.flush()
    }

    private mutating func add(_ values: [String], to table: PeerSchema.Table) throws {
        pending[table.name, default: []].append("(" + values.joined(separator: ",") + ")")
        rowCounts[table.name, default: 0] += 1
        if pending[table.name, default: []].count >= Self.rowsPerInsert { try flush(table) }
    }

    private mutating func flush(_ table: PeerSchema.Table) throws {
        guard let rows = pending[table.name], !rows.isEmpty else { return }
        let columns = table.columns.joined(separator: ", ")
        try sql.append("INSERT INTO \(table.name) (\(columns)) VALUES\n" + rows.joined(separator: ",\n") + ";\n")
        pending[table.name] = []
    }

    /// The bytes `line`'s document takes in the plain JSON array: its data object as the export
    /// wrote it, plus `"id":"…"` (and a comma unless the object is empty).
    private static func arrayDocumentSize(line: Data, id: String, number: Int) throws -> Int {
        let prefix = Data(#"{"data":"#.utf8)
        // `path` is the last key, and a quote inside its value would be escaped, so the last
        // `,"path":` is the key itself.
        guard line.starts(with: prefix), let key = line.range(of: Data(#","path":"#.utf8), options: .backwards) else {
            throw BenchmarkError.badExportLine(
                number: number, reason: "it does not start with \"data\" and end with \"path\"")
        }
        let dataBytes = key.lowerBound - line.startIndex - prefix.count
        let idField = #""id":"#.utf8.count + jsonStringLength(id)
        return dataBytes + idField + (dataBytes > 2 ? 1 : 0)
    }

    /// The length in bytes of `text` as a JSON string literal, quotes included.
    private static func jsonStringLength(_ text: String) -> Int {
        text.unicodeScalars.reduce(2) { length, scalar in
            switch scalar.value {
            case 0x22, 0x5C, 0x08, 0x0C, 0x0A, 0x0D, 0x09: return length + 2
            case 0..<0x20: return length + 6
            default: return length + UTF8.width(scalar)
            }
        }
    }
}
