import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct DocumentCodingTests {
    private let path = DocumentPath(collection: "tweets", documentID: "t1")

    private var goodTweet: JSONObject {
        [
            "uid": .string("u1"), "caption": .string("hello"), "likes": .integer(2),
            "timestamp": .string("2026-11-30T09:41:00.123Z"), "replyToId": .null,
        ]
    }

    /// The reason of the `undecodable` error decoding `fields` as a tweet record, after checking the path.
    private func undecodableReason(_ fields: JSONObject) -> String? {
        let error = #expect(throws: StoreError.self) {
            try DocumentSnapshot(path: path, data: fields).data(as: TweetRecord.self)
        }
        guard case .undecodable(let failedPath, let reason)? = error else {
            Issue.record("expected StoreError.undecodable, got \(String(describing: error))")
            return nil
        }
        #expect(failedPath == "tweets/t1")
        return reason
    }

    @Test func decodingTakesTheIDFromThePathAndTheTimeFromTheTimestamp() throws {
        let record = try DocumentSnapshot(path: path, data: goodTweet).data(as: TweetRecord.self)
        #expect(record.id == "t1")
        #expect(record.likes == 2)
        #expect(Timestamp.string(from: record.timestamp) == "2026-11-30T09:41:00.123Z")
        #expect(record.replyToId == nil)
    }

    @Test func encodingWritesDatesAsTimestampsAndKeepsTheIDOutOfTheFields() throws {
        let record = TweetRecord(
            id: "t1", uid: "u1", caption: "hi", likes: 0, timestamp: Date(timeIntervalSince1970: 0.5), replyToId: nil)
        let fields = try DocumentCoding.encode(record).removingID()
        #expect(fields["id"] == nil)
        #expect(fields["timestamp"] == .string("1970-01-01T00:00:00.500Z"))
        #expect(fields["replyToId"] == .null)
    }

    @Test(arguments: [
        ("likes", JSONValue.string("many"), "likes"),
        ("likes", .null, "likes"),
        ("timestamp", .string("yesterday"), "timestamp"),
        ("timestamp", .integer(5), "timestamp"),
        ("caption", .array([]), "caption"),
        ("uid", .bool(true), "uid"),
    ])
    func aDamagedFieldIsNamedInTheError(_ field: String, _ value: JSONValue, _ named: String) {
        var fields = goodTweet
        fields[field] = value
        let reason = undecodableReason(fields)
        #expect(reason?.contains(named) == true, "\(reason ?? "nil")")
    }

    @Test(arguments: ["uid", "caption", "likes", "timestamp"])
    func aMissingFieldIsNamedInTheError(_ field: String) {
        var fields = goodTweet
        fields[field] = nil
        let reason = undecodableReason(fields)
        #expect(reason?.contains("\"\(field)\" is missing") == true, "\(reason ?? "nil")")
    }

    @Test func theErrorMessageNamesTheDocument() {
        let error = StoreError.undecodable(path: "tweets/t1", reason: "field likes is not a Int")
        #expect(error.errorDescription?.contains("tweets/t1") == true)
        #expect(error.errorDescription?.contains("likes") == true)
    }
}
