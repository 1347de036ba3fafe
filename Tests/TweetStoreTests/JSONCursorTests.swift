import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// The journal's outline walks a record with a cursor instead of parsing it: the cursor must read
/// what a parse reads and refuse what a parse refuses, and the outline must agree with the full
/// read of a record, damaged or not.
struct JSONCursorTests {
    /// Rebuilds a value through the cursor, skipping the members `skip` picks (kept as `null`).
    private static func rebuild(_ cursor: inout JSONCursor, skip: (Int) -> Bool, counter: inout Int)
        throws(JSONParseError) -> JSONValue
    {
        counter += 1
        if skip(counter) {
            try cursor.skipValue()
            return .null
        }
        switch cursor.peek() {
        case UInt8(ascii: "{"):
            try cursor.enterObject()
            var fields: JSONObject = [:]
            while let key = try cursor.nextKey() {
                fields[key] = try rebuild(&cursor, skip: skip, counter: &counter)
            }
            return .object(fields)
        case UInt8(ascii: "["):
            try cursor.enterArray()
            var values: [JSONValue] = []
            while try cursor.nextElement() { values.append(try rebuild(&cursor, skip: skip, counter: &counter)) }
            return .array(values)
        default:
            return try cursor.readValue()
        }
    }

    private static func walk(_ bytes: [UInt8], skip: (Int) -> Bool = { _ in false }) -> Result<
        JSONValue, JSONParseError
    > {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in
                var cursor = JSONCursor(buffer)
                var counter = 0
                let value = try rebuild(&cursor, skip: skip, counter: &counter)
                try cursor.finish()
                return value
            }
        }
    }

    @Test func walkingAValueGivesWhatParsingGives() throws {
        let texts = [
            #"{"a":[1,2.5,{"b":null}],"c":"\u00e9\"","a":true}"#, "[]", "{}", " [ { } , [ ] ] ", #""x""#, "-0.5e3",
            #"{"k":{"k":{"k":[[],[{}]]}}}"#,
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            let walked = try Self.walk(bytes).get()
            #expect(walked == (try JSONValue.parse(bytes)), "\(text)")
        }
    }

    /// Every byte of a text cut out, or replaced or preceded by every kind of byte: the cursor,
    /// whatever it skips, accepts exactly what a parse accepts.
    @Test func aDamagedTextIsRefusedAsAParseRefusesIt() {
        let text = Array(#"{"ops":[{"data":{"t":"a \"b\" é","n":[1,-2.5e1,true,null,{}]},"op":"set"}],"seq":3}"#.utf8)
        let damages: [UInt8?] = [nil] + Array("\"\\{}[]:,0ae-. \t".utf8) + [0x01, 0x80, 0xC3, 0xFF]
        var refused = 0
        for position in 0..<text.count {
            for damage in damages {
                for replaces in [false, true] {
                    var bytes = Array(text[..<position])
                    if let damage { bytes.append(damage) }
                    bytes += text[(replaces || damage == nil ? position + 1 : position)...]
                    let parsed = Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }
                    for skipEvery in [0, 2, 3] {
                        let walked = Self.walk(bytes) { skipEvery > 0 && $0 % skipEvery == 0 }
                        switch (parsed, walked) {
                        case (.success(let a), .success(let b)):
                            if skipEvery == 0 { #expect(a == b) }
                        case (.failure, .failure): refused += 1
                        default:
                            Issue.record("\(String(decoding: bytes, as: UTF8.self)): parse \(parsed), walk \(walked)")
                            return
                        }
                    }
                }
            }
        }
        #expect(refused > text.count)
    }

    /// Strings long enough to be scanned eight bytes at a time, with one byte of every kind at
    /// every position: a walk that skips them, reads them as keys or as paths accepts and refuses
    /// exactly what a parse does, and reads the same string.
    @Test func longStringsAreScannedAsAParseReadsThem() throws {
        let specials: [[UInt8]] = [
            [0x22], [0x5C, 0x22], [0x5C, 0x6E], [0x5C], [0x01], [0x1F], [0x20], [0x7F], [0x80], [0xC3, 0xA9],
            [0xC3], [0xFF], [0x2F], Array("\\u00e9".utf8),
        ]
        var refused = 0
        for length in [7, 8, 9, 15, 16, 17, 24, 31, 40] {
            for position in 0..<length {
                for special in specials {
                    var content = Array(repeating: UInt8(ascii: "a"), count: length)
                    content.replaceSubrange(position..<(position + 1), with: special)
                    let text = [UInt8(ascii: "[")] + [0x22] + content + [0x22] + Array(",1]".utf8)
                    let parsed = Result { () throws(JSONParseError) in try JSONValue.parse(text) }
                    let skipped = Self.walk(text) { $0 == 2 }
                    let read = Self.walk(text)
                    switch (parsed, skipped, read) {
                    case (.success(let value), .success, .success(let walked)):
                        #expect(value == walked, "\(content)")
                    case (.failure, .failure, .failure): refused += 1
                    default: Issue.record("\(content): parse \(parsed), skipped \(skipped), read \(read)")
                    }
                    // As a path: what a parse reads, split; refused where a parse refuses.
                    let pathText = [0x22] + Array("c/".utf8) + content + [0x22]
                    let parsedPath = Result { () throws(JSONParseError) in try JSONValue.parse(pathText) }
                    let readPath = pathText.withUnsafeBufferPointer { buffer in
                        Result { () throws(JSONParseError) -> DocumentPath? in
                            var cursor = JSONCursor(buffer)
                            let path = try cursor.readPath()
                            try cursor.finish()
                            return path
                        }
                    }
                    switch (parsedPath, readPath) {
                    case (.success(let value), .success(let path)):
                        #expect(path == value.stringValue.flatMap { DocumentPath($0) }, "\(content)")
                    case (.failure, .failure): break
                    default: Issue.record("\(content) as a path: parse \(parsedPath), read \(readPath)")
                    }
                }
            }
        }
        #expect(refused > 100)
    }

    /// The eight-byte test, against the byte-by-byte definition, on words with one or two chosen
    /// bytes among plain ones (a borrow from one byte must not hide or invent another).
    @Test func aWordIsPlainExactlyWhenEachOfItsBytesIs() {
        func plain(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x80 && byte != 0x22 && byte != 0x5C }
        let bytes: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x61, 0x7F, 0x80, 0xA2, 0xFF]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            var word = (0..<8).map { _ in UInt8.random(in: 0x23...0x5B, using: &generator) }
            word[Int.random(in: 0..<8, using: &generator)] = bytes.randomElement(using: &generator)!
            word[Int.random(in: 0..<8, using: &generator)] = bytes.randomElement(using: &generator)!
            let value = word.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            #expect(JSONWord.isPlain(value) == word.allSatisfy(plain), "\(word)")
        }
    }

    @Test func nestingPastTheLimitIsRefusedAsAParseRefusesIt() {
        for depth in [510, 511, 512, 513, 600] {
            // Empty innermost and a scalar innermost: the parse counts a scalar's depth too.
            for inner in ["", "1", "\"s\""] {
                let bytes = Array(
                    (String(repeating: "[", count: depth) + inner + String(repeating: "]", count: depth)).utf8)
                let parsed = (try? JSONValue.parse(bytes)) != nil
                #expect(((try? Self.walk(bytes).get()) != nil) == parsed, "depth \(depth), \(inner)")
                #expect(((try? Self.walk(bytes) { _ in true }.get()) != nil) == parsed, "skipped, \(depth), \(inner)")
                #expect(((try? Self.walk(bytes) { $0 == 100 }.get()) != nil) == parsed, "inside, \(depth), \(inner)")
            }
            let bytes = Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
            let parsed = (try? JSONValue.parse(bytes)) != nil
            let walked = (try? Self.walk(bytes).get()) != nil
            let skipped = (try? Self.walk(bytes) { $0 == 100 }.get()) != nil
            #expect(walked == parsed, "depth \(depth)")
            #expect(skipped == parsed, "depth \(depth), skipped inside")
        }
    }

    private static func outline(_ line: [UInt8]) -> Result<JournalRecord.Outline, StoreError> {
        Result { () throws(StoreError) in
            do { return try JournalRecord.outline(line: line[...], file: "journal.jsonl", lineNumber: 2) } catch {
                throw error as! StoreError
            }
        }
    }

    private static func full(_ line: [UInt8]) -> Result<JournalRecord, StoreError> {
        Result { () throws(StoreError) in
            do { return try JournalRecord(line: line[...], file: "journal.jsonl", lineNumber: 2) } catch {
                throw error as! StoreError
            }
        }
    }

    /// Whether the outline and the full read of `line` agree: `true` when both read it (the same
    /// sequence, time, paths and documents), `false` when both refuse it for the same reason, `nil`
    /// (recorded as an issue) when they disagree.
    private static func agreement(_ line: [UInt8]) -> Bool? {
        switch (full(line), outline(line)) {
        case (.success(let full), .success(let outline)):
            #expect(full.sequence == outline.sequence && full.time == outline.time)
            #expect(
                full.operations.map {
                    switch $0 {
                    case .set(let path, _), .delete(let path): path
                    }
                } == outline.paths)
            // What the memtable keeps unparsed: each set's bytes, parsed alone, are the document
            // the full read gives.
            #expect(outline.data.count == full.operations.count)
            for (operation, data) in zip(full.operations, outline.data) {
                switch operation {
                case .set(_, let fields):
                    #expect(data.map { try? JSONValue.parse(line[$0]) } == .some(.object(fields)))
                case .delete: #expect(data == nil)
                }
            }
            return true
        case (.failure(let full), .failure(let outline)):
            #expect("\(full)" == "\(outline)" || "\(full)".contains("invalid JSON"), "\(full) / \(outline)")
            return false
        case (let full, let outline):
            Issue.record("full \(full), outline \(outline)")
            return nil
        }
    }

    /// Records of the shapes the store writes (sets and deletes; paths plain, escaped or past
    /// ASCII; documents of every kind of value; sequences of every length), whole and with a byte
    /// changed: the outline, read byte for byte or walked, agrees with the full read.
    @Test func recordsOfEveryShapeOutlineAsTheyAreRead() throws {
        var random = SplitMix64(seed: 11)
        let plainNames = ["tweets", "users", "a b", "x", "0VckZsakbLjlTpcrJWJj"]
        let otherNames = ["é", "東京", "q\"uote", "back\\slash", "tab\t"]
        // Mostly plain names, so that most records are read byte for byte and some walked.
        func name() -> String {
            (Int.random(in: 0..<12, using: &random) == 0 ? otherNames : plainNames).randomElement(using: &random)!
        }
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 2 ? 5 : 7), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .integer(Int64.random(in: -1_000_000...Int64.max, using: &random))
            case 3: return .double(Double.random(in: -1e6...1e6, using: &random))
            case 4: return .string(name())
            case 5: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in value(depth + 1) })
            default: return object(depth + 1)
            }
        }
        func object(_ depth: Int) -> JSONValue {
            .object(
                JSONObject(
                    Dictionary((0..<Int.random(in: 0..<4, using: &random)).map { _ in (name(), value(depth)) }) {
                        a, _ in a
                    }))
        }
        var read = (whole: 0, byteForByte: 0, damagedAndRead: 0, refused: 0)
        for round in 0..<300 {
            let operations: [JournalRecord.Operation] = (0..<Int.random(in: 0..<5, using: &random)).map { _ in
                let nested = Bool.random(using: &random) ? "/\(name())/\(name())" : ""
                let path = DocumentPath(collection: name() + nested, documentID: name())
                guard Bool.random(using: &random), case .object(let fields) = object(1) else { return .delete(path) }
                return .set(path, fields)
            }
            let sequence = [1, 9, 10, 41, 999_999_999_999_999_999, Int64.random(in: 1...Int64.max, using: &random)]
                .randomElement(using: &random)!
            let record = JournalRecord(
                sequence: sequence, time: Date(timeIntervalSince1970: 1_790_000_000.125 + Double(round)),
                operations: operations)
            let line = Array(record.line().dropLast())
            #expect(try Self.full(line).get() == record)
            if Self.agreement(line) == true { read.whole += 1 }
            var body = Array(try ChecksummedLine.decode(key: "tx", line: line[...]))
            if body.withUnsafeBufferPointer({ JournalRecord.Canonical.outline($0, offset: 0) }) != nil {
                read.byteForByte += 1
            }
            body[Int.random(in: 0..<body.count, using: &random)] = Array("\"\\{}[]:,0a-. 9".utf8 + [0x01, 0x80])
                .randomElement(using: &random)!
            switch Self.agreement(Array(ChecksummedLine.encode(key: "tx", payload: body).dropLast())) {
            case true?: read.damagedAndRead += 1
            case false?: read.refused += 1
            case nil: return
            }
        }
        // Most whole records take the byte-for-byte reading, some the walk.
        #expect(read.whole == 300 && (150..<300).contains(read.byteForByte), "\(read)")
        #expect(read.damagedAndRead > 10 && read.refused > 100, "\(read)")
    }

    /// A record's body damaged byte by byte, its checksum made to match (so the parse is what is
    /// tested): the outline succeeds exactly when the full read does, with the same sequence, time
    /// and paths, and otherwise fails for the same reason.
    @Test func theOutlineOfARecordAgreesWithItsFullRead() throws {
        let record = JournalRecord(
            sequence: 41, time: Date(timeIntervalSince1970: 1_790_000_000.125),
            operations: [
                .set(DocumentPath("tweets/t1")!, ["caption": .string("a \"b\" 東京"), "likes": .integer(2)]),
                .delete(DocumentPath("likes/u1_t1")!),
            ])
        let line = record.line()
        let body = Array(try ChecksummedLine.decode(key: "tx", line: line.dropLast()))
        let parsed = try #require(try? Self.full(line.dropLast() + []).get())
        #expect(parsed == record)
        let damages: [UInt8?] = [nil] + Array("\"\\{}[]:,0ae-. \t".utf8) + [0x01, 0x80, 0xFF]
        var agreedFailures = 0
        var agreedSuccesses = 0
        for position in 0..<body.count {
            for damage in damages {
                for replaces in [false, true] {
                    var bytes = Array(body[..<position])
                    if let damage { bytes.append(damage) }
                    bytes += body[(replaces || damage == nil ? position + 1 : position)...]
                    let damaged = Array(ChecksummedLine.encode(key: "tx", payload: bytes).dropLast())
                    switch Self.agreement(damaged) {
                    case true?: agreedSuccesses += 1
                    case false?: agreedFailures += 1
                    case nil:
                        Issue.record("\(String(decoding: bytes, as: UTF8.self))")
                        return
                    }
                }
            }
        }
        #expect(agreedFailures > body.count && agreedSuccesses > body.count)
    }

    /// Keys and kinds the outline compares as bytes, written with escapes or lookalikes: the
    /// outline reads them as the full read does (an escaped key is the same key).
    @Test func escapedKeysAndKindsReadAsTheFullReadReadsThem() {
        let variants = [
            #"{"ops":[{"data":{"a":1},"op":"set","path":"t/x"}],"seq":3,"time":"2026-12-01T00:00:00.000Z"}"#,
            #"{"\u006fps":[{"d\u0061ta":{"a":1},"\u006fp":"s\u0065t","pa\u0074h":"t/x"}],"s\u0065q":3,"time":"2026-12-01T00:00:00.000Z"}"#,
            #"{"ops":[{"op":"d\u0065lete","path":"t/x"}],"seq":3,"time":"2026-12-01T00:00:00.000Z"}"#,
            #"{"ops":[{"op":"sét","path":"t/x","data":{}}],"seq":3,"time":"2026-12-01T00:00:00.000Z"}"#,
            #"{"ops":[{"öp":"set","path":"t/x","data":{}}],"seq":3,"time":"2026-12-01T00:00:00.000Z"}"#,
            #"{"ops":[{"op":7,"path":"t/x","data":{}}],"seq":3,"time":"2026-12-01T00:00:00.000Z"}"#,
            #"{"ops":[{"op":"set","op":"delete","path":"t/x"}],"seq":3,"time":"2026-12-01T00:00:00.000Z"}"#,
            #"{"ops":[{"op":"set\u0000","path":"t/x","data":{}}],"seq":3,"time":"2026-12-01T00:00:00.000Z"}"#,
        ]
        for variant in variants {
            let line = Array(ChecksummedLine.encode(key: "tx", payload: Array(variant.utf8)).dropLast())
            switch (Self.full(line), Self.outline(line)) {
            case (.success(let full), .success(let outline)):
                #expect(full.sequence == outline.sequence && outline.paths == [DocumentPath("t/x")!], "\(variant)")
                #expect(full.operations.count == outline.data.count, "\(variant)")
            case (.failure(let full), .failure(let outline)):
                #expect("\(full)" == "\(outline)", "\(variant)")
            case (let full, let outline):
                Issue.record("\(variant): full \(full), outline \(outline)")
            }
        }
        // The escaped spellings are accepted, the lookalikes refused, by both.
        let accepted = variants.filter {
            (try? Self.outline(Array(ChecksummedLine.encode(key: "tx", payload: Array($0.utf8)).dropLast())).get())
                != nil
        }
        #expect(accepted.count == 4)
    }
}
