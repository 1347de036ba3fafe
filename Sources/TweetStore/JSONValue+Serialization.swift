import FoundationEssentials

extension JSONValue {
    /// Compact JSON text with object keys sorted, so equal values always serialise to equal bytes.
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output)
        return output
    }

    package func write(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value):
            if value.isFinite {
                if value.rounded() == value, abs(value) < 1e15 {
                    output.append(contentsOf: String(Int64(value)).utf8)
                } else {
                    output.append(contentsOf: "\(value)".utf8)
                }
            } else {
                output.append(contentsOf: "null".utf8)  // JSON has no NaN or infinity.
            }
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let fields):
            output.append(UInt8(ascii: "{"))
            // In the keys' byte order, as they are told apart: equal objects, equal bytes. An
            // object parsed from such text (every stored one) is in that order already.
            func writeFields(_ fields: some Collection<JSONObject.Element>) {
                for (index, field) in fields.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    Self.writeString(field.key, into: &output)
                    output.append(UInt8(ascii: ":"))
                    field.value.write(into: &output)
                }
            }
            let inOrder = zip(fields, fields.dropFirst()).allSatisfy {
                ByteOrder.compare($0.key, $1.key) == .orderedAscending
            }
            if inOrder {
                writeFields(fields)
            } else {
                writeFields(fields.sorted { ByteOrder.compare($0.key, $1.key) == .orderedAscending })
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    package static func writeString(_ string: String, into output: inout [UInt8]) {
        var string = string
        output.append(UInt8(ascii: "\""))
        string.withUTF8 { appendEscaped($0, to: &output) }
        output.append(UInt8(ascii: "\""))
    }

    /// `"<first>/<second>"`, as ``writeString(_:into:)`` writes the joined string, without joining
    /// it: a document's path, once for every line a segment writes.
    package static func writeString(_ first: String, slash second: String, into output: inout [UInt8]) {
        var (first, second) = (first, second)
        output.append(UInt8(ascii: "\""))
        first.withUTF8 { appendEscaped($0, to: &output) }
        output.append(UInt8(ascii: "/"))
        second.withUTF8 { appendEscaped($0, to: &output) }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `bytes` with `"`, `\\` and the C0 controls escaped: the runs between them copied
    /// whole, since almost every string has none.
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var run = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
            run = index + 1
            output.append(92)
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            default:
                output.append(contentsOf: [UInt8(ascii: "u"), 48, 48, hexDigit(byte >> 4), hexDigit(byte & 15)])
            }
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
    }

    /// The lowercase hexadecimal digit of `value` (0–15).
    package static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 48 + value : 87 + value
    }
}

extension JSONValue {
    /// `json` with what a terminal would act on escaped as `\uXXXX`: DEL, the C1 controls, the line
    /// separators and the bidirectional controls (U+2028–U+202E, U+2066–U+2069). The serializer
    /// already escapes C0 controls; these can only stand inside strings, so the text decodes to the
    /// same values. For JSON that may be shown on a terminal (`--json`, `export`).
    public static func escapingTerminalControls(_ json: [UInt8]) -> [UInt8] {
        json.withUnsafeBufferPointer(escapingTerminalControls) ?? json
    }

    /// ``escapingTerminalControls(_:)`` of `json`, or `nil` when there is nothing to escape.
    private static func escapingTerminalControls(_ json: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        do {
            // What to escape starts with 0x7F, 0xC2 or 0xE2: most text has none of them, and is
            // handed back after one pass that looks at nothing else.
            func escapeLength(at index: Int) -> (length: Int, scalar: UInt32)? {
                let byte = json[index]
                if byte == 0x7F { return (1, 0x7F) }
                guard byte == 0xC2 || byte == 0xE2, index + 1 < json.count else { return nil }
                let next = json[index + 1]
                if byte == 0xC2 { return (0x80...0x9F).contains(next) ? (2, UInt32(next)) : nil }
                guard index + 2 < json.count else { return nil }
                let last = json[index + 2]
                if next == 0x80 && (0xA8...0xAE).contains(last) { return (3, 0x2000 + UInt32(last - 0x80)) }
                if next == 0x81 && (0xA6...0xA9).contains(last) { return (3, 0x2040 + UInt32(last - 0x80)) }
                return nil
            }
            func mayStartEscape(_ byte: UInt8) -> Bool { byte == 0x7F || byte == 0xC2 || byte == 0xE2 }
            guard let first = json.indices.first(where: { mayStartEscape(json[$0]) && escapeLength(at: $0) != nil })
            else { return nil }
            var output: [UInt8] = []
            output.reserveCapacity(json.count + 32)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: json[..<first]))
            var index = first
            while index < json.count {
                guard mayStartEscape(json[index]), let (length, scalar) = escapeLength(at: index) else {
                    output.append(json[index])
                    index += 1
                    continue
                }
                output += [92, UInt8(ascii: "u")]
                for shift in [12, 8, 4, 0] { output.append(hexDigit(UInt8((scalar >> UInt32(shift)) & 15))) }
                index += length
            }
            return output
        }
    }
}

/// Why a JSON text could not be parsed, with the byte offset where parsing stopped.
package struct JSONParseError: Error, Equatable, CustomStringConvertible {
    var message: String
    var offset: Int
    package var description: String { "\(message) at byte \(offset)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259). Trailing bytes other than whitespace are an error.
    package static func parse<Bytes: Collection>(_ bytes: Bytes) throws(JSONParseError) -> JSONValue
    where Bytes.Element == UInt8 {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(buffer) }
        }
        if let result { return try result.get() }
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in try parse(buffer) }
    }

    /// Parses the bytes of an array: the generic version, called from another module, is not
    /// specialized, and instantiating its generic types at run time (a conformance lookup each)
    /// made every command pay for it in a statically linked build.
    package static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in try parse(buffer) }
    }

    /// Parses the bytes of an array slice (see ``parse(_:)-([UInt8])``).
    package static func parse(_ bytes: ArraySlice<UInt8>) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in try parse(buffer) }
    }

    /// Parses one JSON text in place, without copying the bytes.
    package static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: buffer)
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    /// Parses one JSON text from outside the store (a file given to `import`), refusing what a
    /// parse would otherwise settle quietly: an object's key given twice (a parse keeps the last)
    /// and a number beyond a double's range (which would read as infinity, or as 0 when too small).
    package static func parseStrictly(_ bytes: ArraySlice<UInt8>) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(bytes: buffer)
            parser.isStrict = true
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.error("unexpected text after the value") }
            return value
        }
    }

    /// Parses one JSON text in place, keeping of each object at `depth` (1: inside the top-level
    /// value, as a segment line's document) only the fields named in `fields`: what an index's
    /// key needs, without decoding a caption or building the rest of the document. What is
    /// skipped is checked as strictly as what is parsed, so the same texts are refused.
    package static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, keepingFields fields: [[UInt8]]
    ) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: buffer)
        parser.kept = fields
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    /// Walks the JSON value that starts at byte `start` of `buffer`, checking it as a parse of it
    /// at nesting `depth` would, without building it.
    /// - Returns: the index just after the value.
    package static func skipValue(
        in buffer: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int
    ) throws(JSONParseError) -> Int {
        var parser = JSONParser(bytes: buffer)
        parser.index = start
        try parser.skipValue(depth: depth)
        return parser.index
    }

    /// The index of the closing quote of the string that starts at byte `start` of `buffer` (at
    /// its opening quote), when that string is plain ASCII: no escape, no control character, no
    /// byte past ASCII, so its bytes are its text. `nil` for any other string or none.
    package static func plainStringEnd(in buffer: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        guard start < buffer.count, buffer[start] == UInt8(ascii: "\"") else { return nil }
        var parser = JSONParser(bytes: buffer)
        parser.index = start
        return parser.plainStringEnd()
    }

    /// Parses the JSON string that starts at byte `start` of `buffer` (at its opening quote).
    /// - Returns: the string and the index just after its closing quote.
    package static func parseString(
        in buffer: UnsafeBufferPointer<UInt8>, at start: Int
    ) throws(JSONParseError) -> (String, Int) {
        var parser = JSONParser(bytes: buffer)
        parser.index = start
        guard start < buffer.count, buffer[start] == UInt8(ascii: "\"") else { throw parser.error("expected a string") }
        let string = try parser.parseString()
        return (string, parser.index)
    }
}

/// Eight bytes of a JSON text tested at once.
enum JSONWord {
    /// Whether none of the eight bytes in `word` is a quote, a backslash, a control character or a
    /// byte past ASCII. Each test is the exact "some byte is" of the bit tricks: a borrow can
    /// only spread from a byte that already matched.
    static func isPlain(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs = ones &* 0x80
        func hasZero(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        let special = control | (word & highs) | hasZero(word ^ (ones &* 0x22)) | hasZero(word ^ (ones &* 0x5C))
        return special == 0
    }
}

private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index) }

    /// The top-level fields of the objects at depth 1 to keep (as UTF-8 keys), or `nil` for all:
    /// the others are skipped without being decoded.
    var kept: [[UInt8]]?

    /// Whether a repeated key and a number out of a double's range are errors (``JSONValue/parseStrictly(_:)``).
    var isStrict = false

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Whether `key` (decoded) is one of ``kept``.
    private func isKept(_ key: String) -> Bool {
        guard let kept else { return true }
        var key = key
        return key.withUTF8 { bytes in kept.contains { $0.elementsEqual(bytes) } }
    }

    /// Moves past one value without building it, refusing what ``parseValue(depth:)`` refuses: a
    /// string is checked to its closing quote (its escapes, and its UTF-8 when it has bytes past
    /// ASCII), a number or literal is parsed, and an object or array is walked with a stack of
    /// its open brackets (no recursion), `depth` counting towards the same nesting limit.
    mutating func skipValue(depth: Int) throws(JSONParseError) {
        var open = BracketStack()
        repeat {
            // Every value counts, a number or a string as much as a bracket: the parse refuses a
            // scalar at the limit too, and the walk must refuse what it refuses.
            guard depth + open.count < BracketStack.capacity else { throw error("nesting too deep") }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of data") }
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[index] == UInt8(ascii: "{")
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1  // {} or []: a whole value, followed by what follows a value
                } else {
                    open.push(isObject: isObject)
                    if isObject { try skipKey() }
                    continue
                }
            case UInt8(ascii: "\""): try skipString()
            case UInt8(ascii: "t"): try expect("true")
            case UInt8(ascii: "f"): try expect("false")
            case UInt8(ascii: "n"): try expect("null")
            default: _ = try parseNumber()
            }
            // After a value: a comma and the next member, or the brackets it closes.
            while let inObject = open.top {
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of data") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    if inObject { try skipKey() }
                    break
                }
                guard bytes[index] == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw error(inObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                open.pop()
                index += 1
            }
        } while open.count > 0
    }

    /// The open objects and arrays of a walk, one bit each, up to the nesting limit: no array to
    /// allocate for every document skipped.
    private struct BracketStack {
        /// The nesting limit of a parse: no walk holds more.
        static let capacity = 512
        private var bits = InlineArray<8, UInt64>(repeating: 0)
        private(set) var count = 0

        /// Whether the innermost open bracket is an object's, `nil` when none is open.
        var top: Bool? {
            guard count > 0 else { return nil }
            let position = count - 1
            return bits[position >> 6] & (1 << UInt64(position & 63)) != 0
        }

        mutating func push(isObject: Bool) {
            let bit: UInt64 = 1 << UInt64(count & 63)
            if isObject { bits[count >> 6] |= bit } else { bits[count >> 6] &= ~bit }
            count += 1
        }

        mutating func pop() { count -= 1 }
    }

    /// Moves past an object member's key and its colon.
    private mutating func skipKey() throws(JSONParseError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
        try skipString()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
        index += 1
    }

    /// Moves past a string, checking it as ``parseString()`` would: ASCII without escapes is only
    /// scanned; anything else is parsed.
    private mutating func skipString() throws(JSONParseError) {
        if let end = plainStringEnd() {
            index = end + 1
        } else {
            _ = try parseString()
        }
    }

    /// Where the string at the cursor (at its opening quote) ends, its closing quote, when it is
    /// plain ASCII (no escape, no control character, no byte past ASCII): such a string needs no
    /// decoding to be read or checked. `nil` for any other string, or an unterminated one.
    func plainStringEnd() -> Int? {
        var end = index + 1
        // Eight bytes at a time while none of them is special: IDs and paths are twenty or more.
        if let base = bytes.baseAddress {
            while end + 8 <= bytes.count, JSONWord.isPlain(UnsafeRawPointer(base + end).loadUnaligned(as: UInt64.self))
            {
                end += 8
            }
        }
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { return end }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return nil }
            end += 1
        }
        return nil
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < 512 else { throw error("nesting too deep") }
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of data") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return try parseNumber()
        }
    }

    mutating func expect(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of data") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("invalid literal")
        }
        index += count
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        // Room for a document's fields from the start: growing 1 → 2 → 4 → 8 rehashes every key.
        var fields = JSONObject(minimumCapacity: 12)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let (key, probe) = try parseKey()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            if depth == 1, kept != nil, !isKept(key) {
                try skipValue(depth: depth + 1)
            } else {
                let keyOffset = index
                if fields.updateValue(try parseValue(depth: depth + 1), forKey: key, probe: probe) != nil, isStrict {
                    throw JSONParseError(message: "the key \"\(key)\" is given twice", offset: keyOffset)
                }
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of data") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
            throw error("expected ',' or '}'")
        }
    }

    /// An object's key (at its opening quote) and its probe, made from the text's bytes when the
    /// key has no escapes: then they are its UTF-8 bytes (an escape always decodes to fewer).
    mutating func parseKey() throws(JSONParseError) -> (String, JSONObject.Probe) {
        let start = index + 1
        let key = try parseString()
        let length = index - 1 - start
        if length == key.utf8.count, let base = bytes.baseAddress {
            return (key, JSONObject.Probe(bytes: UnsafeBufferPointer(start: base + start, count: length)))
        }
        return (key, JSONObject.Probe(key))
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
        while true {
            values.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of data") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes. Plain ASCII goes eight bytes at a time; a string that is all
        // ASCII is valid UTF-8 as it is, so only one with bytes past ASCII is validated.
        var isASCII = true
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count,
                JSONWord.isPlain(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if isASCII { return String(decoding: slice, as: UTF8.self) }
                guard let string = ByteOrder.validString(slice) else {
                    throw error("invalid UTF-8 in string")
                }
                return string
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        var scalars: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = scalars.withUnsafeBufferPointer(ByteOrder.validString) else {
                    throw error("invalid UTF-8 in string")
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of data") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append(34)
                case UInt8(ascii: "\\"): scalars.append(92)
                case UInt8(ascii: "/"): scalars.append(47)
                case UInt8(ascii: "b"): scalars.append(8)
                case UInt8(ascii: "f"): scalars.append(12)
                case UInt8(ascii: "n"): scalars.append(10)
                case UInt8(ascii: "r"): scalars.append(13)
                case UInt8(ascii: "t"): scalars.append(9)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == 92, bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(code) {
                        throw error("unpaired surrogate")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid escape") }
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default: throw error("invalid escape")
                }
            case 0..<0x20: throw error("control character in string")
            default:
                scalars.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// The string at the cursor (at its opening quote) compared with `known`: its position there,
    /// or `known.count`. Plain ASCII is compared in place; anything else is parsed, so the string
    /// is refused exactly when ``parseString()`` refuses it.
    mutating func matchString(among known: [[UInt8]]) throws(JSONParseError) -> Int {
        if let end = plainStringEnd() {
            let text = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end])
            index = end + 1
            return known.firstIndex { $0.elementsEqual(text) } ?? known.count
        }
        let string = try parseString()
        return known.firstIndex { $0.elementsEqual(string.utf8) } ?? known.count
    }

    /// The string at the cursor (at its opening quote) as a document path, `nil` when it is not
    /// one. Plain ASCII is split in place; anything else is parsed, so the string is refused
    /// exactly when ``parseString()`` refuses it.
    mutating func parsePath() throws(JSONParseError) -> DocumentPath? {
        if let end = plainStringEnd() {
            let text = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end])
            index = end + 1
            return DocumentPath(utf8: text)
        }
        return DocumentPath(try parseString())
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of data") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 55)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Whether a number's digits before its exponent are not all zeros: such a number that reads
    /// as 0 was too small for a double.
    static func hasNonzeroDigit(_ text: String) -> Bool {
        for byte in text.utf8 {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
            if (49...57).contains(byte) { return true }
        }
        return false
    }

    /// RFC 8259's number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (48...57).contains(bytes[index]) else { throw error("invalid value") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            _ = digits()
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            isInteger = false
            guard digits() > 0 else { throw error("a number needs digits after its decimal point") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            isInteger = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text) else { throw JSONParseError(message: "invalid number", offset: start) }
        if isStrict, !value.isFinite || (value == 0 && Self.hasNonzeroDigit(text)) {
            throw JSONParseError(message: "the number \(text.prefix(40)) is out of range", offset: start)
        }
        return .double(value)
    }
}

/// Reads one JSON text piece by piece, for a caller that needs a few fields of a value and would
/// otherwise build all of it: it walks objects and arrays member by member, reads the values it
/// wants and skips the others. It refuses exactly the texts ``JSONValue/parse(_:)-([UInt8])``
/// refuses, whatever is skipped, provided the caller walks the value to its end and calls
/// ``finish()``. An object's repeated key comes back each time; the last one is what a parse keeps.
package struct JSONCursor {
    private var parser: JSONParser
    /// For each object or array entered and not yet left, whether a member has been read from it.
    private var started: [Bool] = []

    package init(_ buffer: UnsafeBufferPointer<UInt8>) { parser = JSONParser(bytes: buffer) }

    /// The first byte of the next value, or `nil` at the end of the text.
    package mutating func peek() -> UInt8? {
        parser.skipWhitespace()
        return parser.index < parser.bytes.count ? parser.bytes[parser.index] : nil
    }

    /// Enters the object that comes next. It must be one: check with ``peek()``.
    package mutating func enterObject() throws(JSONParseError) {
        try enter(UInt8(ascii: "{"))
    }

    /// Enters the array that comes next. It must be one: check with ``peek()``.
    package mutating func enterArray() throws(JSONParseError) {
        try enter(UInt8(ascii: "["))
    }

    private mutating func enter(_ bracket: UInt8) throws(JSONParseError) {
        guard started.count < 512 else { throw parser.error("nesting too deep") }
        guard peek() == bracket else { throw parser.error("expected '\(Character(Unicode.Scalar(bracket)))'") }
        parser.index += 1
        started.append(false)
    }

    /// The next key of the object entered last, its colon passed, or `nil` (the object left) when it
    /// has no more members.
    package mutating func nextKey() throws(JSONParseError) -> String? {
        guard try nextMember(closing: UInt8(ascii: "}")) else { return nil }
        guard peek() == UInt8(ascii: "\"") else { throw parser.error("expected a key") }
        let key = try parser.parseString()
        guard peek() == UInt8(ascii: ":") else { throw parser.error("expected ':'") }
        parser.index += 1
        return key
    }

    /// ``nextKey()`` matched against `known` (plain ASCII) without making a `String`: the position
    /// of the key in `known`, `known.count` for any other key, or `nil` (the object left) when it
    /// has no more members. A key with an escape or a byte past ASCII is read as ``nextKey()``
    /// reads it, so the same keys match and the same texts are refused.
    package mutating func nextKey(among known: [[UInt8]]) throws(JSONParseError) -> Int? {
        guard try nextMember(closing: UInt8(ascii: "}")) else { return nil }
        guard peek() == UInt8(ascii: "\"") else { throw parser.error("expected a key") }
        let match = try parser.matchString(among: known)
        guard peek() == UInt8(ascii: ":") else { throw parser.error("expected ':'") }
        parser.index += 1
        return match
    }

    /// The next value matched against `known` (plain ASCII strings) without building it: the
    /// position of the string in `known`, or `known.count` for any other value, which is walked
    /// (and checked) as ``skipValue()`` walks it.
    package mutating func readString(among known: [[UInt8]]) throws(JSONParseError) -> Int {
        guard peek() == UInt8(ascii: "\"") else {
            try skipValue()
            return known.count
        }
        return try parser.matchString(among: known)
    }

    /// Whether the array entered last has another element (then read or skip it), or has ended
    /// (then it is left).
    package mutating func nextElement() throws(JSONParseError) -> Bool {
        try nextMember(closing: UInt8(ascii: "]"))
    }

    private mutating func nextMember(closing: UInt8) throws(JSONParseError) -> Bool {
        guard let first = started.last.map({ !$0 }) else { throw parser.error("not inside an object or array") }
        let next = peek()
        if next == closing {
            parser.index += 1
            started.removeLast()
            return false
        }
        if !first {
            guard next == UInt8(ascii: ",") else {
                throw parser.error("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
            }
            parser.index += 1
            // A comma must be followed by a member ("[1,]" is not JSON).
            if peek() == closing {
                throw parser.error(closing == UInt8(ascii: "}") ? "expected a key" : "invalid value")
            }
        }
        started[started.count - 1] = true
        return true
    }

    /// The next value as a document path: `nil` when it is not a string (then it is walked, and
    /// checked, as ``skipValue()`` walks it) or not a path.
    package mutating func readPath() throws(JSONParseError) -> DocumentPath? {
        guard peek() == UInt8(ascii: "\"") else {
            try skipValue()
            return nil
        }
        return try parser.parsePath()
    }

    /// The next value, built.
    package mutating func readValue() throws(JSONParseError) -> JSONValue {
        try parser.parseValue(depth: started.count)
    }

    /// ``readValue()``, keeping of an object read at depth 1 (inside the top-level value, as a
    /// segment line's document) only the fields named in `fields`, as
    /// ``JSONValue/parse(_:keepingFields:)`` keeps them; `nil` keeps all.
    package mutating func readValue(keepingFields fields: [[UInt8]]?) throws(JSONParseError) -> JSONValue {
        parser.kept = fields
        defer { parser.kept = nil }
        return try parser.parseValue(depth: started.count)
    }

    /// Moves past the next value without building it.
    package mutating func skipValue() throws(JSONParseError) {
        try parser.skipValue(depth: started.count)
    }

    /// ``skipValue()``, returning where the value's bytes are in the buffer: what a later parse
    /// of that value alone reads. It was checked as strictly as a parse checks it.
    package mutating func skipValueBytes() throws(JSONParseError) -> Range<Int> {
        parser.skipWhitespace()
        let start = parser.index
        try parser.skipValue(depth: started.count)
        return start..<parser.index
    }

    /// Checks that the value has been walked to its end and nothing but whitespace follows it.
    package mutating func finish() throws(JSONParseError) {
        guard started.isEmpty else { throw parser.error("unexpected end of data") }
        guard peek() == nil else { throw parser.error("unexpected text after the value") }
    }
}
