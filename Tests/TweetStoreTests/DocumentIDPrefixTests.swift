import Testing
import TweetTestSupport

@testable import TweetStore

/// Short IDs rest on one read: the IDs of a collection that start with a prefix, the same on every
/// engine and wherever the documents sit, deleted documents left out.
struct DocumentIDPrefixTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// IDs that share starts of several lengths, written one transaction each, out of order, with
    /// neighbours in other collections and in a subcollection that must never be counted.
    private func addDocuments(_ layout: StoreLayout) async throws -> any DocumentStore {
        let store = try env.makeStore(layout, indexes: [])
        let ids = ["abcdef12", "abcdef13", "abcdeg00", "abcdef1", "abcde", "zzz", "abc", "abcdef129"]
        for id in ids { try await store.setData(["n": .integer(1)], at: store.collection("items").document(id)) }
        try await store.setData(["n": .integer(1)], at: store.collection("itemz").document("abcdef14"))
        try await store.setData(["n": .integer(1)], at: store.collection("items/abcdef12/notes").document("abcdef15"))
        return store
    }

    @Test(arguments: StoreLayout.allCases)
    func eachPrefixGetsItsIDsInByteOrder(_ layout: StoreLayout) async throws {
        let store = try await addDocuments(layout)
        let found = try await store.documentIDs(
            in: "items", startingWith: ["abcdef1", "abcdef12", "abcdeg", "abcdeh", "zz"], limit: 10)
        #expect(found[0] == ["abcdef1", "abcdef12", "abcdef129", "abcdef13"])
        #expect(found[1] == ["abcdef12", "abcdef129"])
        #expect(found[2] == ["abcdeg00"])
        #expect(found[3].isEmpty)
        #expect(found[4] == ["zzz"])
    }

    /// Prefixes are passed to PostgreSQL as an array literal: quotes, backslashes, commas and braces
    /// in them stay themselves, the empty prefix is every ID, and the runs come back in the order asked.
    @Test(arguments: StoreLayout.allCases)
    func prefixesWithAnArraysPunctuationAreThemselves(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout, indexes: [])
        let ids = ["a\"b", "a\\c", "a,d", "{e}", "NULL", "f g"]
        for id in ids { try await store.setData(["n": .integer(1)], at: store.collection("items").document(id)) }
        let found = try await store.documentIDs(
            in: "items", startingWith: ["{", "a\\", "a\"", "a,", "NULL", "", "f ", "\""], limit: Int.max)
        #expect(found == [["{e}"], ["a\\c"], ["a\"b"], ["a,d"], ["NULL"], ids.sorted(), ["f g"], []])
    }

    @Test(arguments: StoreLayout.allCases)
    func theLimitKeepsTheFirstIDs(_ layout: StoreLayout) async throws {
        let store = try await addDocuments(layout)
        #expect(try await store.documentIDs(in: "items", startingWith: ["abc"], limit: 2) == [["abc", "abcde"]])
    }

    @Test(arguments: StoreLayout.allCases)
    func deletedDocumentsAreLeftOut(_ layout: StoreLayout) async throws {
        let store = try await addDocuments(layout)
        try await store.runTransaction { transaction in
            transaction.deleteDocument(DocumentPath(collection: "items", documentID: "abcdef13"))
        }
        #expect(
            try await store.documentIDs(in: "items", startingWith: ["abcdef1"], limit: 10) == [
                ["abcdef1", "abcdef12", "abcdef129"]
            ])
    }

    @Test(arguments: StoreLayout.allCases)
    func aQueryBetweenTwoIDsReadsOnlyThatRange(_ layout: StoreLayout) async throws {
        let store = try await addDocuments(layout)
        let query = store.collection("items").query
            .whereField(Query.documentID, isGreaterThan: .string("abcdef1"))
            .whereField(Query.documentID, isLessThanOrEqualTo: .string("abcdeg00"))
        #expect(try await query.getDocuments().map(\.documentID) == ["abcdef12", "abcdef129", "abcdef13", "abcdeg00"])
    }

    /// A short form is as long as the longest start another live ID shares, plus one: a document
    /// written again (so in two segments) or deleted, and IDs of other collections, do not count.
    /// (Each ID asked about names a document, as the API asks.)
    @Test(arguments: StoreLayout.allCases)
    func eachIDsShortFormIsTheFewestBytesNoOtherIDStartsWith(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout, indexes: [])
        let items = store.collection("items")
        for id in ["abcdefgh1", "abcdefgh2x", "abcdefgi00", "abcdefgj99", "short", "abcdefgk0", "abcdefgk1"] {
            try await store.setData(["n": .integer(1)], at: items.document(id))
        }
        try await store.setData(["n": .integer(2)], at: items.document("abcdefgi00"))
        try await store.setData(["n": .integer(1)], at: store.collection("itemz").document("abcdefgj98"))
        try await store.setData(
            ["n": .integer(1)], at: store.collection("items/abcdefgj99/notes").document("abcdefgj97"))
        try await store.runTransaction { $0.deleteDocument(items.document("abcdefgk0")) }
        let ids = ["abcdefgh1", "abcdefgh2x", "abcdefgi00", "abcdefgj99", "short", "abcdefgk1"]
        #expect(try await store.uniquePrefixLengths(in: "items", of: ids, minimum: 8) == [9, 9, 8, 8, 5, 8])
        #expect(try await store.uniquePrefixLengths(in: "items", of: ["abcdefgi00", "short"], minimum: 6) == [8, 5])
        #expect(try await store.uniquePrefixLengths(in: "items", of: [], minimum: 8).isEmpty)
    }

    @Test func aPrefixsSuccessorBoundsExactlyItsStrings() {
        #expect(Query.successor(ofPrefix: "abc") == "abd")
        #expect(Query.successor(ofPrefix: "ab~") == "ab\u{7F}")
        #expect(Query.successor(ofPrefix: "é") == "é\u{10FFFF}")
        #expect(Query.successor(ofPrefix: "") == "\u{10FFFF}")
    }
}
