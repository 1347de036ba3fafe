import Testing
import TweetTestSupport

@testable import TweetStore

/// A page of markers and the documents they name, read together (a page of bookmarks and the
/// tweets they mark): the same answer on every engine as the query and then the named reads.
struct NamedDocumentsTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    @Test(arguments: StoreLayout.allCases)
    func aPageOfMarkersComesWithTheDocumentsItsIDsName(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout, indexes: [IndexDefinition("marks", ["at"])])
        let marks = store.collection("users/u/marks")
        // Marked tweets, one of them gone; a document of another collection with a marked ID.
        for (id, at) in [("t1", 1), ("t2", 2), ("t3", 3), ("gone", 4), ("t5", 5)] {
            try await store.setData(["at": .integer(Int64(at))], at: marks.document(id))
        }
        for id in ["t1", "t2", "t3", "t5", "t9"] {
            try await store.setData(["caption": .string("tweet \(id)")], at: store.collection("tweets").document(id))
        }
        try await store.setData(["caption": .string("not a tweet")], at: store.collection("others").document("gone"))

        let page = marks.order(by: "at", descending: true).limit(to: 3).select(["at"])
        let (documents, named) = try await store.runQuery(page, withDocumentsNamedByIDsIn: "tweets")
        #expect(documents.map(\.documentID) == ["t5", "gone", "t3"], "the query's rows, in its order")
        #expect(documents.first?.data == ["at": .integer(5)], "projected as the query asks")
        #expect(
            Set(named.map(\.path.description)) == ["tweets/t5", "tweets/t3"],
            "the named documents that exist, of that collection only, and only for the page's rows")
        #expect(named.first { $0.documentID == "t3" }?.data["caption"] == .string("tweet t3"))

        // The next page, from after the last marker; an empty page names nothing.
        let next = try await store.runQuery(page.start(after: documents[2]), withDocumentsNamedByIDsIn: "tweets")
        #expect(next.documents.map(\.documentID) == ["t2", "t1"])
        #expect(Set(next.named.map(\.documentID)) == ["t2", "t1"])
        let none = try await store.runQuery(
            marks.whereField("at", isEqualTo: .integer(99)), withDocumentsNamedByIDsIn: "tweets")
        #expect(none.documents.isEmpty && none.named.isEmpty)
    }

    /// By a field instead: each named once however many rows name it; a row without the field,
    /// or naming nothing that exists, names nothing.
    @Test(arguments: StoreLayout.allCases)
    func rowsNameDocumentsByAFieldOnce(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout, indexes: [IndexDefinition("bell", ["at"])])
        let bell = store.collection("users/u/bell")
        let rows: [(String, JSONObject)] = [
            ("n1", ["at": .integer(1), "tweetId": .string("t1")]),
            ("n2", ["at": .integer(2), "tweetId": .string("t2")]),
            ("n3", ["at": .integer(3), "tweetId": .string("t1")]), ("n4", ["at": .integer(4)]),
            ("n5", ["at": .integer(5), "tweetId": .string("gone")]),
            ("n6", ["at": .integer(6), "tweetId": .string("t3")]),
        ]
        for (id, fields) in rows { try await store.setData(fields, at: bell.document(id)) }
        for id in ["t1", "t2", "t3", "n1"] {
            try await store.setData(["caption": .string("tweet \(id)")], at: store.collection("tweets").document(id))
        }
        let page = bell.order(by: "at", descending: true).limit(to: 5)
        let (documents, named) = try await store.runQuery(page, withDocumentsIn: "tweets", namedBy: "tweetId")
        #expect(documents.map(\.documentID) == ["n6", "n5", "n4", "n3", "n2"])
        #expect(named.map(\.documentID).sorted() == ["t1", "t2", "t3"], "t1 once; not n1, the rows' own ID")
        #expect(named.first { $0.documentID == "t2" }?.data["caption"] == .string("tweet t2"))
    }
}
