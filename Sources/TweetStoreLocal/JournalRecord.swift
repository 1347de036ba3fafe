import FoundationEssentials
import TweetStore

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

    /// Parses and verifies one line (without its newline).
    /// A record read without its documents' fields: its sequence, time, and each operation's
    /// kind and path. Replaying a journal reads every record this way first, then in full only the
    /// records that hold the newest operation on some path (a tweet liked and unliked fifty times
    /// is read once). The skipped fields are checked as strictly as parsed ones.
    struct Outline {
        var sequence: Int64
        var time: Date
        var paths: [DocumentPath]
    }

    static func outline(line: ArraySlice<UInt8>, file: String, lineNumber: Int) throws -> Outline {
        let (sequence, time, operations) = try read(line, file: file, lineNumber: lineNumber, outlineOnly: true)
        return Outline(
            sequence: sequence, time: time,
            paths: operations.map {
                switch $0 {
                case .set(let path, _), .delete(let path): path
                }
            })
    }

    init(line: ArraySlice<UInt8>, file: String, lineNumber: Int) throws {
        let (sequence, time, operations) = try Self.read(line, file: file, lineNumber: lineNumber, outlineOnly: false)
        self.init(sequence: sequence, time: time, operations: operations)
    }

    /// A record's sequence, time and operations, every part checked; with `outlineOnly`, each set's
    /// fields are skipped (checked, not decoded) and come back empty.
    private static func read(_ line: ArraySlice<UInt8>, file: String, lineNumber: Int, outlineOnly: Bool) throws -> (
        Int64, Date, [Operation]
    ) {
        func damaged(_ reason: String) -> StoreError {
            StoreError.corruptRecord(file: file, line: lineNumber, reason: reason)
        }
        let body: ArraySlice<UInt8>
        do {
            body = try ChecksummedLine.decode(key: "tx", line: line)
        } catch {
            throw damaged(error == .checksum ? "checksum mismatch" : "not a journal record")
        }
        let value: JSONValue
        do {
            value = try body.withUnsafeBufferPointer { (buffer) throws(JSONParseError) in
                outlineOnly
                    ? try JSONValue.parse(
                        buffer, keepingFields: [Array("op".utf8), Array("path".utf8)], shapes: [Array("data".utf8)],
                        atDepth: 2)
                    : try JSONValue.parse(buffer)
            }
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
