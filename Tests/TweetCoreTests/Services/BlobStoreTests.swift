import Foundation
import Testing
import TweetTestSupport

@testable import TweetStore

/// Blobs (photos) by their content address, on every engine: kept once, durable, read back byte
/// for byte by another process, and never named by anything but 64 hex digits.
struct BlobStoreTests {
    static let address = String(repeating: "ab", count: 32)

    @Test(arguments: [StoreLayout.journal] + (PostgresCluster.isAvailable ? [StoreLayout.postgres] : []))
    func aBlobIsKeptOnceAndReadBackByAnotherProcess(layout: StoreLayout) async throws {
        let env = try TestEnvironment()
        let store = try env.makeStore(layout)
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try await store.getBlob(Self.address) == nil)
        try await store.putBlob(bytes, address: Self.address)
        try await store.putBlob(bytes, address: Self.address)
        #expect(try await store.getBlob(Self.address) == bytes)
        let other = try env.makeStore(layout)
        #expect(try await other.getBlob(Self.address) == bytes)
        #expect(try await other.getBlob(String(repeating: "cd", count: 32)) == nil)
        let empty = String(repeating: "0", count: 64)
        try await other.putBlob([], address: empty)
        #expect(try await store.getBlob(empty) == [])
    }

    /// An address that could name another file, or another row, is refused before anything is read
    /// or written: wrong length, upper case, a path.
    @Test(arguments: [StoreLayout.journal] + (PostgresCluster.isAvailable ? [StoreLayout.postgres] : []))
    func anAddressThatIsNotAHashIsRefused(layout: StoreLayout) async throws {
        let env = try TestEnvironment()
        let store = try env.makeStore(layout)
        for address in [
            "", "ab", String(repeating: "AB", count: 32), "../../../../etc/passwd",
            String(repeating: "ab", count: 31) + "/x", String(repeating: "ab", count: 33),
        ] {
            await #expect(throws: StoreError.invalidBlobAddress(address)) {
                try await store.putBlob([1, 2, 3], address: address)
            }
            await #expect(throws: StoreError.invalidBlobAddress(address)) { _ = try await store.getBlob(address) }
        }
        if layout != .postgres {
            let blobs = env.storeDirectory + "/blobs"
            #expect(!FileManager.default.fileExists(atPath: blobs), "nothing was written")
        }
    }

    /// On the local engine a blob is a file of its own under `blobs/`, written whole or not at all:
    /// no temporary file is left, and a folder or FIFO where the blob should be is an error, not a hang.
    @Test func theLocalEngineKeepsABlobAsAFileWrittenWhole() async throws {
        let env = try TestEnvironment()
        let store = try env.makeStore(.journal)
        try await store.putBlob([7, 7, 7], address: Self.address)
        let folder = env.storeDirectory + "/blobs/ab"
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [Self.address])
        #expect(try env.permissions(of: folder) == 0o700)
        let fifo = String(repeating: "ef", count: 32)
        try FileManager.default.createDirectory(
            atPath: env.storeDirectory + "/blobs/ef", withIntermediateDirectories: true)
        #expect(mkfifo(env.storeDirectory + "/blobs/ef/" + fifo, 0o600) == 0)
        await #expect(throws: (any Error).self) { _ = try await store.getBlob(fifo) }
    }
}
