import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// A file given to `import` is untrusted: each of these was accepted before, and is refused now
/// with its line named and nothing imported, on every engine.
@MainActor
struct ImportTrustTests {
    nonisolated static let layouts = [StoreLayout.journal] + (PostgresCluster.isAvailable ? [.postgres] : [])

    /// Imports `lines` into a fresh store and expects the refusal to name `line`, with nothing written.
    private func expectRefused(
        _ lines: [String], line: Int?, containing words: String, fixture: ImportFixture, layout: StoreLayout,
        merging: Bool = false
    ) async throws {
        let target = try fixture.freshServices(layout, name: "refused-\(UUID().uuidString)")
        var thrown: (any Error)?
        do {
            try await fixture.importLines(lines, into: target, merging: merging)
        } catch {
            thrown = error
        }
        let found: Int?
        let reason: String
        switch thrown as? ImportError {
        case .refused(_, let line, let why)?: (found, reason) = (line, why)
        case .malformed(_, let line, let why)?: (found, reason) = (line, why)
        default:
            Issue.record("expected a refusal, got \(String(describing: thrown))")
            return
        }
        #expect(found == line)
        #expect(reason.contains(words), "\(reason)")
        #expect(try await ImportFixture.export(target).isEmpty)
    }

    @Test(arguments: layouts)
    func aSecondAccountUnderATakenUsernameOrEmailIsRefused(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        var intruder = try fixture.document("users/\(fixture.ada.id)")
        intruder["email"] = .string("intruder@example.com")
        // A uid that sorts before every other, so the intruder would be found first.
        var lines = fixture.lines
        lines.insert(ImportFixture.line("users/0000000000000000000A", intruder), at: 0)
        // Refused at the real account's line, the second to claim the name.
        let real = try #require(lines.firstIndex { $0.hasSuffix("\"path\":\"users/\(fixture.ada.id)\"}") })
        try await expectRefused(lines, line: real + 1, containing: "taken", fixture: fixture, layout: layout)

    }

    @Test(arguments: layouts)
    func aTakenUsernameIsRefusedInAnyCaseAndOnMerge(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        var intruder = try fixture.document("users/\(fixture.ada.id)")
        intruder["username"] = .string("ADA")
        intruder["email"] = .string("other@example.com")
        let upper = fixture.lines + [ImportFixture.line("users/0000000000000000000A", intruder)]
        try await expectRefused(
            upper, line: upper.count, containing: "lowercase username", fixture: fixture, layout: layout)
        intruder["username"] = .string("ada")
        let lower = fixture.lines + [ImportFixture.line("users/0000000000000000000A", intruder)]
        try await expectRefused(lower, line: lower.count, containing: "taken", fixture: fixture, layout: layout)
        // Merged into the store that has @ada: refused, and @ada still signs in as herself.
        let merged = [ImportFixture.line("users/0000000000000000000A", intruder)]
        await #expect(throws: ImportError.self) {
            try await fixture.importLines(merged, into: fixture.services, merging: true)
        }
        let found = try await fixture.services.users.fetchUser(withUsername: "ada")
        #expect(found.id == fixture.ada.id)
        var email = intruder
        email["username"] = .string("newcomer")
        email["email"] = .string("ada@example.com")
        await #expect(throws: ImportError.self) {
            try await fixture.importLines(
                [ImportFixture.line("users/0000000000000000000B", email)], into: fixture.services, merging: true)
        }
    }

    /// A merge's new accounts are written in a transaction that finds their names free again: a
    /// register between the merge's first check and its write cannot give a name to two accounts.
    @Test(arguments: layouts)
    func aNameTakenAfterTheMergeCheckedIsStillRefused(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        var newcomer = try fixture.document("users/\(fixture.ada.id)")
        newcomer["username"] = .string("newcomer")
        newcomer["email"] = .string("newcomer@example.com")
        let path = DocumentPath(collection: Collections.users, documentID: "0000000000000000000A")
        // As if @newcomer registered after the merge read the store's names.
        try await fixture.env.registerUser("newcomer", in: fixture.services)
        await #expect(throws: ImportError.self) {
            try await ImportViewModel.addAccounts([(path, newcomer)], store: fixture.services.store) { path, reason in
                ImportError.refused(source: "test", line: nil, reason: reason)
            }
        }
        #expect(try await fixture.services.store.getDocument(path) == nil)
        newcomer["username"] = .string("other")
        newcomer["email"] = .string("other@example.com")
        let report = try await ImportViewModel.addAccounts([(path, newcomer)], store: fixture.services.store) {
            _, reason in
            ImportError.refused(source: "test", line: nil, reason: reason)
        }
        #expect(report.added == 1)
        #expect(try await fixture.services.store.getDocument(path)?.data == newcomer)
    }

    @Test(arguments: layouts)
    func exportsCarryNoSessionsAndImportsPlantNone(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        // The store has the sessions of both sign-ins; the export has none.
        #expect(try await !fixture.services.store.collection(Collections.sessions).query.getDocuments().isEmpty)
        #expect(!fixture.lines.contains { $0.contains("\"path\":\"sessions/") })
        let planted = ImportFixture.line(
            "sessions/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            ["uid": .string(fixture.ada.id), "created": .string("2026-01-01T00:00:00.000Z")])
        let target = try fixture.freshServices(layout)
        try await fixture.importLines(fixture.lines + [planted], into: target)
        #expect(try await target.store.collection(Collections.sessions).query.getDocuments().isEmpty)
        #expect(try await expectImportInvariants(target) == [])
    }

    @Test(arguments: layouts)
    func credentialsComeOnlyWithTheAccountsAnImportCreates(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        let ghost = ImportFixture.line(
            "credentials/0000000000000000000C", ["passwordHash": .string("$y$j9T$abc$def")])
        let lines = fixture.lines + [ghost]
        try await expectRefused(lines, line: lines.count, containing: "no account", fixture: fixture, layout: layout)
        // A store whose @ada has no password hash: a merge does not give her one.
        let adaCredentials = "credentials/\(fixture.ada.id)"
        let target = try fixture.freshServices(layout)
        try await fixture.importLines(fixture.lines.filter { !$0.hasSuffix("\"\(adaCredentials)\"}") }, into: target)
        var hash = try fixture.document(adaCredentials)
        hash["passwordHash"] = .string("$y$j9T$planted$planted")
        try await fixture.importLines(
            fixture.replacing(adaCredentials, with: hash), into: target, merging: true)
        #expect(try await target.store.getDocument(DocumentPath(adaCredentials)!) == nil)
    }

    @Test(arguments: layouts)
    func aTwtxtFollowOfALocalFileIsRefused(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        let url = "file:///etc/passwd"
        let path = "users/\(fixture.ada.id)/twtxt-following/\(TwtxtService.key(url))"
        let planted = ImportFixture.line(
            path, ["url": .string(url), "nick": .string("x"), "followed": .string("2026-01-01T00:00:00.000Z")])
        let lines = fixture.lines + [planted]
        try await expectRefused(lines, line: lines.count, containing: "http(s)", fixture: fixture, layout: layout)
        try await expectRefused(
            [planted], line: 1, containing: "http(s)", fixture: fixture, layout: layout, merging: true)
    }

    @Test(arguments: layouts)
    func numbersOutOfRangeRepeatedKeysAndNegativeCountersAreRefused(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        let tweet = try #require(fixture.lines.firstIndex { $0.contains("\"path\":\"tweets/") })
        var huge = fixture.lines
        huge[tweet] = huge[tweet].replacingOccurrences(of: "\"likes\":", with: "\"likes\":1e999999,\"x\":")
        try await expectRefused(huge, line: tweet + 1, containing: "out of range", fixture: fixture, layout: layout)
        var repeated = fixture.lines
        repeated[tweet] = repeated[tweet].replacingOccurrences(
            of: "\"path\":", with: "\"path\":\"users/0000000000000000000A\",\"path\":")
        try await expectRefused(
            repeated, line: tweet + 1, containing: "given twice", fixture: fixture, layout: layout)
        var negative = fixture.lines
        negative[tweet] = negative[tweet].replacingOccurrences(of: "\"likes\":", with: "\"likes\":-5,\"x\":")
        try await expectRefused(negative, line: tweet + 1, containing: "below 0", fixture: fixture, layout: layout)
    }

    @Test(arguments: layouts)
    func countersThatDisagreeAndUnknownCollectionsAreRefused(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        let tweet = try #require(fixture.lines.firstIndex { $0.contains("\"likes\":1,") })
        var inflated = fixture.lines
        inflated[tweet] = inflated[tweet].replacingOccurrences(of: "\"likes\":1,", with: "\"likes\":2,")
        try await expectRefused(inflated, line: nil, containing: "likes", fixture: fixture, layout: layout)
        // The quoted tweet claims a quote more than the one quoting it.
        let quoted = try #require(fixture.lines.firstIndex { $0.contains("\"quotes\":1") })
        var quotes = fixture.lines
        quotes[quoted] = quotes[quoted].replacingOccurrences(of: "\"quotes\":1", with: "\"quotes\":3")
        try await expectRefused(quotes, line: nil, containing: "quoting", fixture: fixture, layout: layout)
        let unknown = fixture.lines + [ImportFixture.line("secrets/x", [:])]
        try await expectRefused(
            unknown, line: unknown.count, containing: "not a collection", fixture: fixture, layout: layout)
    }

    @Test(arguments: layouts)
    func aRealExportImportsWholeAndTheAuditFindsNothing(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        let target = try fixture.freshServices(layout)
        try await fixture.importLines(fixture.lines, into: target)
        #expect(try await ImportFixture.export(target) == fixture.lines)
        #expect(try await expectImportInvariants(target) == [])
        // Merged into itself: nothing to add, nothing refused.
        try await fixture.importLines(fixture.lines, into: fixture.services, merging: true)
    }

    @Test(arguments: layouts)
    func aMergeCountsAgainTheCountersItsDocumentsTouch(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        // A backup from before bob liked ada's first tweet, restored, then the newer one merged.
        let like = "users/\(fixture.bob.id)/user-likes/"
        let liked = try #require(fixture.lines.first { $0.contains("\"path\":\"\(like)") })
        let tweetID = try #require(liked.split(separator: "/").last?.dropLast(2)).description
        var tweet = try fixture.document("tweets/\(tweetID)")
        tweet["likes"] = .integer(0)
        let older = fixture.replacing("tweets/\(tweetID)", with: tweet).filter { $0 != liked }
        let target = try fixture.freshServices(layout)
        try await fixture.importLines(older, into: target)
        try await fixture.importLines(fixture.lines, into: target, merging: true)
        let merged = try await target.store.getDocument(DocumentPath(collection: "tweets", documentID: tweetID))
        #expect(merged?.data["likes"] == .integer(1))
        #expect(try await expectImportInvariants(target) == [])
    }

    @Test func aRepairSettlesWhatHangsOnALostTweetAsDeletingItWould() async throws {
        let fixture = try await ImportFixture()
        let store = fixture.services.store
        // The tweet bob liked, retweeted and replied to, lost as a repair can lose a damaged line.
        let like = "users/\(fixture.bob.id)/user-likes/"
        let liked = try #require(fixture.lines.first { $0.contains("\"path\":\"\(like)") })
        let tweetID = try #require(liked.split(separator: "/").last?.dropLast(2)).description
        try await store.runTransaction { $0.deleteDocument(DocumentPath(collection: "tweets", documentID: tweetID)) }
        #expect(try await !StoreAudit(store: store).check().isEmpty)
        let report = try await StoreAudit(store: store).repair()
        #expect(report.unrepaired == [], "\(report)")
        #expect(report.repaired.contains { $0.contains("like(s) of tweets that are gone") })
        #expect(report.repaired.contains { $0.contains("reply(ies) to tweets that are gone") })
        #expect(report.repaired.contains { $0.contains("quote(s) of tweets that are gone") })
        #expect(try await StoreAudit(store: store).check() == [])
    }

    @Test func theAuditFindsAndRepairsAStoreDamagedByAnOlderImport() async throws {
        let fixture = try await ImportFixture()
        let store = fixture.services.store
        var intruder = try fixture.document("users/\(fixture.ada.id)")
        intruder["email"] = .string("intruder@example.com")
        let tweet = try #require(fixture.lines.first { $0.contains("\"likes\":1,") })
        guard case .object(let line) = try JSONValue.parse(Array(tweet.utf8)), case .object(var data)? = line["data"],
            case .string(let tweetPath)? = line["path"]
        else { return }
        data["likes"] = .integer(7)
        let (user, inflated) = (intruder, data)
        try await store.runTransaction { transaction in
            transaction.setData(user, at: DocumentPath(collection: "users", documentID: "0000000000000000000A"))
            transaction.setData(["uid": .string("nobody")], at: DocumentPath(collection: "sessions", documentID: "s1"))
            transaction.setData(inflated, at: DocumentPath(tweetPath)!)
        }
        let problems = try await StoreAudit(store: store).check()
        #expect(problems.contains { $0.description.contains("taken") })
        #expect(problems.contains(.sessionWithoutAccount(path: "sessions/s1")))
        #expect(problems.contains { if case .counter = $0 { true } else { false } })
        let report = try await StoreAudit(store: store).repair()
        #expect(report.repaired.count == 2, "\(report.repaired)")
        #expect(report.unrepaired.count == 1 && report.unrepaired[0].contains("taken"))
        #expect(try await StoreAudit(store: store).check().count == 1)
    }

    @Test(arguments: layouts)
    func aDeletedQuotedTweetLeavesItsQuotesMarkedAndTheExportImportable(layout: StoreLayout) async throws {
        let fixture = try await ImportFixture(layout)
        let quoting = try #require(fixture.lines.first { $0.contains("\"quoteId\":") })
        guard case .object(let line) = try JSONValue.parse(Array(quoting.utf8)),
            case .object(let data)? = line["data"], let quoted = data["quoteId"]?.stringValue,
            let path = line["path"]?.stringValue.flatMap({ DocumentPath($0) })
        else { throw ImportFixture.FixtureError.noSuchDocument("a quote") }
        try await fixture.services.tweets.deleteTweet(id: quoted)
        #expect(try await fixture.services.store.getDocument(path)?.data["quoteDeleted"] == .bool(true))
        let after = try await ImportFixture.export(fixture.services)
        let target = try fixture.freshServices(layout)
        try await fixture.importLines(after, into: target)
        #expect(try await expectImportInvariants(target) == [])
        // The mark is what lets the count leave the quote out: without it, the file disagrees.
        let unmarked = after.map { $0.replacingOccurrences(of: "\"quoteDeleted\":true,", with: "") }
        #expect(unmarked != after)
        try await expectRefused(
            unmarked, line: nil, containing: "quoting", fixture: fixture, layout: layout)
    }

    @Test func theAuditCountsQuotesAgain() async throws {
        let fixture = try await ImportFixture()
        let store = fixture.services.store
        let line = try #require(fixture.lines.first { $0.contains("\"quotes\":1") })
        guard case .object(let object) = try JSONValue.parse(Array(line.utf8)),
            case .object(var data)? = object["data"],
            let path = object["path"]?.stringValue.flatMap({ DocumentPath($0) })
        else { throw ImportFixture.FixtureError.noSuchDocument("a quoted tweet") }
        data["quotes"] = .integer(9)
        let inflated = data
        try await store.runTransaction { $0.setData(inflated, at: path) }
        #expect(try await StoreAudit(store: store).check().contains { $0.description.contains("quoting") })
        let report = try await StoreAudit(store: store).repair()
        #expect(report.repaired.contains { $0.contains("quotes") }, "\(report.repaired)")
        #expect(try await store.getDocument(path)?.data["quotes"] == .integer(1))
        #expect(try await StoreAudit(store: store).check() == [])
    }
}
