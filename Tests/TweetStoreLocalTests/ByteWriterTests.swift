import Testing

@testable import TweetStore
@testable import TweetStoreLocal

/// The byte writers an import, an export and a merge use for every document, which write a path's
/// two parts without joining them and copy unescaped runs whole: each must give the bytes of the
/// plain, joined, byte-at-a-time form.
struct ByteWriterTests {
    static let parts: [(String, String)] = [
        ("tweets", "abc"), ("", ""), ("users/u1/user-likes", "t9"),
        ("quote \" and \\ backslash", "new\nline \r tab \t"),
        ("controls \u{0}\u{1}\u{1F}", "\u{7F} delete and \u{0} zero"),
        ("é 日本語", "😀 🇳🇴"), ("\"", "\\"), ("\u{0}", "\u{0}\u{0}"),
    ]

    /// `string` escaped byte by byte, as JSON needs it.
    private func plainJSON(_ string: String) -> [UInt8] {
        var output: [UInt8] = [34]
        for byte in string.utf8 {
            switch byte {
            case 34, 92: output += [92, byte]
            case 0x0A: output += Array(#"\n"#.utf8)
            case 0x0D: output += Array(#"\r"#.utf8)
            case 0x09: output += Array(#"\t"#.utf8)
            case 0..<0x20: output += Array(String(format: "\\u%04x", byte).utf8)
            default: output.append(byte)
            }
        }
        return output + [34]
    }

    @Test(arguments: parts)
    func aPathWrittenInTwoPartsIsTheJoinedStringsJSON(first: String, second: String) throws {
        var joined: [UInt8] = []
        JSONValue.writeString(first + "/" + second, into: &joined)
        var split: [UInt8] = []
        JSONValue.writeString(first, slash: second, into: &split)
        #expect(split == joined)
        #expect(joined == plainJSON(first + "/" + second))
        #expect(try JSONValue.parse(joined) == .string(first + "/" + second))
    }

    @Test(arguments: parts)
    func aSortKeyInTwoPartsIsTheJoinedStringsKey(first: String, second: String) {
        var joined: [UInt8] = []
        SortKey.appendString(first + "/" + second, to: &joined)
        var split: [UInt8] = []
        SortKey.appendString(first, slash: second, to: &split)
        #expect(split == joined)
        // Each zero byte escaped as 00 FF, then the terminator 00 01.
        var plain: [UInt8] = [0x04]
        for byte in (first + "/" + second).utf8 { plain += byte == 0 ? [0, 0xFF] : [byte] }
        #expect(joined == plain + [0, 1])
    }

    @Test func anObjectIsWrittenInKeyOrderWhateverOrderItWasBuiltIn() {
        var unordered: JSONObject = [:]
        for key in ["b", "a", "é", "A", "aa", ""] { unordered[key] = .string(key) }
        var ordered: JSONObject = [:]
        for key in ["", "A", "a", "aa", "b", "é"] { ordered[key] = .string(key) }
        let text = String(decoding: JSONValue.object(unordered).serialized(), as: UTF8.self)
        #expect(text == #"{"":"","A":"A","a":"a","aa":"aa","b":"b","é":"é"}"#)
        #expect(JSONValue.object(ordered).serialized() == JSONValue.object(unordered).serialized())
    }

    @Test func aTerminalControlIsEscapedWherePlainTextIsLeftAsItIs() {
        let plain = Array(#"{"a":"plain é 日本 \u00e2"}"#.utf8)
        #expect(JSONValue.escapingTerminalControls(plain) == plain)
        let hostile = Array("\"x\u{7F}y\u{85}z\u{202E}w\u{2066}\"".utf8)
        #expect(
            String(decoding: JSONValue.escapingTerminalControls(hostile), as: UTF8.self)
                == #""x\u007fy\u0085z\u202ew\u2066""#)
        // Lead bytes of the controls inside other characters are left alone: U+00E9 starts with
        // C3, U+2019 with E2 80 99.
        let near = Array("\u{E9}\u{2019}\u{C2}\u{A0}".utf8)
        #expect(JSONValue.escapingTerminalControls(near) == near)
    }

    @Test(arguments: [
        ("tweets", true), ("users/u1/tweets", true), ("a/b/c/d/tweets", true), ("xtweets", false),
        ("users/u1/xtweets", false), ("tweets/t1/replies", false), ("tweet", false), ("", false),
        ("users/u1/tweets2", false), ("/tweets", true),
    ])
    func anIndexCoversTheCollectionsWhoseLastComponentIsItsID(collection: String, covered: Bool) {
        let index = IndexDefinition("tweets", ["timestamp"])
        #expect(index.covers(collection: collection) == covered)
        // The keys a segment writes agree, with an index of another collection beside it.
        guard !collection.isEmpty else { return }
        let keys = SegmentWriter.keys(
            of: ["timestamp": .integer(1)], at: DocumentPath(collection: collection, documentID: "d"),
            indexes: [IndexDefinition("other", ["timestamp"]), index])
        #expect(keys.map(\.index) == (covered ? [1] : []))
    }
}
