import Testing

@testable import TweetStore
@testable import TweetStoreLocal

/// A segment line is read with a cursor when it has the shape a segment writes, and parsed whole
/// otherwise: both must give what parsing the whole line as one JSON value gives, and refuse what
/// it refuses.
struct SegmentLineTests {
    /// What parsing the line whole says: the path and fields, or that it is refused.
    private static func reference(_ body: [UInt8], keeping fields: [[UInt8]]?) -> (DocumentPath, JSONObject?)? {
        let value: JSONValue? = body.withUnsafeBufferPointer { buffer in
            if let fields { return try? JSONValue.parse(buffer, keepingFields: fields) }
            return try? JSONValue.parse(buffer)
        }
        guard case .array(let parts)? = value, parts.count == 3, let text = parts[0].stringValue,
            let path = DocumentPath(text)
        else { return nil }
        switch parts[1] {
        case .object(let object): return (path, object)
        case .null: return (path, nil)
        default: return nil
        }
    }

    /// `text` (a line without its checksum element) with a valid checksum appended.
    private static func checksummed(_ text: String) -> [UInt8] {
        var line = Array(text.utf8)
        SegmentFormat.appendChecksum(to: &line)
        line.removeLast()  // the newline
        return line
    }

    static let bodies = [
        #"["users/u1",{"name":"Ada","n":1}"#, #"["users/u1",null"#, #"["a/b/c/d",{"x":{"y":[1,2,{"z":"w"}]}}"#,
        #"["users/caf\u00e9",{"k":"v"}"#, #"["users/a\"b",{}"#, #" [ "users/u1" , { "a" : 1 } "#,
        #"["users/u1",{"a":1},"extra""#, #"["users/u1"]"#, #"[1,{"a":1}"#, #"["users",{"a":1}"#,
        #"["users/u1",[1,2]"#, #"["users/u1",true"#, #"["users/u1",{"a":1,}"#, #"["users/u1",{"a":01}"#,
        #"{"users/u1":1"#, #"["users/u1",nul"#, #"["users/u1",{"a":"\ud800"}"#,
        #"["users/u1",{"caption":"long text here","uid":"u","timestamp":"2026-01-01T00:00:00Z"}"#,
    ]

    @Test(arguments: bodies)
    func aLineReadsAsItsWholeParseReadsIt(_ body: String) {
        let line = Self.checksummed(body)
        for fields: [[UInt8]]? in [nil, [], [Array("a".utf8)], [Array("caption".utf8), Array("uid".utf8)]] {
            let read = line.withUnsafeBufferPointer { buffer in
                Result { () throws(SegmentFormat.LineError) in
                    try SegmentFormat.parseLine(buffer, keepingFields: fields)
                }
            }
            let expected = Self.reference(line, keeping: fields)
            switch (read, expected) {
            case (.success(let got), let expected?):
                #expect(got.path == expected.0 && got.data == expected.1, "\(body)")
            case (.failure, nil): break
            default:
                Issue.record(
                    "\(body) with \(String(describing: fields)): read \(read), whole \(String(describing: expected))")
            }
        }
    }
}
