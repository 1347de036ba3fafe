import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TwitterText

/// Models that read themselves (``DocumentDecodable``) must read exactly what `Decodable` read
/// through ``JSONValueDecoder``, and refuse the same documents with the same sentences.
struct FieldReaderTests {
    private let path = DocumentPath(collection: "tweets", documentID: "t1")

    private var tweet: JSONObject {
        [
            "uid": .string("u1"), "caption": .string("hi @bob #tag"), "likes": .integer(3),
            "timestamp": .string("2026-11-30T09:41:00.123Z"), "replyToId": .string("t0"), "replyCount": .double(2),
            "retweets": .null, "quoteId": .string("q1"), "id": .string("stored-id-is-not-used"),
            "entities": .object([
                "mentions": .array([.string("bob")]), "hashtags": .array([.string("tag")]), "urls": .array([]),
            ]),
            "source": .object(["twitter": .string("123"), "favorites": .integer(7), "overLimit": .bool(true)]),
        ]
    }

    private var user: JSONObject {
        [
            "username": .string("ada"), "fullname": .string("Ada L"), "email": .string("ada@example.com"),
            "bio": .null, "website": .string("https://example.com"),
        ]
    }

    /// What the old path gives: `Decodable` over the fields with the ID put in, or its error sentence.
    private func viaDecodable<T: Decodable>(_ type: T.Type, _ fields: JSONObject, id: String) -> Result<T, Reason> {
        var fields = fields
        fields["id"] = .string(id)
        do {
            return .success(try JSONValueDecoder().decode(T.self, from: .object(fields)))
        } catch let error as DecodingError {
            return .failure(Reason(text: DocumentCoding.describe(error)))
        } catch {
            return .failure(Reason(text: "\(error)"))
        }
    }

    private func viaReader<T: DocumentDecodable>(_ type: T.Type, _ fields: JSONObject, id: String) -> Result<T, Reason>
    {
        do {
            return .success(
                try DocumentSnapshot(path: DocumentPath(collection: "c", documentID: id), data: fields).data(as: T.self)
            )
        } catch StoreError.undecodable(_, let reason) {
            return .failure(Reason(text: reason))
        } catch {
            return .failure(Reason(text: "\(error)"))
        }
    }

    @Test func aTweetRecordReadsAsDecodableReadIt() throws {
        let direct = try viaReader(TweetRecord.self, tweet, id: "t1").get()
        #expect(direct == (try viaDecodable(TweetRecord.self, tweet, id: "t1").get()))
        #expect(direct.id == "t1")
        #expect(direct.replyCount == 2)
        #expect(direct.retweets == nil)
        #expect(direct.entities == TweetEntities(mentions: ["bob"], hashtags: ["tag"], urls: []))
        #expect(direct.source == TweetSource(twitter: "123", favorites: 7, overLimit: true))
    }

    @Test func aUserReadsAsDecodableReadIt() throws {
        let direct = try viaReader(User.self, user, id: "u1").get()
        #expect(direct == (try viaDecodable(User.self, user, id: "u1").get()))
        #expect(direct.id == "u1")
        #expect(direct.bio == nil)
        #expect(direct.website == "https://example.com")
    }

    /// Every damage to every field is refused by both paths, with the same sentence.
    @Test func damagedDocumentsAreRefusedWithTheSameSentences() {
        let damage: [JSONValue?] = [
            nil, .null, .string("x"), .integer(1), .double(1.5), .bool(true), .array([]), .object([:]),
        ]
        var checked = 0
        for field in tweet.keys where field != "id" && field != "source" {
            for value in damage {
                var fields = tweet
                fields[field] = value
                let old = viaDecodable(TweetRecord.self, fields, id: "t1")
                let new = viaReader(TweetRecord.self, fields, id: "t1")
                switch (old, new) {
                case (.success(let a), .success(let b)): #expect(a == b, "\(field) = \(String(describing: value))")
                case (.failure(let a), .failure(let b)):
                    #expect(a.text == b.text, "\(field) = \(String(describing: value))")
                default: Issue.record("\(field) = \(String(describing: value)): \(old) against \(new)")
                }
                checked += 1
            }
        }
        for field in ["mentions", "hashtags", "urls"] {
            for value in damage + [.array([.integer(1)])] {
                var entities = tweet["entities"]!.objectValue!
                entities[field] = value
                var fields = tweet
                fields["entities"] = .object(entities)
                let old = viaDecodable(TweetRecord.self, fields, id: "t1")
                let new = viaReader(TweetRecord.self, fields, id: "t1")
                if case .failure(let a) = old, case .failure(let b) = new {
                    #expect(a.text == b.text, "\(a.text) against \(b.text)")
                } else {
                    #expect("\(old)" == "\(new)", "entities.\(field) = \(String(describing: value))")
                }
                checked += 1
            }
        }
        #expect(checked > 90)
    }

    @Test func aMissingNestedFieldNamesItsParent() {
        var fields = tweet
        fields["entities"] = .object(["mentions": .array([]), "hashtags": .array([])])
        #expect(viaReader(TweetRecord.self, fields, id: "t1").failure?.text == "field \"urls\" is missing in entities")
    }

    @Test func aDamagedSourceIsIgnoredAsBefore() throws {
        var fields = tweet
        fields["source"] = .object(["favorites": .string("lots")])
        #expect(try viaReader(TweetRecord.self, fields, id: "t1").get().source == nil)
    }
}

/// An error sentence, as a `Result`'s failure.
private struct Reason: Error {
    let text: String
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
