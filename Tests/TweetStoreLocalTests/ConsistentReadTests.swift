import Foundation
import Testing
import TweetTestSupport

@testable import TweetStore
@testable import TweetStoreLocal

/// `withConsistentReads`: the local engine takes the store's shared lock once, so that no other
/// process commits, folds or merges until the reads are done, and gives it back when they are,
/// or as soon as this process writes.
struct ConsistentReadTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    private func path(_ id: String) -> DocumentPath { DocumentPath(collection: "things", documentID: id) }

    /// Whether another process could take the store's lock exclusively now, as a writer must:
    /// a lock on a descriptor of its own, as another process's would be.
    private func aWriterCouldLock() throws -> Bool {
        let fd = open(env.storeDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(fd, LOCK_UN)
        return true
    }

    @Test func theReadsHoldOffWritersUntilTheyAreDone() async throws {
        let store = try env.makeStore()
        try await store.setData(["n": .integer(1)], at: path("a"))
        #expect(try aWriterCouldLock())
        var seen: JSONObject?
        var heldOff = false
        try await store.withConsistentReads {
            seen = try await store.getDocument(path("a"))?.data
            heldOff = try !aWriterCouldLock()
            _ = try await store.runQuery(store.collection("things").query)
        }
        #expect(seen == ["n": .integer(1)])
        #expect(heldOff, "another process could have written between the reads")
        #expect(try aWriterCouldLock(), "the lock outlived the reads")
    }

    @Test func scopesNestAndOnlyTheOutermostGivesTheLockBack() async throws {
        let store = try env.makeStore()
        try await store.setData(["n": .integer(1)], at: path("a"))
        try await store.withConsistentReads {
            try await store.withConsistentReads { _ = try await store.getDocument(path("a")) }
            #expect(try !aWriterCouldLock(), "the inner scope gave the lock back")
            _ = try await store.getDocument(path("a"))
        }
        #expect(try aWriterCouldLock())
    }

    @Test func aWriteOfThisProcessEndsThePinAndItsReadsSeeIt() async throws {
        let store = try env.makeStore()
        try await store.setData(["n": .integer(1)], at: path("a"))
        try await store.withConsistentReads {
            #expect(try await store.getDocument(path("b")) == nil)
            try await store.setData(["n": .integer(2)], at: path("b"))
            #expect(try await store.getDocument(path("b"))?.data == ["n": .integer(2)])
            #expect(try aWriterCouldLock(), "the write left the pin's lock behind")
        }
        #expect(try aWriterCouldLock())
    }

    @Test func aFailedBodyGivesTheLockBack() async throws {
        let store = try env.makeStore()
        try await store.setData(["n": .integer(1)], at: path("a"))
        await #expect(throws: StoreError.documentNotFound(path: "x")) {
            try await store.withConsistentReads { throw StoreError.documentNotFound(path: "x") }
        }
        #expect(try aWriterCouldLock())
    }

    /// A begin that fails (here, catching up with a damaged journal) leaves nothing open: once the
    /// journal is mended, the next scope pins again.
    @Test func aFailedBeginLeavesTheNextScopeToPin() async throws {
        let store = try env.makeStore()
        try await store.setData(["n": .integer(1)], at: path("a"))
        let intact = try env.bytes(of: env.journalPath)
        try env.write(intact + Array("not a record\n".utf8), to: env.journalPath)
        await #expect(throws: StoreError.self) { try await store.withConsistentReads {} }
        try env.write(intact, to: env.journalPath)
        var heldOff = false
        try await store.withConsistentReads { heldOff = try !aWriterCouldLock() }
        #expect(heldOff, "the failed begin was counted, so this scope did not pin")
        #expect(try aWriterCouldLock())
    }

    @Test func aStoreThatIsNotThereReadsAsEmptyAndStaysAbsent() async throws {
        let store = try env.makeStore()
        var found: DocumentSnapshot?
        try await store.withConsistentReads { found = try await store.getDocument(path("a")) }
        #expect(found == nil)
        #expect(!FileManager.default.fileExists(atPath: env.storeDirectory))
    }
}
