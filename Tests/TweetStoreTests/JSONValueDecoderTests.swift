import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// The store's own decoder against Foundation's `JSONDecoder` (with the store's date format) as the
/// reference: for every input both succeed with the same value, or both fail.
struct JSONValueDecoderTests {
    enum Mood: String, Codable, Equatable {
        case calm, busy
    }

    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case square(side: Int)
    }

    struct Inner: Codable, Equatable {
        var name: String
        var tags: [String]
    }

    struct Probe: Codable, Equatable {
        var int: Int
        var int8: Int8
        var uint8: UInt8
        var int64: Int64
        var double: Double
        var float: Float
        var flag: Bool
        var text: String
        var date: Date
        var numbers: [Int]
        var table: [String: Int]
        var inner: Inner
        var list: [Inner]
        var mood: Mood
        var shape: Shape
        var optionalText: String?
        var optionalDate: Date?
        var optionalList: [Int?]?
    }

    static let probe = Probe(
        int: -42, int8: -128, uint8: 255, int64: .max, double: 0.25, float: 1.5, flag: true, text: "é😀\n",
        date: Date(timeIntervalSince1970: 1_796_031_660.123), numbers: [1, 2, 3], table: ["a": 1, "b": 2],
        inner: Inner(name: "in", tags: ["x"]), list: [Inner(name: "a", tags: []), Inner(name: "b", tags: ["c", "d"])],
        mood: .busy, shape: .circle(radius: 2.5), optionalText: nil, optionalDate: Date(timeIntervalSince1970: 0),
        optionalList: [1, nil, 3])

    private static var fields: JSONObject {
        get throws { try DocumentCoding.encode(probe) }
    }

    /// Decodes `value` both ways; `nil` for a failure.
    private func decodeBothWays<T: Decodable & Equatable>(_ type: T.Type, _ value: JSONValue) -> (T?, T?) {
        let ours = try? JSONValueDecoder().decode(T.self, from: value)
        let reference = try? DocumentCoding.makeDecoder().decode(T.self, from: Data(value.serialized()))
        return (ours, reference)
    }

    @Test func aModelDecodesToWhatWasEncoded() throws {
        let decoded = try JSONValueDecoder().decode(Probe.self, from: .object(try Self.fields))
        #expect(decoded == Self.probe)
    }

    @Test func theAppsModelsDecodeAsFoundationDecodesThem() throws {
        let user = User(
            id: "u1", email: "a@b.co", username: "a", fullname: "A", profileImageUrl: nil, bio: "bio", location: nil,
            website: "https://a.example")
        let tweet = TweetRecord(
            id: "t1", uid: "u1", caption: "hi", likes: 3, timestamp: Date(timeIntervalSince1970: 1.5), replyToId: "t0")
        let (ourUser, referenceUser) = decodeBothWays(User.self, .object(try DocumentCoding.encode(user)))
        #expect(ourUser == user)
        #expect(referenceUser == user)
        let (ourTweet, referenceTweet) = decodeBothWays(TweetRecord.self, .object(try DocumentCoding.encode(tweet)))
        #expect(ourTweet == tweet)
        #expect(referenceTweet == tweet)
    }

    static let changes: [(String, JSONValue)] = [
        ("int8", .integer(127)), ("int8", .integer(128)), ("int8", .integer(-129)), ("uint8", .integer(-1)),
        ("uint8", .integer(256)), ("int", .double(2.5)), ("int", .string("1")), ("int", .bool(true)), ("int", .null),
        ("double", .integer(3)), ("double", .string("3")), ("flag", .integer(1)), ("flag", .string("true")),
        ("text", .integer(1)), ("text", .null), ("date", .string("2026-11-30")), ("date", .integer(0)),
        ("date", .string("2026-11-30T09:41:00Z")), ("numbers", .array([.integer(1), .string("2")])),
        ("numbers", .object([:])), ("numbers", .array([])), ("table", .object(["a": .string("x")])),
        ("table", .array([])), ("inner", .object(["name": .string("n")])), ("inner", .string("n")),
        ("list", .array([.object(["name": .string("a"), "tags": .array([])]), .integer(1)])),
        ("mood", .string("sleepy")),
        ("mood", .string("calm")), ("shape", .object(["square": .object(["side": .integer(2)])])),
        ("shape", .object(["triangle": .object([:])])), ("optionalText", .string("set")), ("optionalText", .integer(1)),
        ("optionalDate", .null), ("optionalDate", .string("nope")), ("optionalList", .null),
        ("optionalList", .array([.null, .integer(2)])), ("optionalList", .array([.string("x")])),
    ]

    @Test(arguments: changes)
    func aChangedFieldDecodesOrFailsAsFoundationDoes(_ field: String, _ value: JSONValue) throws {
        var fields = try Self.fields
        fields[field] = value
        let (ours, reference) = decodeBothWays(Probe.self, .object(fields))
        #expect(
            (ours == nil) == (reference == nil),
            "ours: \(String(describing: ours)), Foundation: \(String(describing: reference))")
        #expect(ours == reference)
    }

    @Test(arguments: ["int", "text", "date", "inner", "list", "mood", "shape"])
    func aMissingRequiredFieldFailsAndAMissingOptionalOneIsNil(_ field: String) throws {
        var fields = try Self.fields
        fields[field] = nil
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Probe.self, from: .object(fields)) }
        var optional = try Self.fields
        optional["optionalDate"] = nil
        optional["optionalList"] = nil
        let decoded = try JSONValueDecoder().decode(Probe.self, from: .object(optional))
        #expect(decoded.optionalDate == nil)
        #expect(decoded.optionalList == nil)
    }

    @Test func errorsCarryTheKeyPathToTheBadValue() throws {
        var fields = try Self.fields
        fields["list"] = .array([
            .object(["name": .string("a"), "tags": .array([])]),
            .object(["name": .string("b"), "tags": .array([.integer(7)])]),
        ])
        let error = #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Probe.self, from: .object(fields))
        }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue } == [
                "list", "[1]", "tags", "[0]",
            ])
        #expect(DocumentCoding.describe(try #require(error)).contains("list.[1].tags.[0]"))
    }

    @Test func aMissingKeyIsReportedWithItsParent() throws {
        var fields = try Self.fields
        fields["inner"] = .object(["tags": .array([])])
        let error = #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Probe.self, from: .object(fields))
        }
        #expect(DocumentCoding.describe(try #require(error)) == "field \"name\" is missing in inner")
    }
}
