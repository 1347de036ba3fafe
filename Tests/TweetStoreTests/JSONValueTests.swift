import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct JSONValueTests {
    /// Parses UTF-8 text as the journal reader does.
    private func parse(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }

    private func text(of value: JSONValue) -> String {
        String(decoding: value.serialized(), as: UTF8.self)
    }

    static let roundTripValues: [JSONValue] = [
        .null, .bool(true), .bool(false),
        .integer(0), .integer(-1), .integer(42), .integer(.max), .integer(.min),
        .double(0.5), .double(-1.25e-7), .double(3.141592653589793), .double(1e300), .double(-2.5e20),
        .string(""), .string("plain"),
        .string("quote \" backslash \\ slash / newline \n return \r tab \t"),
        .string("controls \u{0} \u{1} \u{8} \u{C} \u{1F} and delete \u{7F}"),
        .string("é ü ß 日本語 한국어 \u{2028}\u{2029}"),
        .string("astral 😀 👍🏽 𝄞 🇳🇴"),
        .array([]), .object([:]),
        .array([.integer(1), .string("two"), .null, .array([.bool(false)]), .object(["k": .double(0.25)])]),
        .object([
            "b": .integer(2), "a": .string("x"), "é": .string("accent key"), "line\nbreak": .null,
            "nested": .object(["z": .array([.integer(1), .integer(2)]), "y": .object([:])]),
        ]),
    ]

    @Test(arguments: roundTripValues)
    func serialisingThenParsingGivesBackTheSameValue(_ value: JSONValue) throws {
        #expect(try JSONValue.parse(value.serialized()) == value)
    }

    @Test(arguments: roundTripValues)
    func serialisedTextIsValidJSONForFoundationToo(_ value: JSONValue) throws {
        let data = Data(JSONValue.array([value]).serialized())
        #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: data) }
    }

    @Test func serialisationSortsKeysAndEscapesOnlyWhatJSONRequires() {
        let value = JSONValue.object([
            "zeta": .integer(1), "alpha": .string("a\"b\\c\nd\re\tf\u{1}g/é😀"), "mid": .array([.bool(true), .null]),
        ])
        #expect(text(of: value) == #"{"alpha":"a\"b\\c\nd\re\tf\u0001g/é😀","mid":[true,null],"zeta":1}"#)
    }

    @Test func equalObjectsSerialiseToEqualBytesWhateverTheirInsertionOrder() {
        var first: JSONObject = [:]
        var second: JSONObject = [:]
        let keys = (0..<50).map { "key\($0)" }
        for key in keys { first[key] = .string(key) }
        for key in keys.reversed() { second[key] = .string(key) }
        #expect(JSONValue.object(first).serialized() == JSONValue.object(second).serialized())
    }

    @Test(arguments: [
        (JSONValue.double(2.0), "2"), (.double(-0.0), "0"), (.double(0.1), "0.1"), (.double(.nan), "null"),
        (.double(.infinity), "null"), (.integer(-9_223_372_036_854_775_808), "-9223372036854775808"),
    ])
    func numbersSerialiseAsValidJSONNumbers(_ value: JSONValue, _ expected: String) {
        #expect(text(of: value) == expected)
    }

    @Test(arguments: [
        (#""\u00e9\u00E9""#, JSONValue.string("éé")),
        (#""\ud83d\ude00""#, .string("😀")),
        (#""\uD834\uDD1E clef""#, .string("𝄞 clef")),
        (#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{8}\u{C}\n\r\t")),
        (#""\u0000""#, .string("\u{0}")),
        (#""caf\u00e9 \ud83d\ude00 ok""#, .string("café 😀 ok")),
    ])
    func escapesDecodeToTheCharactersTheyName(_ text: String, _ expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test(arguments: [
        ("0", JSONValue.integer(0)), ("-0", .integer(0)), ("17", .integer(17)), ("-17", .integer(-17)),
        ("9223372036854775807", .integer(.max)), ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("1.5", .double(1.5)), ("-0.25", .double(-0.25)), ("1e3", .double(1000)), ("1E-2", .double(0.01)),
        ("2.5e+2", .double(250)),
    ])
    func numbersParseAsIntegersWhenWholeAndDoublesOtherwise(_ text: String, _ expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test func whitespaceAroundValuesIsAllowed() throws {
        #expect(try parse(" \n\t{ \"a\" : [ 1 , 2 ] }\r\n ") == .object(["a": .array([.integer(1), .integer(2)])]))
    }

    @Test func aDuplicateKeyKeepsTheLastValue() throws {
        #expect(try parse(#"{"a":1,"a":2}"#) == .object(["a": .integer(2)]))
    }

    static let invalidTexts: [String] = [
        "", " ", "{", "}", "[", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":1,}", "{a:1}", "{\"a\":}", "\"abc",
        #""\x""#, #""\u12G4""#, #""\u12""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud83d x""#,
        "tru", "nul", "fals", "True", "NaN", "Infinity", "-", ".5", "+1", "1e", "1e+", "1.2.3", "--1", "0x10",
        "1 2", "[1]x", "{}{}", "\"a\u{1}b\"", "\"line\nbreak\"",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ]

    @Test(arguments: invalidTexts)
    func invalidTextFailsToParse(_ text: String) {
        #expect(throws: JSONParseError.self) { try parse(text) }
    }

    @Test func invalidUTF8InAStringFailsToParse() throws {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0x5C, 0x6E, 0xC3, 0x22]) }
        // After plain ASCII read eight bytes at a time, and after ASCII that needs no validating.
        let ascii = Array("sixteen ascii by".utf8)
        for bad: [UInt8] in [[0xFF], [0xC3], [0xE2, 0x82], [0xC0, 0xAF], [0xED, 0xA0, 0x80]] {
            #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22] + ascii + bad + [0x22]) }
            #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22] + ascii + bad + ascii + [0x22]) }
        }
        #expect(try JSONValue.parse([0x22] + ascii + [0xC3, 0xA9] + [0x22]) == .string("sixteen ascii byé"))
    }

    @Test func aParseErrorSaysWhereParsingStopped() {
        let error = #expect(throws: JSONParseError.self) { try parse("[1, 2, x]") }
        #expect(error?.offset == 7)
        #expect(error?.description.contains("at byte 7") == true)
    }

    @Test(arguments: ["01", "-01", "1.", "1.e5", "00"])
    func numbersWithLeadingZerosOrABareDotAreNotJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try parse(text) }
    }

    @Test func valuesOrderByTypeThenByValue() {
        let ascending: [JSONValue] = [
            .null, .bool(false), .bool(true), .integer(-5), .double(1.5), .integer(2), .string("A"), .string("a"),
            .string("é"), .array([.integer(1)]), .array([.integer(1), .integer(0)]), .object([:]),
        ]
        for (lower, higher) in zip(ascending, ascending.dropFirst()) {
            #expect(JSONValue.compare(lower, higher) == .orderedAscending, "\(lower) < \(higher)")
            #expect(JSONValue.compare(higher, lower) == .orderedDescending, "\(higher) > \(lower)")
        }
        #expect(JSONValue.compare(.integer(3), .double(3)) == .orderedSame)
    }

    @Test func queriesTreatAnIntegerAndAnEqualDoubleAsEqual() {
        #expect(JSONValue.queryEquals(.integer(3), .double(3.0)))
        #expect(!JSONValue.queryEquals(.integer(3), .double(3.5)))
        #expect(!JSONValue.queryEquals(.integer(3), .string("3")))
    }

    @Test func accessorsReturnOnlyTheirOwnKind() {
        #expect(JSONValue.string("x").stringValue == "x")
        #expect(JSONValue.integer(1).stringValue == nil)
        #expect(JSONValue.integer(7).integerValue == 7)
        #expect(JSONValue.double(7.0).integerValue == 7)
        #expect(JSONValue.double(7.5).integerValue == nil)
        #expect(JSONValue.object(["a": .null]).objectValue == ["a": .null])
        #expect(JSONValue.array([]).objectValue == nil)
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, #"{"data":{},"path":"x/a","path":"x/b"}"#, #"[{"k":{"z":1,"z":1}}]"#, "1e999999",
        "-1e999999", "1e-999999", #"{"likes":1e400}"#,
    ])
    func aStrictParseRefusesRepeatedKeysAndNumbersOutOfRange(text: String) throws {
        // The store's own parse keeps the last key and reads the numbers as infinity or 0.
        _ = try JSONValue.parse(Array(text.utf8))
        #expect(throws: JSONParseError.self) { try JSONValue.parseStrictly(Array(text.utf8)[...]) }
    }

    @Test func aStrictParseReadsWhatAParseReads() throws {
        let text = #"{"a":[1,2.5,-0,0.0,0e10,1e300,"x"],"b":{"c":null,"d":true}}"#
        #expect(try JSONValue.parseStrictly(Array(text.utf8)[...]) == JSONValue.parse(Array(text.utf8)))
    }
}
