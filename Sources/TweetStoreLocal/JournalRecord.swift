import FoundationEssentials
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// One committed transaction: a journal line `{"crc":"<8 hex>","tx":{"ops":[…],"seq":N,"time":"…"}}`.
///
/// The CRC-32 covers the exact bytes of the `tx` value, so any changed byte is caught, even one
/// that leaves valid JSON.
struct JournalRecord: Equatable {
    enum Operation: Equatable {
        case set(DocumentPath, JSONObject)
        case delete(DocumentPath)
    }

    var sequence: Int64
    var time: Date
    var operations: [Operation]

    /// Why `sequence` cannot come where it does, or `nil` when it can. Records in a journal follow
    /// one another by one (a gap is a lost record, a repeat or a step back a duplicated or moved
    /// one), and the first one continues what the segments hold.
    /// - Parameters:
    ///   - previous: the sequence of the record before it in the journal, if there is one.
    ///   - folded: the last sequence the segments hold (the manifest's `foldedSequence`).
    static func sequenceProblem(_ sequence: Int64, after previous: Int64?, folded: Int64) -> String? {
        if let previous {
            guard sequence != previous + 1 else { return nil }
            return sequence <= previous
                ? "record \(sequence) comes after record \(previous): a repeated or moved record"
                : "record \(sequence) follows record \(previous): \(sequence - previous - 1) record(s) are missing"
        }
        guard sequence > folded + 1 else { return nil }
        return "the journal starts at record \(sequence), after the segments' \(folded): "
            + "\(sequence - folded - 1) record(s) are missing"
    }

    init(sequence: Int64, time: Date, operations: [Operation]) {
        self.sequence = sequence
        self.time = time
        self.operations = operations
    }

    /// The record's line, newline included.
    func line() -> [UInt8] {
        let ops: [JSONValue] = operations.map { operation in
            switch operation {
            case .set(let path, let fields):
                return .object(["op": .string("set"), "path": .string(path.description), "data": .object(fields)])
            case .delete(let path):
                return .object(["op": .string("delete"), "path": .string(path.description)])
            }
        }
        let body = JSONValue.object([
            "seq": .integer(sequence), "time": .string(Timestamp.string(from: time)), "ops": .array(ops),
        ]).serialized()
        return ChecksummedLine.encode(key: "tx", payload: body)
    }

    /// A record read without its documents' fields: its sequence, time, and each operation's
    /// kind and path. Replaying a journal reads every record this way first, then in full only the
    /// records that hold the newest operation on some path (a tweet liked and unliked fifty times
    /// is read once). The skipped fields are checked as strictly as parsed ones.
    struct Outline {
        var sequence: Int64
        var time: Date
        var operations: [OutlinedOperation]

        var paths: [DocumentPath] { operations.map(\.path) }
        var data: [Range<Int>?] { operations.map(\.data) }
    }

    /// One operation of an outline.
    struct OutlinedOperation {
        var path: DocumentPath
        /// Where a set's `data` object is in the line (indices of the slice given to
        /// ``outline(line:file:lineNumber:)``); `nil` for a delete. Parsed alone, those bytes give
        /// what the full read gives: the walk checked them as strictly.
        var data: Range<Int>?
    }

    static func outline(line: ArraySlice<UInt8>, file: String, lineNumber: Int) throws -> Outline {
        func damaged(_ reason: String) -> StoreError {
            StoreError.corruptRecord(file: file, line: lineNumber, reason: reason)
        }
        let body = try checkedBody(line, damaged: damaged)
        if let outline = body.withUnsafeBufferPointer({ Canonical.outline($0, offset: body.startIndex) }) {
            return outline
        }
        // Walked with a cursor: no object is built, no field of a document decoded. What the full
        // read would refuse is refused here too, and for the same reason first: the JSON, then
        // seq, time and ops, then each operation in order.
        var sequence: Int64?
        var timeText: String?
        var operations: (list: [OutlinedOperation], problem: String?)?
        do {
            try body.withUnsafeBufferPointer { (buffer) throws(JSONParseError) in
                var cursor = JSONCursor(buffer)
                guard cursor.peek() == UInt8(ascii: "{") else {
                    try cursor.skipValue()
                    try cursor.finish()
                    return
                }
                try cursor.enterObject()
                while let key = try cursor.nextKey(among: Keys.record) {
                    switch key {
                    case 0: sequence = try cursor.readValue().integerValue
                    case 1: timeText = try cursor.readValue().stringValue
                    case 2: operations = try outlineOperations(&cursor, offset: body.startIndex)
                    default: try cursor.skipValue()
                    }
                }
                try cursor.finish()
            }
        } catch {
            throw damaged("invalid JSON: \(error)")
        }
        guard let sequence, let timeText, let time = Timestamp.date(from: timeText), let operations else {
            throw damaged("missing seq, time or ops")
        }
        if let problem = operations.problem { throw damaged(problem) }
        return Outline(sequence: sequence, time: time, operations: operations.list)
    }

    /// The outline of a record exactly as ``line()`` writes it (keys in order, no whitespace,
    /// plain ASCII paths and time, a positive sequence), read by comparing its fixed parts as bytes
    /// and walking only the documents (as strictly as the cursor walks them). Anything else, a
    /// damaged record included, is left to the cursor, which finds the same outline or the reason.
    enum Canonical {
        static func outline(_ buffer: UnsafeBufferPointer<UInt8>, offset: Int) -> Outline? {
            var index = 0
            func skip(_ literal: StaticString) -> Bool {
                let count = literal.utf8CodeUnitCount
                guard index + count <= buffer.count,
                    memcmp(buffer.baseAddress! + index, literal.utf8Start, count) == 0
                else { return false }
                index += count
                return true
            }
            /// A plain string's text, its quotes passed.
            func plainString() -> UnsafeBufferPointer<UInt8>? {
                guard let end = JSONValue.plainStringEnd(in: buffer, at: index) else { return nil }
                defer { index = end + 1 }
                return UnsafeBufferPointer(rebasing: buffer[(index + 1)..<end])
            }
            guard buffer.baseAddress != nil, skip(#"{"ops":["#) else { return nil }
            var operations: [OutlinedOperation] = []
            if !skip("]") {
                repeat {
                    var data: Range<Int>?
                    if skip(#"{"data":"#) {
                        // The data's depth in the record: the record, `ops` and the operation.
                        let start = index
                        guard start < buffer.count, buffer[start] == UInt8(ascii: "{"),
                            let end = skipDocument(buffer, at: start, depth: 3)
                        else { return nil }
                        index = end
                        guard skip(#","op":"set","path":"#) else { return nil }
                        data = (offset + start)..<(offset + end)
                    } else {
                        guard skip(#"{"op":"delete","path":"#) else { return nil }
                    }
                    guard let text = plainString(), let path = DocumentPath(utf8: text), skip("}") else { return nil }
                    operations.append(OutlinedOperation(path: path, data: data))
                } while skip(",")
                guard skip("]") else { return nil }
            }
            guard skip(#","seq":"#), let sequence = positiveInteger(buffer, &index), skip(#","time":"#) else {
                return nil
            }
            guard let text = plainString(), let time = Timestamp.date(from: String(decoding: text, as: UTF8.self)),
                skip("}"), index == buffer.count
            else { return nil }
            return Outline(sequence: sequence, time: time, operations: operations)
        }

        /// The end of the document at `start`, walked as the cursor walks it; `nil` where the
        /// cursor would refuse it (and then says why).
        private static func skipDocument(_ buffer: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int) -> Int? {
            do {
                return try JSONValue.skipValue(in: buffer, at: start, depth: depth)
            } catch {
                return nil
            }
        }

        /// `1`–`999999999999999999` as JSON writes it (no sign, no leading zero, no fraction):
        /// what the parse reads as that integer. Anything else is the cursor's to read.
        private static func positiveInteger(_ buffer: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int64? {
            var value: Int64 = 0
            var digits = 0
            while index < buffer.count, (48...57).contains(buffer[index]), digits < 18 {
                if digits == 0 && buffer[index] == 48 { return nil }
                value = value * 10 + Int64(buffer[index] - 48)
                digits += 1
                index += 1
            }
            guard digits > 0, index < buffer.count, !(48...57).contains(buffer[index]) else { return nil }
            return value
        }
    }

    /// The keys and operation kinds the outline knows, compared as bytes.
    private enum Keys {
        static let record = ["seq", "time", "ops"].map { Array($0.utf8) }
        static let operation = ["op", "path", "data"].map { Array($0.utf8) }
        /// `set` and `delete`; any other value of `op` is an unknown operation.
        static let kinds = ["set", "delete"].map { Array($0.utf8) }
    }

    /// The `ops` array's operations (their `data` as indices of the cursor's buffer moved by
    /// `offset`) and the first operation's problem, as the full read words it; `nil` when `ops` is
    /// not an array. The walk goes on past a problem: invalid JSON after it is refused first.
    private static func outlineOperations(_ cursor: inout JSONCursor, offset: Int) throws(JSONParseError) -> (
        list: [OutlinedOperation], problem: String?
    )? {
        guard cursor.peek() == UInt8(ascii: "[") else {
            try cursor.skipValue()
            return nil
        }
        var list: [OutlinedOperation] = []
        var problem: String?
        try cursor.enterArray()
        while try cursor.nextElement() {
            // An operation that is not an object has no path.
            var kind: Int?
            var path: DocumentPath?
            var data: Range<Int>?
            if cursor.peek() == UInt8(ascii: "{") {
                try cursor.enterObject()
                while let key = try cursor.nextKey(among: Keys.operation) {
                    switch key {
                    case 0: kind = try cursor.readString(among: Keys.kinds)
                    case 1: path = try cursor.readPath()
                    case 2:
                        let isObject = cursor.peek() == UInt8(ascii: "{")
                        let bytes = try cursor.skipValueBytes()
                        data = isObject ? (offset + bytes.lowerBound)..<(offset + bytes.upperBound) : nil
                    default: try cursor.skipValue()
                    }
                }
            } else {
                try cursor.skipValue()
            }
            guard problem == nil else { continue }
            guard let path else {
                problem = "an operation without a valid path"
                continue
            }
            switch kind {
            case 0:
                guard data != nil else {
                    problem = "a set without data"
                    continue
                }
                list.append(OutlinedOperation(path: path, data: data))
            case 1: list.append(OutlinedOperation(path: path, data: nil))
            default: problem = "an unknown operation"
            }
        }
        return (list, problem)
    }

    /// Parses and verifies one line (without its newline).
    init(line: ArraySlice<UInt8>, file: String, lineNumber: Int) throws {
        let (sequence, time, operations) = try Self.read(line, file: file, lineNumber: lineNumber)
        self.init(sequence: sequence, time: time, operations: operations)
    }

    /// The `tx` value of a line whose checksum matches.
    private static func checkedBody(_ line: ArraySlice<UInt8>, damaged: (String) -> StoreError) throws -> ArraySlice<
        UInt8
    > {
        do {
            return try ChecksummedLine.decode(key: "tx", line: line)
        } catch {
            throw damaged(error == .checksum ? "checksum mismatch" : "not a journal record")
        }
    }

    /// A record's sequence, time and operations, every part checked.
    private static func read(_ line: ArraySlice<UInt8>, file: String, lineNumber: Int) throws -> (
        Int64, Date, [Operation]
    ) {
        func damaged(_ reason: String) -> StoreError {
            StoreError.corruptRecord(file: file, line: lineNumber, reason: reason)
        }
        let body = try checkedBody(line, damaged: damaged)
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            throw damaged("invalid JSON: \(error)")
        }
        guard case .object(let tx) = value, let sequence = tx["seq"]?.integerValue,
            let timeText = tx["time"]?.stringValue, let time = Timestamp.date(from: timeText),
            case .array(let ops)? = tx["ops"]
        else { throw damaged("missing seq, time or ops") }
        var operations: [Operation] = []
        operations.reserveCapacity(ops.count)
        for op in ops {
            guard case .object(let fields) = op, let pathText = fields["path"]?.stringValue,
                let path = DocumentPath(pathText)
            else { throw damaged("an operation without a valid path") }
            switch fields["op"]?.stringValue {
            case "set":
                guard case .object(let data)? = fields["data"] else { throw damaged("a set without data") }
                operations.append(.set(path, data))
            case "delete":
                operations.append(.delete(path))
            default:
                throw damaged("an unknown operation")
            }
        }
        return (sequence, time, operations)
    }
}
