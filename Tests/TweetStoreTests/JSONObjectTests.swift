import Testing

@testable import TweetStore

/// ``JSONObject`` keeps a document's fields in a list, with a dictionary of positions past a
/// couple of dozen: both must answer as a dictionary would.
struct JSONObjectTests {
    /// Sizes below, at and past the point where the positions are kept.
    static let sizes = [0, 1, 5, JSONObject.indexedCount, JSONObject.indexedCount + 1, 200]

    @Test(arguments: sizes)
    func itAnswersAsADictionaryDoes(_ size: Int) {
        var object = JSONObject()
        var dictionary: [String: JSONValue] = [:]
        // Keys of every length around a probe's fifteen bytes, some sharing long prefixes.
        let keys = (0..<size).map { String(repeating: "k", count: $0 % 20) + "\($0)" }
        for (position, key) in keys.enumerated() {
            object[key] = .integer(Int64(position))
            dictionary[key] = .integer(Int64(position))
        }
        #expect(object.count == dictionary.count)
        for key in keys { #expect(object[key] == dictionary[key]) }
        #expect(object["absent"] == nil && object[String(repeating: "k", count: 19)] == nil)
        // Replacing keeps the count; removing every third key leaves the rest.
        for key in keys { object[key] = .string(key) }
        #expect(object.count == size)
        for key in keys.enumerated().filter({ $0.offset % 3 == 0 }).map(\.element) {
            #expect(object.removeValue(forKey: key) == .string(key))
            dictionary[key] = nil
        }
        #expect(object.count == dictionary.count)
        for key in keys { #expect(object[key] == dictionary[key].map { _ in .string(key) }) }
        // Keys come out in the order they were first set.
        #expect(object.keys == keys.filter { dictionary[$0] != nil })
    }

    /// Keys set in their byte order (as every stored object is parsed) are searched by halves
    /// past the positions' threshold: lookups, replacements and removals still answer as a
    /// dictionary's, and a key out of order then turns the positions on.
    @Test(arguments: sizes)
    func anObjectInByteOrderAnswersAsADictionaryDoes(_ size: Int) throws {
        // Keys sharing their first eight bytes, their first fifteen, or none; some not ASCII.
        let stems = ["", "uid", "abcdefgh", "abcdefghijklmnop", "\u{E9}t\u{E9}", "\u{6771}\u{4EAC}"]
        let keys = Array(Set((0..<size).map { stems[$0 % stems.count] + "\($0 * 7919 % 1000)" }))
            .sorted { ByteOrder.precedes($0, $1) }
        var object = JSONObject()
        for (position, key) in keys.enumerated() { object[key] = .integer(Int64(position)) }
        #expect(object.count == keys.count)
        for (position, key) in keys.enumerated() { #expect(object[key] == .integer(Int64(position)), "\(key)") }
        for absent in [
            "", "a", "uid", "abcdefgh", "abcdefghijklmnop", "zzz", "\u{E9}", keys.last.map { $0 + "0" } ?? "x",
        ]
        where !keys.contains(absent) {
            #expect(object[absent] == nil, "\(absent)")
        }
        // A key set again keeps its place; removing one keeps the others found.
        for key in keys { object[key] = .string(key) }
        #expect(object.count == keys.count)
        let removed = Set(keys.enumerated().filter { $0.offset % 3 == 1 }.map(\.element))
        for key in removed { #expect(object.removeValue(forKey: key) == .string(key)) }
        for key in keys { #expect(object[key] == (removed.contains(key) ? nil : .string(key)), "\(key)") }
        // A key before the last: found, and so is every other key after it.
        let early = "!"
        object[early] = .bool(true)
        #expect(object[early] == .bool(true) && object.keys.last == early)
        for key in keys { #expect(object[key] == (removed.contains(key) ? nil : .string(key)), "\(key)") }
        object[early] = .bool(false)
        #expect(object.count == keys.count - removed.count + 1)

        // The same keys parsed from stored text, with one given twice at the end: refused strictly.
        let fields = keys.map { "\"\($0)\":1" }
        if let first = keys.first {
            let text = "{" + (fields + ["\"\(first)\":2"]).joined(separator: ",") + "}"
            #expect(throws: JSONParseError.self) { try JSONValue.parseStrictly(ArraySlice(Array(text.utf8))) }
            guard case .object(let parsed) = try JSONValue.parse(Array(text.utf8)) else {
                Issue.record("not an object")
                return
            }
            #expect(parsed.count == keys.count && parsed[first] == .integer(2))
        }
    }

    @Test(arguments: sizes)
    func equalityAndHashingIgnoreTheOrder(_ size: Int) {
        let pairs = (0..<size).map { ("key\($0)", JSONValue.integer(Int64($0))) }
        let forwards = JSONObject(pairs)
        let backwards = JSONObject(pairs.reversed())
        #expect(forwards == backwards)
        #expect(forwards.hashValue == backwards.hashValue)
        guard size > 0 else { return }
        var changed = backwards
        changed["key0"] = .integer(-1)
        #expect(changed != forwards)
        var smaller = forwards
        smaller["key0"] = nil
        #expect(smaller != forwards && smaller.count == size - 1)
    }

    /// Keys are the same when their bytes are: two spellings of "é" are two fields, as they are in
    /// the JSON text and in PostgreSQL's `jsonb`.
    @Test func keysAreComparedByTheirBytes() throws {
        var object: JSONObject = ["caf\u{E9}": .integer(1)]
        object["cafe\u{301}"] = .integer(2)
        #expect(object.count == 2)
        #expect(object["caf\u{E9}"] == .integer(1) && object["cafe\u{301}"] == .integer(2))
        // Written in their bytes' order whichever was set first, and read back as two.
        var reversed: JSONObject = ["cafe\u{301}": .integer(2)]
        reversed["caf\u{E9}"] = .integer(1)
        #expect(JSONValue.object(object).serialized() == JSONValue.object(reversed).serialized())
        #expect(try JSONValue.parse(JSONValue.object(object).serialized()) == .object(object))
    }

    /// A parse of an object with many keys stays linear: each key is found through the positions.
    @Test func aParseOfManyKeysKeepsTheLastOfADuplicate() throws {
        let count = 20_000
        let text = "{" + (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k7\":-7}"
        guard case .object(let object) = try JSONValue.parse(Array(text.utf8)) else {
            Issue.record("not an object")
            return
        }
        #expect(object.count == count)
        #expect(object["k7"] == .integer(-7))
        #expect(object["k19999"] == .integer(19_999))
    }
}

extension JSONObjectTests {
    /// A parse makes each key's probe from the text's bytes: the same probe as the key's own, for
    /// keys of every length around the probe's fifteen bytes, with escapes, and past ASCII.
    @Test func aParsedKeysProbeIsTheKeysOwn() throws {
        let keys =
            (0..<40).map { String(repeating: "x", count: $0) } + [
                "caf\u{E9}", "\u{6771}\u{4EAC}", "a\"b", "tab\tin", "\u{1F600}",
            ]
        for key in keys {
            let text = JSONValue.object([key: .integer(1)]).serialized()
            guard case .object(let object) = try JSONValue.parse(text) else {
                Issue.record("not an object")
                continue
            }
            #expect(object[key] == .integer(1), "\(key.debugDescription)")
            #expect(object.keys == [key])
            // The key's bytes in the text, when it needed no escapes: `{"…":1}`.
            let raw = Array(key.utf8)
            guard text.count == raw.count + 6 else { continue }
            text.withUnsafeBufferPointer { buffer in
                let probe = JSONObject.Probe(bytes: UnsafeBufferPointer(rebasing: buffer[2..<(2 + raw.count)]))
                #expect(probe == JSONObject.Probe(key), "\(key.debugDescription)")
            }
        }
    }
}
