import FoundationEssentials
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// Order-preserving byte encodings of keys: comparing two encodings byte by byte (memcmp) gives
/// the order of ``JSONValue/compare(_:_:)`` element by element, so bulk sorts compare flat bytes
/// instead of enums and strings.
///
/// Each value is self-delimiting (a type byte, then the value; strings end in `00 01` with `00`
/// escaped as `00 FF`), so a tuple is the concatenation of its elements. Numbers are compared as
/// doubles: integers beyond 2^53 may tie.
enum SortKey {
    static func append(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(0x01)
        case .bool(let flag): bytes += [0x02, flag ? 1 : 0]
        case .integer(let number): appendNumber(Double(number), to: &bytes)
        case .double(let number): appendNumber(number, to: &bytes)
        case .string(let text): appendString(text, to: &bytes)
        case .array(let values):
            bytes.append(0x05)
            for value in values { bytes.append(0x01); append(value, to: &bytes) }
            bytes.append(0x00)
        case .object:
            bytes.append(0x06)
            appendString(String(decoding: value.serialized(), as: UTF8.self), to: &bytes, tag: nil)
        }
    }

    static func appendString(_ text: String, to bytes: inout [UInt8], tag: UInt8? = 0x04) {
        if let tag { bytes.append(tag) }
        var text = text
        text.withUTF8 { appendEscaped($0, to: &bytes) }
        bytes.append(0x00)
        bytes.append(0x01)
    }

    /// The encoding of the string `"<first>/<second>"`, without joining it.
    static func appendString(_ first: String, slash second: String, to bytes: inout [UInt8]) {
        var (first, second) = (first, second)
        bytes.append(0x04)
        first.withUTF8 { appendEscaped($0, to: &bytes) }
        bytes.append(UInt8(ascii: "/"))
        second.withUTF8 { appendEscaped($0, to: &bytes) }
        bytes.append(0x00)
        bytes.append(0x01)
    }

    /// Appends `text` with each zero byte escaped as `00 FF`: the runs between them copied whole.
    private static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var run = 0
        for index in text.indices where text[index] == 0 {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[run...index]))
            bytes.append(0xFF)
            run = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[run...]))
    }

    private static func appendNumber(_ number: Double, to bytes: inout [UInt8]) {
        bytes.append(0x03)
        var bits = (number == 0 ? 0.0 : number).bitPattern  // -0 and 0 are equal
        bits = bits >> 63 == 1 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
    }

    /// The encoding of a document path, in segment order (collection, then ID).
    static func path(_ path: DocumentPath, into bytes: inout [UInt8]) {
        appendString(path.collection, to: &bytes, tag: nil)
        appendString(path.documentID, to: &bytes, tag: nil)
    }
}

/// Many keys in one buffer, sorted as positions without reference counting in the comparisons.
struct SortKeyBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var starts: [Int] = [0]

    /// Adds one key, built by `build`.
    mutating func add(_ build: (inout [UInt8]) -> Void) {
        build(&bytes)
        starts.append(bytes.count)
    }

    var count: Int { starts.count - 1 }

    /// The positions `0..<count` ordered by key; equal keys keep their order.
    func sortedPositions() -> [Int] {
        var positions = Array(0..<count)
        bytes.withUnsafeBufferPointer { buffer in
            starts.withUnsafeBufferPointer { starts in
                let base = buffer.baseAddress
                positions.sort { a, b in
                    let (aStart, aLength) = (starts[a], starts[a + 1] - starts[a])
                    let (bStart, bLength) = (starts[b], starts[b + 1] - starts[b])
                    let common = min(aLength, bLength)
                    let order = common == 0 ? 0 : memcmp(base! + aStart, base! + bStart, common)
                    if order != 0 { return order < 0 }
                    return aLength < bLength || (aLength == bLength && a < b)
                }
            }
        }
        return positions
    }
}
