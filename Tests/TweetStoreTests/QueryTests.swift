import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// Every query answers the same wherever its documents sit: in the journal, in segments read by
/// scanning, in segments read through an index, or spread over both.
struct QueryTests {
    static let indexes = [
        IndexDefinition("people", ["age"]), IndexDefinition("people", ["city"]),
        IndexDefinition("people", ["city", "age"]), IndexDefinition("likes", ["p"], scope: .collectionGroup),
        IndexDefinition("posts", ["author", "t"]), IndexDefinition("shares", ["t"]),
    ]

    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// Opens the store laid out as `layout` and writes `people`, one transaction each, in an order
    /// that is neither by ID nor by any field. IDs after "people" in byte order catch cursors that
    /// compare an ID with a path.
    private func addPeople(_ layout: StoreLayout) async throws -> CollectionReference {
        let store = try env.makeStore(layout, indexes: Self.indexes)
        let people = store.collection("people")
        let rows: [(String, JSONObject)] = [
            ("q", ["name": .string("cat"), "age": .integer(30), "city": .string("Oslo")]),
            ("r", ["name": .string("eve"), "age": .double(30.0), "city": .string("Lima")]),
            ("a", ["name": .string("ann"), "age": .integer(30), "city": .string("Oslo")]),
            ("d", ["name": .string("dan"), "age": .integer(41)]),
            (
                "b",
                [
                    "name": .string("bob"), "age": .integer(25), "city": .string("Rome"),
                    "address": .object(["zip": .string("00100")]),
                ]
            ),
        ]
        for (id, fields) in rows { try await store.setData(fields, at: people.document(id)) }
        return people
    }

    private func ids(_ query: Query) async throws -> [String] {
        try await query.getDocuments().map(\.documentID)
    }

    @Test(arguments: StoreLayout.allCases)
    func equalKeepsOnlyMatchingDocuments(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        #expect(try await ids(people.whereField("city", isEqualTo: .string("Oslo"))) == ["a", "q"])
        #expect(try await ids(people.whereField("city", isEqualTo: .string("oslo"))).isEmpty)
    }

    @Test(arguments: StoreLayout.allCases)
    func equalTreatsAWholeDoubleAsTheSameNumber(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        #expect(try await ids(people.whereField("age", isEqualTo: .integer(30))) == ["a", "q", "r"])
        #expect(try await ids(people.whereField("age", isEqualTo: .double(30))) == ["a", "q", "r"])
    }

    @Test(arguments: StoreLayout.allCases)
    func notEqualSkipsDocumentsWithoutTheField(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        #expect(try await ids(people.query.whereField("city", isNotEqualTo: .string("Oslo"))) == ["b", "r"])
    }

    /// The following feed's shape: `in` over strings, ordered, limited, paged; a repeated value
    /// changes nothing.
    @Test(arguments: StoreLayout.allCases)
    func inWithAnOrderAndALimitPagesLikeOneQuery(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let query = people.query.whereField("city", in: [.string("Oslo"), .string("Lima"), .string("Oslo")])
            .order(by: "age", descending: true)
        #expect(try await ids(query) == ["r", "q", "a"])
        let first = try await query.limit(to: 2).getDocuments()
        #expect(first.map(\.documentID) == ["r", "q"])
        let second = try await query.start(after: try #require(first.last)).limit(to: 2).getDocuments()
        #expect(second.map(\.documentID) == ["a"])
        #expect(try await query.limit(to: 2).count() == 2)
    }

    /// More values than the page holds (the following feed of someone who follows many): PostgreSQL
    /// reads only the values whose newest rows lead, and every engine answers as the whole set
    /// sorted would, with values that have no rows, ties on the order field and a cursor.
    @Test(arguments: StoreLayout.allCases, [1, 4, 9])
    func inOverMoreValuesThanThePageIsTheirMergedOrder(_ layout: StoreLayout, limit: Int) async throws {
        let store = try env.makeStore(layout, indexes: Self.indexes)
        let posts = store.collection("posts")
        // 40 posts by 11 authors, times 0…16 with ties; authors a11…a15 have none.
        let rows = (0..<40).map { n in (id: "p\(n)", author: "a\((n * 7) % 11)", t: (n * 5) % 17) }
        for row in rows {
            try await store.setData(
                ["author": .string(row.author), "t": .integer(Int64(row.t))], at: posts.document(row.id))
        }
        let query = posts.query.whereField("author", in: (0..<16).map { .string("a\($0)") })
            .order(by: "t", descending: true)
        let sorted = rows.sorted { ($0.t, $0.id) > ($1.t, $1.id) }.map(\.id)
        let first = try await query.limit(to: limit).getDocuments()
        #expect(first.map(\.documentID) == Array(sorted.prefix(limit)))
        let next = try await query.start(after: try #require(first.last)).limit(to: limit).getDocuments()
        #expect(next.map(\.documentID) == Array(sorted.dropFirst(limit).prefix(limit)))
    }

    @Test(arguments: StoreLayout.allCases)
    func inKeepsDocumentsMatchingAnyValue(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let query = people.query.whereField("city", in: [.string("Rome"), .string("Lima"), .string("Paris")])
        #expect(try await ids(query) == ["b", "r"])
        #expect(try await ids(query.order(by: "age", descending: true)) == ["r", "b"])
        #expect(try await ids(people.query.whereField("city", in: [])).isEmpty)
    }

    @Test(arguments: StoreLayout.allCases)
    func inWithARepeatedValueStillGivesEachDocumentOnce(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let query = people.query.whereField("city", in: [.string("Oslo"), .string("Oslo")])
        #expect(try await ids(query) == ["a", "q"])
        #expect(try await ids(query.order(by: "age")) == ["a", "q"])
    }

    @Test(arguments: StoreLayout.allCases)
    func contradictoryFiltersOnOneFieldSelectNothing(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let twoCities = people.whereField("city", isEqualTo: .string("Oslo")).whereField(
            "city", isEqualTo: .string("Rome"))
        #expect(try await ids(twoCities).isEmpty)
        let inThenEqual = people.query.whereField("city", in: [.string("Oslo"), .string("Rome")])
            .whereField("city", isEqualTo: .string("Lima"))
        #expect(try await ids(inThenEqual).isEmpty)
        #expect(try await inThenEqual.count() == 0)
    }

    @Test(arguments: StoreLayout.allCases)
    func rangeFiltersCompareNumbers(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        #expect(try await ids(people.query.whereField("age", isGreaterThan: .integer(29))) == ["a", "d", "q", "r"])
        #expect(try await ids(people.query.whereField("age", isLessThan: .integer(30))) == ["b"])
    }

    /// A range on the field an index orders by narrows the index's range (a binary search in a
    /// segment); it selects what filtering every document would, with each operator, alone, with
    /// an equality before it, and with a cursor.
    @Test(arguments: StoreLayout.allCases)
    func rangeFiltersOnTheOrderedFieldSelectWhatAFilterOfEveryDocumentWould(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let all = try await people.query.order(by: "age", descending: true).getDocuments()
        let ascending = try await people.query.order(by: "age").getDocuments()
        let ages = all.compactMap { $0.data["age"]?.integerValue }
        #expect(Set(ages).count > 2, "the people have ages to cut between")
        for bound in Set(ages).sorted() + [ages.min()! - 1, ages.max()! + 1] {
            let cases: [(Query, (Int64) -> Bool)] = [
                (people.query.whereField("age", isLessThan: .integer(bound)), { $0 < bound }),
                (people.query.whereField("age", isLessThanOrEqualTo: .integer(bound)), { $0 <= bound }),
                (people.query.whereField("age", isGreaterThan: .integer(bound)), { $0 > bound }),
                (people.query.whereField("age", isGreaterThanOrEqualTo: .integer(bound)), { $0 >= bound }),
            ]
            for (query, keeps) in cases {
                for descending in [true, false] {
                    let expected = (descending ? all : ascending).filter { keeps($0.data["age"]!.integerValue!) }
                    let got = try await ids(query.order(by: "age", descending: descending))
                    #expect(got == expected.map(\.documentID), "\(query.filters) \(descending)")
                }
                let inOslo = all.filter { keeps($0.data["age"]!.integerValue!) && $0.data["city"] == .string("Oslo") }
                let oslo = query.whereField("city", isEqualTo: .string("Oslo")).order(by: "age", descending: true)
                #expect(try await ids(oslo) == inOslo.map(\.documentID), "\(query.filters) in Oslo")
                if let first = inOslo.first {
                    #expect(try await ids(oslo.start(after: first)) == inOslo.dropFirst().map(\.documentID))
                }
            }
        }
    }

    /// A range's bound at the end of the index's way is where the read ends (not found by a
    /// binary search first). Values of every type are in one order (null, bools, numbers,
    /// strings), which ranges compare in too; neither a selection without the field nor the
    /// documents before the bound end the read early.
    @Test(arguments: StoreLayout.allCases)
    func aRangeEndsTheReadAtItsFarBoundWhateverTypesTheFieldHolds(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let store = people.store
        // A string sorts after every number, a bool and null before them.
        let others: [(String, JSONValue)] = [("s", .string("thirty")), ("t", .bool(true)), ("u", .null)]
        for (id, age) in others {
            try await store.setData(["name": .string(id), "age": age], at: people.document(id))
        }
        let down = people.query.whereField("age", isGreaterThanOrEqualTo: .integer(30)).order(
            by: "age", descending: true)
        #expect(try await ids(down) == ["s", "d", "r", "q", "a"])
        #expect(try await ids(down.select([])) == ["s", "d", "r", "q", "a"])
        #expect(try await ids(down.limit(to: 3)) == ["s", "d", "r"])
        let downPast = people.query.whereField("age", isGreaterThan: .integer(30)).order(by: "age", descending: true)
        #expect(try await ids(downPast) == ["s", "d"])
        let up = people.query.whereField("age", isLessThanOrEqualTo: .integer(30)).order(by: "age")
        #expect(try await ids(up) == ["u", "t", "b", "a", "q", "r"])
        #expect(try await ids(up.whereField("city", isEqualTo: .string("Oslo"))) == ["a", "q"])
        let upBefore = people.query.whereField("age", isLessThan: .integer(30)).order(by: "age")
        #expect(try await ids(upBefore) == ["u", "t", "b"])
        // Both bounds: the near one still narrows the range, the far one ends the read.
        let between = people.query.whereField("age", isGreaterThan: .integer(25))
            .whereField("age", isLessThan: .integer(41)).order(by: "age", descending: true)
        #expect(try await ids(between) == ["r", "q", "a"])
        let strings = people.query.whereField("age", isGreaterThanOrEqualTo: .string("a")).order(
            by: "age", descending: true)
        #expect(try await ids(strings) == ["s"])
    }

    /// A merged query gives the rows of its queries as one list in their shared order: by `t`
    /// newest first, at an equal `t` the first query's row first, then each query's own order (the
    /// ID, descending), within each query's filter, cursor and limit and the merge's limit; what a
    /// query selects is all each of its rows keeps.
    @Test(arguments: StoreLayout.allCases)
    func aMergedQueryGivesItsQueriesRowsInTheirSharedOrder(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout, indexes: Self.indexes)
        let (posts, shares) = (store.collection("posts"), store.collection("shares"))
        for number in 0..<24 {
            let t = JSONValue.integer(Int64(number * 7 % 10))
            try await store.setData(
                ["author": .string(number % 3 == 0 ? "ann" : "bob"), "t": t, "n": .integer(Int64(number))],
                at: posts.document(String(format: "p%02d", number)))
            if number % 2 == 0 {
                try await store.setData(
                    ["by": .string("cy"), "t": t, "n": .integer(Int64(number))],
                    at: shares.document(String(format: "s%02d", number)))
            }
        }
        let bob = posts.whereField("author", isEqualTo: .string("bob")).order(by: "t", descending: true)
        let all = shares.query.order(by: "t", descending: true)
        let cursor = try #require(try await all.getDocuments().dropFirst(3).first)
        let cases: [[Query]] = [
            [bob, all], [all, bob], [bob.limit(to: 4), all], [bob, all.start(after: cursor)],
            [bob.select(["n"]), all.select([])], [bob, posts.whereField("author", isEqualTo: .string("nobody"))],
        ]
        for queries in cases {
            // The reference: every row of each query, merged by hand.
            var rows: [(query: Int, snapshot: DocumentSnapshot)] = []
            for (position, query) in queries.enumerated() {
                rows += try await store.runQuery(query.wholeDocuments).map { (position, $0) }
            }
            rows.sort { lhs, rhs in
                let left = lhs.snapshot.data["t"]?.integerValue ?? 0
                let right = rhs.snapshot.data["t"]?.integerValue ?? 0
                if left != right { return left > right }
                if lhs.query != rhs.query { return lhs.query < rhs.query }
                return lhs.snapshot.documentID > rhs.snapshot.documentID
            }
            #expect(rows.count > 10)
            for limit in [0, 1, 5, rows.count - 1, rows.count, rows.count + 3] {
                let merged = try await store.runMergedQuery(queries, limit: limit)
                let expected = rows.prefix(limit)
                #expect(merged.map(\.query) == expected.map(\.query), "limit \(limit)")
                #expect(merged.map(\.snapshot.path) == expected.map(\.snapshot.path), "limit \(limit)")
                #expect(
                    merged.map(\.snapshot) == expected.map { queries[$0.query].projected($0.snapshot) },
                    "limit \(limit): each row as its query selects")
            }
        }
    }

    @Test(arguments: StoreLayout.allCases)
    func filtersCombineAndDottedFieldsReachIntoObjects(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let oslo = people.whereField("city", isEqualTo: .string("Oslo"))
        #expect(try await ids(oslo.whereField("name", isEqualTo: .string("cat"))) == ["q"])
        #expect(try await ids(oslo.whereField("age", isEqualTo: .integer(30)).order(by: "age")) == ["a", "q"])
        #expect(try await ids(people.whereField("address.zip", isEqualTo: .string("00100"))) == ["b"])
        #expect(try await ids(people.whereField(Query.documentID, isEqualTo: .string("d"))) == ["d"])
    }

    @Test(arguments: StoreLayout.allCases)
    func orderDescendingBreaksTiesByDocumentIDDescending(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        #expect(try await ids(people.order(by: "age", descending: true)) == ["d", "r", "q", "a", "b"])
    }

    @Test(arguments: StoreLayout.allCases)
    func orderAscendingBreaksTiesByDocumentIDAscending(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        #expect(try await ids(people.order(by: "age")) == ["b", "a", "q", "r", "d"])
        #expect(try await ids(people.query) == ["a", "b", "d", "q", "r"])
        #expect(try await ids(people.order(by: Query.documentID, descending: true)) == ["r", "q", "d", "b", "a"])
    }

    /// A walk over a collection in ID order, a page at a time after the last page's document (as
    /// `reindex` walks the tweets), meets every document once, in either direction, with a filter
    /// and a selection, over documents replaced (`d` now passes the filter) and deleted since.
    @Test(arguments: StoreLayout.allCases)
    func pagesInIDOrderFollowTheirCursorInEitherDirection(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        try await people.store.setData(["name": .string("dee"), "age": .integer(33)], at: people.document("d"))
        try await people.store.runTransaction { $0.deleteDocument(people.document("q")) }
        try await people.store.setData(["name": .string("zed"), "age": .integer(50)], at: people.document("z"))
        for descending in [false, true] {
            for limit in 1...6 {
                let query = people.order(by: Query.documentID, descending: descending).select(["name"])
                for (filtered, expected) in [
                    (query, ["a", "b", "d", "r", "z"]),
                    (query.whereField("age", isLessThan: .integer(35)), ["a", "b", "d", "r"]),
                ] {
                    var seen: [String] = []
                    var page = try await filtered.limit(to: limit).getDocuments()
                    while let last = page.last {
                        #expect(page.allSatisfy { $0.data.keys.allSatisfy { $0 == "name" } })
                        seen += page.map(\.documentID)
                        page = try await filtered.start(after: last).limit(to: limit).getDocuments()
                    }
                    #expect(seen == (descending ? expected.reversed() : expected), "limit \(limit)")
                }
            }
        }
        #expect(
            try await people.order(by: Query.documentID).getDocuments().map { $0.data["name"] }
                == ["ann", "bob", "dee", "eve", "zed"].map { .string($0) })
    }

    @Test(arguments: StoreLayout.allCases)
    func laterOrdersBreakTiesOfEarlierOnes(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        #expect(
            try await ids(people.order(by: "age", descending: true).order(by: "name")) == ["d", "a", "q", "r", "b"])
    }

    @Test(arguments: StoreLayout.allCases)
    func aDocumentWithoutTheOrderFieldIsLeftOutAsInFirestore(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        #expect(try await ids(people.order(by: "city")) == ["r", "a", "q", "b"])
        #expect(try await ids(people.order(by: "city", descending: true).limit(to: 9)) == ["b", "q", "a", "r"])
        #expect(try await people.order(by: "city").count() == 4)
        #expect(try await ids(people.order(by: "age").order(by: "city")) == ["b", "r", "a", "q"])
    }

    @Test(arguments: StoreLayout.allCases, [0, 1, 3, 5, 9])
    func limitCapsTheResultAfterOrdering(_ layout: StoreLayout, _ limit: Int) async throws {
        let people = try await addPeople(layout)
        let all = ["d", "r", "q", "a", "b"]
        #expect(try await ids(people.order(by: "age", descending: true).limit(to: limit)) == Array(all.prefix(limit)))
    }

    @Test(arguments: StoreLayout.allCases, [true, false])
    func pagingWithStartAfterVisitsEveryDocumentOnceInOrder(_ layout: StoreLayout, _ descending: Bool) async throws {
        let people = try await addPeople(layout)
        let ordered = people.order(by: "age", descending: descending)
        let all = try await ids(ordered)
        #expect(all == (descending ? ["d", "r", "q", "a", "b"] : ["b", "a", "q", "r", "d"]))
        for pageSize in 1...4 {
            var seen: [String] = []
            var query = ordered.limit(to: pageSize)
            for _ in 0..<10 {
                let page = try await query.getDocuments()
                #expect(page.count <= pageSize)
                seen += page.map(\.documentID)
                guard let last = page.last, page.count == pageSize else { break }
                query = ordered.limit(to: pageSize).start(after: last)
            }
            #expect(seen == all, "pages of \(pageSize)")
        }
    }

    @Test(arguments: StoreLayout.allCases)
    func startAfterWorksWithFiltersAndWithoutOrders(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let snapshot = try #require(try await people.store.getDocument(people.document("b")))
        #expect(try await ids(people.query.start(after: snapshot)) == ["d", "q", "r"])
        let oslo = people.whereField("city", isEqualTo: .string("Oslo"))
        let first = try #require(try await oslo.limit(to: 1).getDocuments().first)
        #expect(first.documentID == "a")
        #expect(try await ids(oslo.start(after: first)) == ["q"])
    }

    @Test(arguments: StoreLayout.allCases)
    func collectionGroupFindsEveryCollectionWithThatIDAndNoOther(_ layout: StoreLayout) async throws {
        let store = try env.makeStore(layout, indexes: Self.indexes)
        let paths = [
            "likes/x", "users/u1/likes/t1", "users/u1/likes/t2", "users/u2/likes/t1", "users/u1/xlikes/t3",
            "users/u1/likes-old/t4", "likes2/t5", "users/likes/other/t6",
        ]
        for path in paths { try await store.setData(["p": .string(path)], at: try #require(DocumentPath(path))) }
        let found = try await store.collectionGroup("likes").getDocuments().map(\.path.description)
        #expect(found == ["likes/x", "users/u1/likes/t1", "users/u1/likes/t2", "users/u2/likes/t1"])
        let filtered = store.collectionGroup("likes").whereField("p", isEqualTo: .string("users/u2/likes/t1"))
        #expect(try await filtered.count() == 1)
        let other = store.collectionGroup("likes").whereField("p", isEqualTo: .string("users/u1/xlikes/t3"))
        #expect(try await other.count() == 0)
    }

    @Test(arguments: StoreLayout.allCases)
    func countAgreesWithTheDocumentsTheQuerySelects(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let queries: [Query] = [
            people.query, people.whereField("city", isEqualTo: .string("Oslo")),
            people.query.whereField("city", isNotEqualTo: .string("Oslo")), people.order(by: "age").limit(to: 2),
            people.query.limit(to: 0), people.store.collection("nobody").query,
        ]
        let expected = [5, 2, 2, 2, 0, 0]
        for (query, count) in zip(queries, expected) {
            #expect(try await query.count() == count)
            #expect(try await query.getDocuments().count == count)
        }
    }

    @Test(arguments: StoreLayout.allCases)
    func changedAndDeletedDocumentsAnswerWithTheirLatestVersion(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let store = people.store
        try await store.runTransaction { $0.updateData(["city": .value(.string("Rome"))], at: people.document("a")) }
        try await store.runTransaction { $0.deleteDocument(people.document("q")) }
        try await store.setData(
            ["name": .string("zoe"), "age": .integer(30), "city": .string("Oslo")], at: people.document("z"))
        #expect(try await ids(people.whereField("city", isEqualTo: .string("Oslo"))) == ["z"])
        #expect(try await ids(people.whereField("city", isEqualTo: .string("Rome"))) == ["a", "b"])
        #expect(try await ids(people.order(by: "age", descending: true)) == ["d", "z", "r", "a", "b"])
        #expect(try await people.query.count() == 5)
        #expect(try await store.getDocument(people.document("q")) == nil)
    }

    /// `select` returns only the named fields, while the filters, the order and the cursor still
    /// read the whole documents; `select([])` returns paths alone.
    @Test(arguments: StoreLayout.allCases)
    func aSelectionKeepsOnlyItsFieldsAndStillFiltersAndOrdersByTheOthers(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let query = people.whereField("city", in: [.string("Oslo"), .string("Lima"), .string("Rome")])
            .order(by: "age", descending: true)
        let named = try await query.select(["name", "address"]).getDocuments()
        #expect(named.map(\.documentID) == ["r", "q", "a", "b"])
        #expect(
            named.map(\.data) == [
                ["name": .string("eve")], ["name": .string("cat")], ["name": .string("ann")],
                ["name": .string("bob"), "address": .object(["zip": .string("00100")])],
            ])
        let bare = try await query.select([]).limit(to: 2).getDocuments()
        #expect(bare.map(\.documentID) == ["r", "q"])
        #expect(bare.allSatisfy { $0.data.isEmpty })
        // A cursor from a selected document (no `age` in it) is not a cursor at its age: the page
        // after it comes from a whole document, as a client would page.
        let whole = try await query.limit(to: 2).getDocuments()
        let next = try await query.select([]).start(after: try #require(whole.last)).getDocuments()
        #expect(next.map(\.documentID) == ["a", "b"])
        #expect(try await ids(people.query.select([])) == ["a", "b", "d", "q", "r"])
        #expect(try await people.query.select(["age"]).count() == 5)
        #expect(
            try await people.query.whereAny(["name"], containsText: "AN").select([]).getDocuments().map(\.documentID)
                == [
                    "a", "d",
                ])
    }

    /// In a transaction a selected read gives the selection, and an update after it still
    /// starts from the whole document.
    @Test(arguments: StoreLayout.allCases)
    func aSelectionInATransactionLeavesTheUpdateWhole(_ layout: StoreLayout) async throws {
        let people = try await addPeople(layout)
        let store = people.store
        let seen = try await store.runTransaction { transaction in
            let found = try await transaction.getDocuments(people.whereField("age", isEqualTo: .integer(25)).select([]))
            for snapshot in found { transaction.updateData(["age": .increment(1)], at: snapshot.path) }
            return found.map(\.data)
        }
        #expect(seen == [[:]])
        let bob = try #require(try await store.getDocument(people.document("b")))
        #expect(bob.data["age"] == .integer(26))
        #expect(bob.data["name"] == .string("bob"))
        #expect(bob.data["address"] == .object(["zip": .string("00100")]))
    }

    @Test func documentPathsSplitIntoCollectionAndID() throws {
        let path = try #require(DocumentPath("users/u1/user-likes/t1"))
        #expect(path.collection == "users/u1/user-likes")
        #expect(path.documentID == "t1")
        #expect(path.collectionID == "user-likes")
        #expect(path.description == "users/u1/user-likes/t1")
        let unicode = try #require(DocumentPath("terms/東京/buckets/é"))
        #expect(unicode.collection == "terms/東京/buckets")
        #expect(unicode.documentID == "é")
        for invalid in ["users", "users/u1/likes", "", "users//", "/u1", "a//b/c", "a/b/", "a/b//c/d", "/", "a/b/c/"] {
            #expect(DocumentPath(invalid) == nil, "\(invalid)")
        }
    }
}

/// A merge reads each query only as far as it takes it: the page of the newer query's rows reads
/// one line of the older query (its head), not a page of them.
struct MergedQueryReadTests {
    @Test func aMergeReadsEachQueryOnlyAsFarAsItTakesIt() throws {
        let env = try TestEnvironment()
        let directory = env.path("segments")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let indexes = [IndexDefinition("new", ["t"]), IndexDefinition("old", ["t"])]
        var entries: [SegmentWriter.Entry] = []
        for number in 0..<50 {
            entries.append(
                SegmentWriter.Entry(
                    path: DocumentPath(collection: "new", documentID: String(format: "n%02d", number)),
                    data: ["t": .integer(Int64(100 + number))]))
        }
        for number in 0..<50 {
            entries.append(
                SegmentWriter.Entry(
                    path: DocumentPath(collection: "old", documentID: String(format: "o%02d", number)),
                    data: ["t": .integer(Int64(number))]))
        }
        _ = try SegmentWriter(directory: directory, indexes: indexes).write(name: "seg-000001", entries: entries)
        let segment = try Segment(directory: directory, name: "seg-000001")
        let snapshot = StoreSnapshot(memtable: Memtable(), segments: [segment], indexes: indexes)
        let store = try env.makeStore()  // only for its collections' queries
        let older = store.collection("old").query.order(by: "t", descending: true)
        let newer = store.collection("new").query.order(by: "t", descending: true)
        var before = segment.linesRead
        let rows = try snapshot.mergedQuery([older, newer], limit: 10)
        let merged = segment.linesRead - before
        #expect(rows.map(\.snapshot.documentID) == (40..<50).reversed().map { String(format: "n%02d", $0) })
        #expect(rows.allSatisfy { $0.query == 1 })
        // Each query run on its own within the limit reads ten of the older query's rows; the
        // merge reads its head alone, and no row of either past the ten it gives.
        before = segment.linesRead
        _ = try snapshot.query(older.limit(to: 10))
        _ = try snapshot.query(newer.limit(to: 10))
        let separate = segment.linesRead - before
        #expect(separate - merged >= 9, "\(merged) lines merged, \(separate) run one by one")
        // Then the older query's rows, once the newer query's run out.
        let all = try snapshot.mergedQuery([older, newer], limit: 60)
        #expect(all.map(\.query) == Array(repeating: 1, count: 50) + Array(repeating: 0, count: 10))
        #expect(all.suffix(10).map(\.snapshot.documentID) == (40..<50).reversed().map { String(format: "o%02d", $0) })
    }
}
