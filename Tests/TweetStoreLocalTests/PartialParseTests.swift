import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// An index probe reads only its key's fields, and a user search skips lines by their bytes: both
/// must agree with reading the whole line, whatever the line holds.
struct PartialParseTests {
    /// Random documents of every JSON kind, nested, with escapes and non-ASCII text.
    private static func document(_ generator: inout SplitMix64, depth: Int = 0) -> JSONValue {
        let strings = ["", "a", "caption \\\" quoted", "back\\\\slash", "東京", "tab\t", "{[,]}", "\u{1F600}"]
        switch Int.random(in: 0..<(depth < 3 ? 7 : 4), using: &generator) {
        case 0: return .string(strings.randomElement(using: &generator)!)
        case 1: return .integer(Int64.random(in: -1_000_000...1_000_000, using: &generator))
        case 2: return .double(Double(Int.random(in: -999...999, using: &generator)) / 8)
        case 3: return [.null, .bool(true), .bool(false)].randomElement(using: &generator)!
        case 4, 5:
            var fields: JSONObject = [:]
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                fields[
                    ["uid", "timestamp", "caption", "likes", "entities", "x\\\"y"].randomElement(using: &generator)!] =
                    document(&generator, depth: depth + 1)
            }
            return .object(fields)
        default:
            return .array(
                (0..<Int.random(in: 0...4, using: &generator)).map { _ in document(&generator, depth: depth + 1) })
        }
    }

    @Test func keepingFieldsGivesThoseFieldsOfTheWholeParse() throws {
        var generator = SplitMix64(seed: 7)
        let wanted = ["uid", "timestamp", "x\\\"y"]
        for _ in 0..<2000 {
            guard case .object(let fields) = Self.document(&generator, depth: 0) else { continue }
            let line = JSONValue.array([.string("tweets/t1"), .object(fields), .string("00000000")]).serialized()
            let whole = try JSONValue.parse(line)
            let partial = try line.withUnsafeBufferPointer { (buffer) throws(JSONParseError) in
                try JSONValue.parse(buffer, keepingFields: wanted.map { Array($0.utf8) })
            }
            guard case .array(let parts) = partial, case .object(let kept) = parts[1],
                case .array(let wholeParts) = whole, case .object(let all) = wholeParts[1]
            else {
                Issue.record("not a line: \(partial)")
                return
            }
            #expect(kept == all.filter { wanted.contains($0.key) })
            #expect(parts[0] == wholeParts[0] && parts[2] == wholeParts[2])
        }
    }

    /// A partial parse refuses exactly the lines a full parse refuses: cut, damaged with every
    /// kind of byte, anywhere (a probe must never read a key out of a line no reader accepts).
    @Test func aDamagedLineIsRefusedAsAFullParseRefusesIt() {
        let line = JSONValue.array([
            .string("tweets/t1"),
            .object([
                "uid": .string("u"), "caption": .string("a \"b\" [c] {d} é"), "likes": .integer(12),
                "entities": .object(["m": .array([.double(1.5), .bool(true), .null, .object([:])])]),
            ]),
            .string("0"),
        ]).serialized()
        let damages: [UInt8?] = [nil] + Array("\"\\{}[]:,0ae-. \t".utf8) + [0x01, 0x80, 0xC3, 0xFF]
        var refused = 0
        for position in 0..<line.count {
            for damage in damages {
                for replaces in [false, true] {
                    var bytes = Array(line[..<position])
                    if let damage { bytes.append(damage) }
                    bytes += line[(replaces || damage == nil ? position + 1 : position)...]
                    let whole = Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }
                    let partial = bytes.withUnsafeBufferPointer { buffer in
                        Result { () throws(JSONParseError) in
                            try JSONValue.parse(buffer, keepingFields: [Array("uid".utf8)])
                        }
                    }
                    switch (whole, partial) {
                    case (.success, .success): break
                    case (.failure, .failure): refused += 1
                    default:
                        Issue.record("\(String(decoding: bytes, as: UTF8.self)): whole \(whole), partial \(partial)")
                        return
                    }
                }
            }
        }
        #expect(refused > line.count)
    }

    /// Nesting past the limit is refused in a skipped field as in a parsed one.
    @Test func deepNestingIsRefusedInASkippedField() {
        for depth in [509, 510, 511, 600] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let bytes = Array("[\"p\",{\"x\":\(nested)},\"0\"]".utf8)
            let whole = (try? JSONValue.parse(bytes)) != nil
            let partial =
                bytes.withUnsafeBufferPointer { buffer in
                    try? JSONValue.parse(buffer, keepingFields: [Array("uid".utf8)])
                } != nil
            #expect(whole == partial, "depth \(depth)")
        }
    }

    /// The following feed's raw-line check: false only when no occurrence of `"uid":"` is
    /// followed by a plain string among the values, as a byte-by-byte search says.
    @Test func mayHaveAgreesWithAPlainSearch() {
        var generator = SplitMix64(seed: 4)
        let pieces = ["\"uid\":\"", "\"", "u", "id", "a", "b", "ab", "\\", ":", ","].map { Array($0.utf8) }
        let key = Array("\"uid\":\"".utf8)
        let values: Set<String> = ["a", "ab"]
        for _ in 0..<20_000 {
            let line = (0..<Int.random(in: 0...12, using: &generator)).flatMap { _ in
                pieces.randomElement(using: &generator)!
            }
            var expected = false
            var position = 0
            while position + key.count <= line.count {
                if Array(line[position..<(position + key.count)]) == key {
                    let start = position + key.count
                    var end = start
                    while end < line.count, line[end] != 0x22, line[end] != 0x5C { end += 1 }
                    if end == line.count || line[end] == 0x5C
                        || values.contains(String(decoding: line[start..<end], as: UTF8.self))
                    {
                        expected = true
                        break
                    }
                    position = end
                } else {
                    position += 1
                }
            }
            let found = line.withUnsafeBufferPointer {
                RequiredValue(key: key, values: UTF8Set(Array(values))).mayMatch($0)
            }
            #expect(found == expected, "\(String(decoding: line, as: UTF8.self))")
            if found != expected { return }
        }
    }

    /// The raw-line check on whole segment lines, where it reads the last member first: it never
    /// says no to a line whose parsed top-level `uid` is one of the values, whatever the other
    /// fields hold (the key and quotes inside strings, backslashes, a nested `uid`, `uid` twice).
    @Test func mayHaveNeverMissesTheParsedUid() throws {
        var generator = SplitMix64(seed: 9)
        let texts = ["a", "ab", "b", "\"uid\":\"a\"", "a\\", "\"", "},\"0\"]", "\u{E9}a", ""]
        let names = ["uid", "text", "zz", "a"]
        let required = RequiredValue(field: "uid", values: UTF8Set(["a", "ab"]))
        var fastAnswers = (yes: 0, no: 0)
        for _ in 0..<20_000 {
            var members: [(String, JSONValue)] = []
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                let text = JSONValue.string(texts.randomElement(using: &generator)!)
                let value: JSONValue =
                    Bool.random(using: &generator) ? text : .object(["uid": text])
                members.append((names.randomElement(using: &generator)!, value))
            }
            // Serialized in this order (not sorted), duplicates included, as a hostile file may.
            let object =
                "{"
                + members.map { name, value in
                    "\"\(name)\":" + String(decoding: value.serialized(), as: UTF8.self)
                }.joined(separator: ",") + "}"
            let line = Array("[\"tweets/t\",\(object),\"0a1b2c3d\"]".utf8)
            guard case .array(let parts) = try JSONValue.parse(line), case .object(let fields) = parts[1] else {
                Issue.record("not a line: \(String(decoding: line, as: UTF8.self))")
                return
            }
            let parsedMatches = ["a", "ab"].contains(fields["uid"]?.stringValue ?? "-")
            let found = line.withUnsafeBufferPointer { required.mayMatch($0) }
            if parsedMatches {
                #expect(found, "\(String(decoding: line, as: UTF8.self))")
                fastAnswers.yes += 1
            } else if !found {
                fastAnswers.no += 1
            }
        }
        #expect(fastAnswers.yes > 200 && fastAnswers.no > 1000, "\(fastAnswers)")
    }

    /// The raw-line check's set of values: on ASCII it answers as a `Set<String>` does, values
    /// colliding in its table, prefixes and the empty string included; past ASCII it never says
    /// no (a `String` equal to a value may have other bytes), and the parsed document decides.
    @Test func utf8SetAnswersAsASetOfStringsOnASCII() {
        var generator = SplitMix64(seed: 11)
        let letters = Array("ab_0Z")
        // Short words (prefixes of each other, many alike) and words past eight bytes, which are
        // hashed eight at a time, then byte by byte.
        var longest = 4
        func word() -> String {
            String(
                (0..<Int.random(in: 0...longest, using: &generator)).map { _ in
                    letters.randomElement(using: &generator)!
                })
        }
        for round in 0..<300 {
            longest = round % 2 == 0 ? 4 : 19
            // Up to 40 values in a table of at most 128 buckets: probes run past collisions.
            let values = Set((0..<Int.random(in: 0...40, using: &generator)).map { _ in word() })
            let set = UTF8Set(Array(values) + Array(values.prefix(3)))  // duplicates found at their first copy
            for _ in 0..<50 {
                let candidate = Bool.random(using: &generator) ? values.randomElement(using: &generator) ?? "" : word()
                let found = Array(candidate.utf8).withUnsafeBufferPointer { set.contains($0) }
                #expect(found == values.contains(candidate), "round \(round): \(candidate) in \(values)")
            }
        }
        let set = UTF8Set(["caf\u{E9}"])
        for other in ["cafe\u{301}", "caf\u{E9}", "\u{FFFD}"] {
            #expect(Array(other.utf8).withUnsafeBufferPointer { set.contains($0) }, "\(other)")
        }
        // A value past ASCII may equal an ASCII string: "\u{212A}" (KELVIN SIGN) == "K".
        #expect("\u{212A}" == "K")
        #expect(Array("K".utf8).withUnsafeBufferPointer { UTF8Set(["\u{212A}"]).contains($0) })
        #expect(!Array("J".utf8).withUnsafeBufferPointer { UTF8Set(["K"]).contains($0) })
    }

    /// The raw-line filter's claim, checked on every scalar of this toolchain's Unicode: none past
    /// ASCII but U+212A KELVIN SIGN lowercases to, or is canonically equivalent to, a character a
    /// literal needle may hold (a–z, 0–9, `_`, space, `.`, `-`), so a line without the needle's
    /// bytes and without U+212A cannot match.
    @Test func onlyTheKelvinSignLowercasesOrDecomposesToANeedleCharacter() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_ .-")
        var found: [UInt32] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let lowered = scalar.properties.lowercaseMapping
            let decomposed = String(scalar).decomposedStringWithCanonicalMapping
            if lowered.contains(where: { allowed.contains($0) })
                || decomposed.lowercased().contains(where: { allowed.contains($0) })
            {
                found.append(value)
            }
        }
        #expect(found == [0x212A], "\(found.map { String($0, radix: 16) })")
    }

    @Test func mayContainAgreesWithAPlainSearch() {
        var generator = SplitMix64(seed: 3)
        let alphabet = Array("aAbBcC ada@Ada\"\\{}:,".utf8) + [0xC3, 0xA9, 0xE2, 0x84, 0xAA]
        for _ in 0..<20_000 {
            let line = (0..<Int.random(in: 0...48, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            let needle = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                Array("ad@b".utf8).randomElement(using: &generator)!
            }
            let lowered = line.map { (65...90).contains($0) ? $0 + 32 : $0 }
            // The Kelvin sign (E2 84 AA) lowercases to "k": a line with one may match any needle
            // as long as it. No other byte past ASCII can make an ASCII needle match.
            let kelvin = line.indices.dropLast(2).contains { line[$0...($0 + 2)].elementsEqual([0xE2, 0x84, 0xAA]) }
            let expected =
                needle.isEmpty || (needle.count <= line.count && kelvin)
                || (needle.count <= lowered.count
                    && (0...(lowered.count - needle.count)).contains {
                        lowered[$0..<($0 + needle.count)].elementsEqual(needle)
                    })
            let found = line.withUnsafeBufferPointer { Segment.mayContain($0, needle) }
            #expect(
                found == expected,
                "\(String(decoding: line, as: UTF8.self)) / \(String(decoding: needle, as: UTF8.self))")
            if found != expected { return }
        }
    }
}
