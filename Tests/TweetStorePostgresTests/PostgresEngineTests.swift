import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStorePostgres

/// What only the PostgreSQL engine has: its connection errors, its schema's version, and that its
/// SQL is served by the indexes. The store conformance suites (every test with a `StoreLayout`)
/// run on it too, as `.postgres`.
struct PostgresEngineTests {
    @Test func thePostgreSQLSuitesRanOrSayWhyNot() throws {
        switch PostgresCluster.state {
        case .success(let socket):
            #expect(FileManager.default.fileExists(atPath: socket))
        case .failure(let error):
            if PostgresCluster.isRequired { Issue.record("PostgreSQL is required here and did not start: \(error)") }
            print("PostgreSQL tests not run: \(error)")
        }
    }

    @Test(.enabled(if: PostgresCluster.isAvailable))
    func aServerThatIsNotThereIsOneSentenceWithoutThePassword() async throws {
        let location = try PostgresLocation("postgresql://ada:secret-pw@/tweetcli?host=/nonexistent-socket-dir")
        let store = PostgresDocumentStore(location: location)
        do {
            _ = try await store.getDocument(DocumentPath(collection: "a", documentID: "b"))
            Issue.record("a read from no server succeeded")
        } catch {
            let text = error.localizedDescription
            #expect(text.contains("the server is not running or not reachable"), "\(text)")
            #expect(!text.contains("secret-pw"))
            #expect(!text.contains("\n"))
        }
    }

    @Test(.enabled(if: PostgresCluster.isAvailable))
    func aDatabaseThatDoesNotExistIsNamedAsSuch() async throws {
        let socket = try PostgresCluster.state.get()
        let store = PostgresDocumentStore(
            location: try PostgresLocation("postgresql:///no_such_db?host=\(socket)&user=postgres"))
        await #expect {
            _ = try await store.exists()
        } throws: { error in
            error.localizedDescription.contains("there is no such database")
        }
    }

    @Test(.enabled(if: PostgresCluster.isAvailable))
    func anEmptyDatabaseReadsAsEmptyAndOnlyAWriteThatMayCreatesTheSchema() async throws {
        let location = try PostgresLocation(try PostgresCluster.freshLocation())
        let reader = PostgresDocumentStore(location: location, createIfMissing: false)
        #expect(try await reader.exists() == false)
        #expect(try await reader.collection("tweets").query.getDocuments().isEmpty)
        await #expect(throws: StoreError.noStore(path: location.displayName)) {
            try await reader.setData(["n": .integer(1)], at: DocumentPath(collection: "a", documentID: "b"))
        }
        let writer = PostgresDocumentStore(location: location)
        try await writer.setData(["n": .integer(1)], at: DocumentPath(collection: "a", documentID: "b"))
        #expect(try await reader.exists())
        #expect(
            try await reader.getDocument(DocumentPath(collection: "a", documentID: "b"))?.data == ["n": .integer(1)])
    }

    /// The connection speaks UTF-8 whatever the connection string asks for: text that LATIN1
    /// cannot hold comes back as it went in.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func theConnectionIsUTF8WhateverItsStringSays() async throws {
        let location = try PostgresLocation(try PostgresCluster.freshLocation() + "&client_encoding=LATIN1")
        let store = PostgresDocumentStore(location: location)
        let path = DocumentPath(collection: "a", documentID: "東京")
        try await store.setData(["text": .string("こんにちは 👋")], at: path)
        #expect(try await store.getDocument(path)?.data == ["text": .string("こんにちは 👋")])
        let encoding = try PostgresConnection(location).execute("SHOW client_encoding")
        #expect(encoding.first?.first == "UTF8")
    }

    /// A connection compiles no query: JIT at ten million rows cost many times the query it sped.
    /// The connection string's own options still win.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func theConnectionHasJITOffUnlessItsStringSaysOtherwise() throws {
        let location = try PostgresLocation(try PostgresCluster.freshLocation())
        #expect(try PostgresConnection(location).execute("SHOW jit").first?.first == "off")
        let asked = try PostgresLocation(
            try PostgresCluster.freshLocation().replacingOccurrences(
                of: "options=-csearch_path", with: "options=-cjit%3Don%20-csearch_path"))
        #expect(try PostgresConnection(asked).execute("SHOW jit").first?.first == "on")
    }

    @Test(.enabled(if: PostgresCluster.isAvailable))
    func aNewerSchemaThanThisBuildKnowsIsAClearError() async throws {
        let text = try PostgresCluster.freshLocation()
        let location = try PostgresLocation(text)
        try await PostgresDocumentStore(location: location).setData(
            [:], at: DocumentPath(collection: "a", documentID: "b"))
        let admin = try PostgresConnection(location)
        try admin.execute("UPDATE tweetcli_schema SET version = 99")
        await #expect(
            throws: StoreError.unsupportedFormat(file: "the database \(location.displayName)", version: "schema 99")
        ) {
            _ = try await PostgresDocumentStore(location: location).exists()
        }
    }

    @Test(.enabled(if: PostgresCluster.isAvailable))
    func theFeedsQueryIsServedByAnIndex() async throws {
        let location = try PostgresLocation(try PostgresCluster.freshLocation())
        let store = PostgresDocumentStore(location: location, indexes: AppServices.indexes)
        try await store.setData(
            ["uid": .string("u"), "timestamp": .string("2026")], at: DocumentPath(collection: "tweets", documentID: "t")
        )
        let query = store.collection("tweets").whereField("uid", isEqualTo: .string("u"))
            .order(by: "timestamp", descending: true).limit(to: 20)
        let sql = try PostgresQuery(query)
        let admin = try PostgresConnection(location)
        try admin.execute("SET enable_seqscan = off")
        let plan = try admin.execute("EXPLAIN " + sql.sql, sql.statement.parameters).compactMap { $0.first ?? nil }
        #expect(plan.contains { $0.contains("Index") && $0.contains("tweetcli_index_") }, "\(plan)")
        #expect(!plan.contains { $0.contains("Sort") }, "the index gives the order: \(plan)")
    }

    @Test func locationsAreShownWithoutTheirPasswords() throws {
        #expect(
            PostgresLocation.redacted("postgresql://ada:s3cret@db.example:5433/tweets")
                == "postgresql://ada@db.example:5433/tweets")
        #expect(
            PostgresLocation.redacted("postgres:///tweets?host=/tmp/pg&password=s3cret&user=ada")
                == "postgres:///tweets?host=/tmp/pg&user=ada")
        #expect(PostgresLocation.redacted("postgresql:///tweets?password=x") == "postgresql:///tweets")
        #expect(PostgresLocation.redacted("/home/ada/store") == "/home/ada/store")
        // libpq's parse errors quote the piece they stopped at, which may be a password's.
        #expect(
            PostgresLocation.withoutQuotedParts("invalid percent-encoded token: \"pa%ss\"\n")
                == "invalid percent-encoded token: \"…\"")
        do {
            _ = try PostgresLocation("postgresql://ada:pa%zzword@host/db")
            Issue.record("a bad percent escape was accepted")
        } catch {
            #expect(!error.localizedDescription.contains("zz"), "\(error.localizedDescription)")
        }
    }

    @Test(.enabled(if: PostgresCluster.isAvailable))
    func aValueHoldingNULIsRefusedNotCutShort() async throws {
        let store = PostgresDocumentStore(location: try PostgresLocation(try PostgresCluster.freshLocation()))
        try await store.setData(["n": .integer(1)], at: DocumentPath(collection: "a", documentID: "abc"))
        await #expect(throws: (any Error).self) {
            _ = try await store.getDocument(DocumentPath(collection: "a", documentID: "abc\u{0}x"))
        }
    }

    /// A new schema's key functions are SQL-standard (kept parsed by the server, so no connection
    /// parses them again), and both forms give every kind of value the same keys, so that one
    /// may replace the other under the indexes of a database made by an earlier build.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func theKeyFunctionsAreKeptParsedAndAgreeWithTheTextForm() async throws {
        let location = try PostgresLocation(try PostgresCluster.freshLocation())
        let store = PostgresDocumentStore(location: location)
        try await store.setData(["n": .integer(1)], at: DocumentPath(collection: "a", documentID: "b"))
        let admin = try PostgresConnection(location)
        let parsed = try admin.execute(
            "SELECT proname, prosqlbody IS NOT NULL FROM pg_proc WHERE pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
                + "AND proname IN ('tweetcli_rank', 'tweetcli_num', 'tweetcli_str') ORDER BY proname")
        #expect(
            parsed.map { $0.compactMap { $0 } } == [
                ["tweetcli_num", "t"], ["tweetcli_rank", "t"], ["tweetcli_str", "t"],
            ])
        let values = [
            "null", "true", "false", "0", "-2.5", "1e3", "\"\"", "\"abc\"", "[]", "[1,\"x\"]", "{}", "{\"a\":1}",
        ]
        let keys = "tweetcli_rank(v)::text || '|' || tweetcli_num(v)::text || '|' || tweetcli_str(v)"
        let query = "SELECT \(keys) FROM unnest($1::jsonb[]) AS t(v)"
        let array =
            "{"
            + values.map {
                "\""
                    + $0.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "\"", with: "\\\"") + "\""
            }.joined(separator: ",") + "}"
        let standard = try admin.execute(query, [array])
        try admin.execute("BEGIN")
        for statement in PostgresSQL.keyFunctions(serverVersion: 130_000) { try admin.execute(statement) }
        let text = try admin.execute(query, [array])
        let textForm = try admin.execute(
            "SELECT count(*) FROM pg_proc WHERE pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
                + "AND proname IN ('tweetcli_rank', 'tweetcli_num', 'tweetcli_str') AND prosqlbody IS NULL")
        try admin.execute("ROLLBACK")
        #expect(textForm.first?.first == "3")
        #expect(standard.count == values.count)
        #expect(standard == text)
        #expect(standard.first?.first == "0|0|")
        #expect(standard[7].first == "3|0|abc")
    }

    /// A prefetched query goes in the next read's round trip: answered from there once (another
    /// connection's write after it is not in that answer), then read afresh; a write of the
    /// store's own in between forgets it.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func aPrefetchedQueryIsAnsweredOnceFromTheReadItWentWith() async throws {
        let location = try PostgresLocation(try PostgresCluster.freshLocation())
        let store = PostgresDocumentStore(location: location)
        let other = PostgresDocumentStore(location: location)
        // Beside the other suites a step can take seconds: the answers stand for the whole test.
        await store.keepPrefetchedAnswers(for: .seconds(600))
        let notes = store.collection("notes")
        try await store.setData(["n": .integer(1)], at: notes.document("a"))
        let query = notes.order(by: "n", descending: true).limit(to: 10)
        func numbers(_ snapshots: [DocumentSnapshot]) -> [Int64] {
            snapshots.compactMap { $0.data["n"]?.integerValue }
        }

        await store.prefetch(query)
        #expect(try await store.getDocument(notes.document("a")) != nil)
        try await other.setData(["n": .integer(2)], at: other.collection("notes").document("b"))
        #expect(numbers(try await query.getDocuments()) == [1], "answered from the round trip it went with")
        #expect(numbers(try await query.getDocuments()) == [2, 1], "taken once, then read afresh")

        await store.prefetch(query)
        #expect(try await store.getDocument(notes.document("a")) != nil)
        try await store.setData(["n": .integer(3)], at: notes.document("c"))
        #expect(numbers(try await query.getDocuments()) == [3, 2, 1], "a write of its own forgets it")

        // Asked for before any other read, it is sent once, with itself.
        await store.prefetch(query)
        #expect(numbers(try await query.getDocuments()) == [3, 2, 1])
        try await other.setData(["n": .integer(4)], at: other.collection("notes").document("d"))
        #expect(numbers(try await query.getDocuments()) == [4, 3, 2, 1], "nothing was left over to answer from")
    }

    /// Prefetched documents go in the next read's round trip too: `getDocuments` of the same paths,
    /// or `getDocument` of the one path, is answered from there once; other paths, or the same in
    /// another order, are read afresh; a write of the store's own in between forgets them.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func prefetchedDocumentsAreAnsweredOnceFromTheReadTheyWentWith() async throws {
        let (store, other) = try await Self.prefetchingStores()
        let notes = store.collection("notes")
        let (a, b) = (notes.document("a"), notes.document("b"))
        try await store.setData(["n": .integer(1)], at: a)
        try await store.setData(["n": .integer(1)], at: b)
        func numbers(_ snapshots: [DocumentSnapshot]) -> [Int64] {
            snapshots.compactMap { $0.data["n"]?.integerValue }
        }
        func change(_ path: DocumentPath, to number: Int64) async throws {
            try await other.setData(["n": .integer(number)], at: path)
        }

        await store.prefetch(documentsAt: [a, b])
        await store.prefetch(documentsAt: [b])
        _ = try await store.runQuery(notes.query)
        try await change(a, to: 2)
        try await change(b, to: 2)
        #expect(numbers(try await store.getDocuments([b, a])) == [2, 2], "another order is another read")
        #expect(numbers(try await store.getDocuments([a, b])) == [1, 1], "answered from the round trip it went with")
        #expect(try await store.getDocument(b)?.data["n"] == .integer(1), "one path, from its own prefetch")
        #expect(numbers(try await store.getDocuments([a, b])) == [2, 2], "taken once, then read afresh")
        #expect(try await store.getDocument(b)?.data["n"] == .integer(2))

        await store.prefetch(documentsAt: [a])
        _ = try await store.runQuery(notes.query)
        try await change(a, to: 3)
        try await store.setData(["n": .integer(9)], at: notes.document("c"))
        #expect(try await store.getDocument(a)?.data["n"] == .integer(3), "a write of its own forgets them")
    }

    /// Reads made by the ID a lookup finds go in the lookup's round trip, the ID found on the
    /// server: each is answered once from there, as if asked with the ID (in a document's ID, a
    /// collection's path or a query's value); a lookup that finds nobody leaves no answer.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func readsByALookedUpIDGoInTheLookupsRoundTrip() async throws {
        let (store, other) = try await Self.prefetchingStores()
        let people = store.collection("people")
        let posts = store.collection("posts")
        try await store.setData(["username": .string("ada")], at: people.document("u1"))
        try await store.setData(["username": .string("bo")], at: people.document("u2"))
        try await store.setData(["uid": .string("u1"), "n": .integer(1)], at: posts.document("p1"))
        try await store.setData(["uid": .string("u2"), "n": .integer(1)], at: posts.document("p2"))
        try await store.setData(["n": .integer(1)], at: store.collection("stats").document("u1"))
        try await store.setData(["n": .integer(1)], at: store.collection("people/u1/likes").document("p2"))
        func numbers(_ snapshots: [DocumentSnapshot]) -> [Int64] { snapshots.compactMap { $0.data["n"]?.integerValue } }
        func ask(_ name: String) async {
            let lookup = people.whereField("username", isEqualTo: .string(name)).limit(to: 1)
            await store.prefetch(lookup)
            await store.prefetch(dependingOnFirstIDOf: lookup) { [store] id in
                await store.prefetch(store.collection("posts").whereField("uid", isEqualTo: .string(id)))
                await store.prefetch(documentsAt: [store.collection("stats").document(id)])
                await store.prefetch(store.collection("people/\(id)/likes").query)
            }
        }
        let adas = posts.whereField("uid", isEqualTo: .string("u1"))
        let stats = store.collection("stats").document("u1")
        let likes = store.collection("people/u1/likes").query

        await ask("ada")
        _ = try await store.runQuery(store.collection("elsewhere").query)
        try await other.setData(["uid": .string("u1"), "n": .integer(2)], at: posts.document("p1"))
        try await other.setData(["n": .integer(2)], at: stats)
        try await other.setData(["n": .integer(2)], at: other.collection("people/u1/likes").document("p2"))
        #expect(
            try await people.whereField("username", isEqualTo: .string("ada")).limit(to: 1).getDocuments()
                .map(\.documentID) == ["u1"])
        #expect(numbers(try await store.runQuery(adas)) == [1], "a value, answered from the lookup's round trip")
        #expect(try await store.getDocument(stats)?.data["n"] == .integer(1), "a document's ID, from there too")
        #expect(numbers(try await store.runQuery(likes)) == [1], "a collection's path, from there too")
        #expect(numbers(try await store.runQuery(adas)) == [2], "taken once, then read afresh")
        #expect(try await store.getDocument(stats)?.data["n"] == .integer(2))

        await ask("nobody")
        _ = try await store.runQuery(store.collection("elsewhere").query)
        try await other.setData(["uid": .string("u1"), "n": .integer(3)], at: posts.document("p1"))
        #expect(numbers(try await store.runQuery(adas)) == [3], "no answer kept for a lookup that found nobody")
    }

    /// A page over `field in [values]` whose values come from a document's list (whom an account
    /// follows) goes in the next read's round trip, the list filled in on the server: answered
    /// once for the same values, whatever their order, and not for another list.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func aPageOverAListInADocumentGoesInTheNextReadsRoundTrip() async throws {
        let (store, other) = try await Self.prefetchingStores()
        let posts = store.collection("posts")
        let list = store.collection("lists").document("me")
        try await store.setData(["uids": .array(["u2", "u1", "not/plain", "u1"].map { .string($0) })], at: list)
        for (id, uid) in [("p1", "u1"), ("p2", "u2"), ("p3", "u3"), ("p4", "me")] {
            try await store.setData(["uid": .string(uid), "n": .integer(1)], at: posts.document(id))
        }
        func page(_ uids: [String]) -> Query {
            posts.whereField("uid", in: uids.map { .string($0) }).order(by: "n", descending: true).limit(to: 10)
        }
        func ids(_ snapshots: [DocumentSnapshot]) -> [String] { snapshots.map(\.documentID).sorted() }
        func numbers(_ snapshots: [DocumentSnapshot]) -> [Int64] { snapshots.compactMap { $0.data["n"]?.integerValue } }
        func ask() async {
            await store.prefetch(dependingOnList: "uids", at: list) { [store] followed in
                await store.prefetch(
                    store.collection("posts").whereField("uid", in: [.string(followed), .string("me")])
                        .order(by: "n", descending: true).limit(to: 10))
            }
        }

        await ask()
        _ = try await store.runQuery(store.collection("elsewhere").query)
        for (id, uid) in [("p1", "u1"), ("p2", "u2"), ("p3", "u3"), ("p4", "me")] {
            try await other.setData(
                ["uid": .string(uid), "n": .integer(2)], at: other.collection("posts").document(id))
        }
        let first = try await store.runQuery(page(["me", "u1", "u2"]))
        #expect(ids(first) == ["p1", "p2", "p4"] && numbers(first) == [1, 1, 1], "from the read it went with")
        #expect(numbers(try await store.runQuery(page(["me", "u1", "u2"]))) == [2, 2, 2], "taken once")

        await ask()
        _ = try await store.runQuery(store.collection("elsewhere").query)
        try await other.setData(["uid": .string("u1"), "n": .integer(3)], at: other.collection("posts").document("p1"))
        #expect(numbers(try await store.runQuery(page(["me", "u1"]))) == [3, 2], "another list is read afresh")
    }

    /// The documents a page's arrays name, newest first, go in the page's round trip: the rows in
    /// order, each array from its end, up to the count; answered once for the same paths in the
    /// same order, and for no other.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func documentsNamedByAPagesArraysGoInItsRoundTrip() async throws {
        let (store, other) = try await Self.prefetchingStores()
        let buckets = store.collection("terms/x/buckets")
        let tweets = store.collection("tweets")
        try await store.setData(
            ["start": .string("a1"), "ids": .array(["a1", "a2", "a3"].map { .string($0) })], at: buckets.document("a1"))
        try await store.setData(
            ["start": .string("a4"), "ids": .array(["a4", "a5"].map { .string($0) })], at: buckets.document("a4"))
        try await store.setData(["start": .string("a0"), "ids": .string("not a list")], at: buckets.document("a0"))
        for id in ["a1", "a2", "a3", "a4", "a5"] {
            try await store.setData(["n": .integer(1)], at: tweets.document(id))
        }
        let newest = buckets.order(by: "start", descending: true)
        func numbers(_ snapshots: [DocumentSnapshot]) -> [Int64] { snapshots.compactMap { $0.data["n"]?.integerValue } }
        func paths(_ ids: [String]) -> [DocumentPath] { ids.map { tweets.document($0) } }

        await store.prefetch(newest.limit(to: 2))
        await store.prefetch(documentsIn: "tweets", namedByLast: 4, of: "ids", across: newest.limit(to: 2))
        await store.prefetch(documentsIn: "tweets", namedByLast: 9, of: "ids", across: newest)
        _ = try await store.runQuery(store.collection("elsewhere").query)
        for id in ["a1", "a2", "a3", "a4", "a5"] {
            try await other.setData(["n": .integer(2)], at: other.collection("tweets").document(id))
        }
        #expect(numbers(try await store.getDocuments(paths(["a4", "a5", "a3", "a2"]))) == [2, 2, 2, 2])
        #expect(numbers(try await store.getDocuments(paths(["a5", "a4", "a3", "a2"]))) == [1, 1, 1, 1])
        #expect(numbers(try await store.getDocuments(paths(["a5", "a4", "a3", "a2"]))) == [2, 2, 2, 2])
        // A row whose field is no list names nothing.
        #expect(numbers(try await store.getDocuments(paths(["a5", "a4", "a3", "a2", "a1"]))) == [1, 1, 1, 1, 1])
    }

    /// A text search of ASCII text is narrowed on the server (`ILIKE`) to the fields that may
    /// match, and decided in Swift as before: the answer is the one Swift gives, with LIKE's own
    /// characters taken literally and a field Swift folds differently (the Kelvin sign) kept.
    @Test(.enabled(if: PostgresCluster.isAvailable))
    func aTextSearchIsNarrowedOnTheServerWithoutLosingWhatSwiftFinds() async throws {
        let location = try PostgresLocation(try PostgresCluster.freshLocation())
        let store = PostgresDocumentStore(location: location)
        let people = store.collection("people")
        let names = [
            "a": "Ada Lovelace", "b": "Bo\u{212A}",  // KELVIN SIGN, which Swift lowercases to "k"
            "c": "50% off_now", "d": "back\\slash", "e": "Plain", "f": "Kim",
        ]
        for (id, name) in names { try await store.setData(["name": .string(name)], at: people.document(id)) }
        func found(_ text: String) async throws -> [String] {
            try await people.order(by: "name").whereAny(["name"], containsText: text.lowercased()).getDocuments()
                .map(\.documentID).sorted()
        }
        #expect(try await found("ada") == ["a"])
        #expect(try await found("k") == ["b", "d", "f"])
        #expect(try await found("%") == ["c"])
        #expect(try await found("_") == ["c"])
        #expect(try await found("\\") == ["d"])
        #expect(try await found("0% o") == ["c"])
        // The server's rows for "ada": the match, and the one field it leaves to Swift.
        let sql = try PostgresQuery(
            people.order(by: "name").whereAny(["name"], containsText: "ada"), split: false)
        let rows = try PostgresConnection(location).execute(sql.sql, sql.statement.parameters)
        #expect(rows.compactMap { $0[1] }.sorted() == ["a", "b"])
    }

    /// A fresh store that keeps prefetched answers for as long as a test takes, and another
    /// process's view of it, whose writes the first does not see in what it prefetched.
    private static func prefetchingStores() async throws -> (PostgresDocumentStore, PostgresDocumentStore) {
        let location = try PostgresLocation(try PostgresCluster.freshLocation())
        let store = PostgresDocumentStore(location: location)
        await store.keepPrefetchedAnswers(for: .seconds(600))
        return (store, PostgresDocumentStore(location: location))
    }
}
