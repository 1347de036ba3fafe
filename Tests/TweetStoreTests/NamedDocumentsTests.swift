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
}
