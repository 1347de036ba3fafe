import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct TransactionTests {
    let env: TestEnvironment
    let store: LocalDocumentStore

    init() async throws {
        env = try TestEnvironment()
        store = try env.makeStore()
        // The store exists from its first write: create it, so each test starts from its journal.
        try await store.setData([:], at: DocumentPath(collection: "setup", documentID: "created"))
    }

    /// A store laid out as `layout`, in a directory of its own.
    private func makeStore(_ layout: StoreLayout) throws -> any DocumentStore {
        try env.makeStore(layout, directory: env.path("layout"))
    }

    /// Every file of that store with its bytes, to show that nothing was written.
    private func storeFiles() throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        // A PostgreSQL store has no files here: its rows are what the test reads back.
        guard FileManager.default.fileExists(atPath: env.path("layout")) else { return files }
        for name in try env.files(in: env.path("layout")) {
            files[name] = try env.bytes(of: env.path("layout/\(name)"))
        }
        return files
    }

    private struct Abort: Error, Equatable {}

    private func path(_ id: String) -> DocumentPath { DocumentPath(collection: "things", documentID: id) }

    private func fields(_ id: String) async throws -> JSONObject? {
        try await store.getDocument(path(id))?.data
    }

    @Test func aTransactionCommitsAllItsWritesAsOneJournalRecord() async throws {
        let before = try env.bytes(of: env.journalPath)
        let result = try await store.runTransaction { transaction in
            transaction.setData(["n": .integer(1)], at: path("a"))
            transaction.setData(["n": .integer(2)], at: path("b"))
            return "done"
        }
        #expect(result == "done")
        #expect(try await fields("a") == ["n": .integer(1)])
        #expect(try await fields("b") == ["n": .integer(2)])
        let after = try env.bytes(of: env.journalPath)
        #expect(after.starts(with: before))
        #expect(after[before.count...].filter { $0 == 0x0A }.count == 1)
    }

    @Test(arguments: StoreLayout.allCases)
    func aThrowingBodyWritesNothing(_ layout: StoreLayout) async throws {
        let store = try makeStore(layout)
        try await store.setData(["n": .integer(1)], at: path("a"))
        let before = try storeFiles()
        await #expect(throws: Abort()) {
            try await store.runTransaction { transaction in
                transaction.setData(["n": .integer(99)], at: path("a"))
                transaction.setData(["n": .integer(2)], at: path("b"))
                transaction.deleteDocument(path("a"))
                throw Abort()
            }
        }
        #expect(try await store.getDocument(path("a"))?.data == ["n": .integer(1)])
        #expect(try await store.getDocument(path("b")) == nil)
        #expect(try storeFiles() == before)
        #expect(try await makeStore(layout).getDocument(path("b")) == nil)
    }

    /// Documents read ahead, together, are what the body's reads then find: as the store was
    /// before the transaction, the missing ones missing, its own writes not among them; and the
    /// commit resolves an update against them as against any read.
    @Test(arguments: StoreLayout.allCases)
    func documentsReadAheadAreTheStateBeforeTheTransaction(_ layout: StoreLayout) async throws {
        let store = try makeStore(layout)
        try await store.setData(["n": .integer(1)], at: path("a"))
        try await store.setData(["n": .integer(2)], at: path("b"))
        let seen = try await store.runTransaction { transaction in
            try await transaction.readAhead([path("a"), path("missing"), path("b"), path("a")])
            transaction.setData(["n": .integer(10)], at: path("a"))
            transaction.updateData(["n": .increment(5)], at: path("b"))
            var seen: [Int64?] = []
            for name in ["a", "b", "missing", "c"] {
                seen.append(try await transaction.getDocument(path(name))?.data["n"]?.integerValue)
            }
            return seen
        }
        #expect(seen == [1, 2, nil, nil])
        #expect(try await store.getDocument(path("a"))?.data == ["n": .integer(10)])
        #expect(try await store.getDocument(path("b"))?.data == ["n": .integer(7)])
        #expect(try await store.getDocument(path("missing")) == nil)
    }

    @Test(arguments: StoreLayout.allCases)
    func updatingAMissingDocumentFailsTheWholeTransaction(_ layout: StoreLayout) async throws {
        let store = try makeStore(layout)
        try await store.setData(["n": .integer(1)], at: path("other"))
        let before = try storeFiles()
        await #expect(throws: StoreError.documentNotFound(path: "things/missing")) {
            try await store.runTransaction { transaction in
                transaction.setData(["n": .integer(1)], at: path("a"))
                transaction.updateData(["n": .increment(1)], at: path("missing"))
            }
        }
        #expect(try await store.getDocument(path("a")) == nil)
        #expect(try storeFiles() == before)
    }

    @Test func updatingADocumentDeletedEarlierInTheTransactionFails() async throws {
        try await store.setData(["n": .integer(1)], at: path("a"))
        await #expect(throws: StoreError.documentNotFound(path: "things/a")) {
            try await store.runTransaction { transaction in
                transaction.deleteDocument(path("a"))
                transaction.updateData(["n": .value(.integer(2))], at: path("a"))
            }
        }
        #expect(try await fields("a") == ["n": .integer(1)])
    }

    @Test(arguments: StoreLayout.allCases)
    func updateChangesOnlyTheNamedFields(_ layout: StoreLayout) async throws {
        let store = try makeStore(layout)
        try await store.setData(["keep": .string("k"), "change": .integer(1), "drop": .bool(true)], at: path("a"))
        try await store.runTransaction { transaction in
            transaction.updateData(
                ["change": .value(.string("new")), "drop": .delete, "add": .value(.null)], at: path("a"))
        }
        #expect(
            try await store.getDocument(path("a"))?.data == [
                "keep": .string("k"), "change": .string("new"), "add": .null,
            ])
    }

    @Test(
        arguments: StoreLayout.allCases,
        [(JSONValue.integer(5), Int64(3), Int64(8)), (.integer(5), -7, -2), (.double(4.0), 1, 5), (.null, 2, 2)])
    func incrementAddsToTheField(_ layout: StoreLayout, _ change: (JSONValue, Int64, Int64)) async throws {
        let (start, amount, expected) = change
        let store = try makeStore(layout)
        try await store.setData(["count": start], at: path("a"))
        try await store.runTransaction { $0.updateData(["count": .increment(amount)], at: path("a")) }
        #expect(try await store.getDocument(path("a"))?.data["count"] == .integer(expected))
    }

    @Test func incrementCountsAMissingFieldAsZero() async throws {
        try await store.setData(["other": .integer(1)], at: path("a"))
        try await store.runTransaction { $0.updateData(["count": .increment(4)], at: path("a")) }
        #expect(try await fields("a") == ["other": .integer(1), "count": .integer(4)])
    }

    @Test func incrementsInOneTransactionAddUp() async throws {
        try await store.setData(["count": .integer(1)], at: path("a"))
        try await store.runTransaction { transaction in
            for _ in 0..<3 { transaction.updateData(["count": .increment(2)], at: path("a")) }
        }
        #expect(try await fields("a")?["count"] == .integer(7))
    }

    @Test(arguments: StoreLayout.allCases)
    func concurrentIncrementsFromTwoStoresLoseNothing(_ layout: StoreLayout) async throws {
        let store = try makeStore(layout)
        try await store.setData(["count": .integer(0)], at: path("a"))
        let other = try makeStore(layout)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let target: any DocumentStore = index.isMultiple(of: 2) ? store : other
                group.addTask {
                    try await target.runTransaction { $0.updateData(["count": .increment(1)], at: path("a")) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.getDocument(path("a"))?.data["count"] == .integer(40))
        #expect(try await other.getDocument(path("a"))?.data["count"] == .integer(40))
    }

    @Test func bodiesThatSuspendBetweenReadAndWriteStillRunOneAtATime() async throws {
        try await store.setData(["count": .integer(0)], at: path("a"))
        let store = self.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await store.runTransaction { transaction in
                        let count = try await transaction.getDocument(path("a"))?.data["count"]?.integerValue ?? 0
                        await Task.yield()  // another task's transaction or read could run here
                        transaction.setData(["count": .integer(count + 1)], at: path("a"))
                    }
                }
                group.addTask { _ = try await store.getDocument(path("a")) }
            }
            try await group.waitForAll()
        }
        #expect(try await fields("a")?["count"] == .integer(20))
    }

    @Test func aBodyThatReadsTheStoreItselfIsRefusedNotDeadlocked() async throws {
        let store = self.store
        await #expect(throws: StoreError.self) {
            try await store.runTransaction { transaction in
                transaction.setData(["n": .integer(1)], at: path("never"))
                _ = try await store.getDocument(path("a"))
            }
        }
        #expect(try await fields("never") == nil)
        // The store is usable again.
        try await store.setData(["n": .integer(2)], at: path("after"))
        #expect(try await fields("after") == ["n": .integer(2)])
    }

    @Test func aTransactionKeptPastItsEndCannotRead() async throws {
        let escaped = try await store.runTransaction { $0 }
        await #expect(throws: StoreError.self) { _ = try await escaped.getDocument(path("a")) }
    }

    @Test func readsInATransactionSeeTheCommittedStateNotItsOwnWrites() async throws {
        try await store.setData(["n": .integer(1)], at: path("a"))
        let (seen, pending) = try await store.runTransaction { transaction in
            let seen = try await transaction.getDocument(path("a"))?.data["n"]
            transaction.setData(["n": .integer(2)], at: path("b"))
            let pending = try await transaction.getDocument(path("b"))
            return (seen, pending == nil)
        }
        #expect(seen == .integer(1))
        #expect(pending)
    }

    @Test(arguments: StoreLayout.allCases)
    func transactionTimesFollowTheClockAndNeverRepeatOrGoBack(_ layout: StoreLayout) async throws {
        let clock = TestClock()
        let store = try env.makeStore(clock: clock, directory: env.path("timed"), foldThreshold: layout.foldThreshold)
        func commitTime() async throws -> Date {
            try await store.runTransaction { transaction in
                transaction.setData(
                    ["t": .string(Timestamp.string(from: transaction.time))], at: path(UUID().uuidString))
                return transaction.time
            }
        }
        let first = try await commitTime()
        #expect(first == TestClock.start)
        let second = try await commitTime()  // The clock stood still: one millisecond later.
        #expect(second.timeIntervalSince(first) > 0.000_9)
        #expect(second.timeIntervalSince(first) < 0.001_1)
        clock.advance(by: 60)
        let third = try await commitTime()
        #expect(abs(third.timeIntervalSince(TestClock.start) - 60) < 0.000_1)
        clock.advance(by: -3_600)  // A clock set back never makes time run backwards.
        let fourth = try await commitTime()
        #expect(fourth > third)
        // Another store on the same directory continues after the last record, whatever its clock.
        let late = try env.makeStore(
            clock: TestClock(Date(timeIntervalSince1970: 0)), directory: env.path("timed"),
            foldThreshold: layout.foldThreshold)
        let fifth = try await late.runTransaction { transaction in
            transaction.setData([:], at: path("late"))
            return transaction.time
        }
        #expect(fifth > fourth)
    }

    @Test func setDataReplacesTheWholeDocument() async throws {
        try await store.setData(["a": .integer(1), "b": .integer(2)], at: path("x"))
        try await store.setData(["c": .integer(3)], at: path("x"))
        #expect(try await fields("x") == ["c": .integer(3)])
    }

    @Test func deletingRemovesTheDocumentAndItsEmptyCollection() async throws {
        try await store.setData(["a": .integer(1)], at: path("x"))
        try await store.runTransaction { $0.deleteDocument(path("x")) }
        #expect(try await fields("x") == nil)
        #expect(try await store.collection("things").query.count() == 0)
        try await store.runTransaction { $0.deleteDocument(path("never")) }  // Deleting nothing is fine.
    }
}
