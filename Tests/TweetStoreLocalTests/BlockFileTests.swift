import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// The block pool reuses its buffers: whatever is read, in any order, nested or across block
/// boundaries, must be the file's bytes, including after a block has been evicted and read again.
struct BlockFileTests {
    @Test func readsGiveTheFileBytesWhateverThePoolEvicts() throws {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("blocks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var generator = SplitMix64(seed: 11)
        // Three times the pool, and a last block that is not whole.
        let size = BlockFile.poolBlocks * BlockFile.blockSize * 3 + 1234
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try BlockFile(path: path)
        #expect(file.count == size)
        for round in 0..<6000 {
            let start = Int.random(in: 0..<size, using: &generator)
            // Mostly small reads (a line, a key), some across blocks, some of many blocks.
            let length =
                round % 50 == 0
                ? Int.random(in: 0...20_000, using: &generator) : Int.random(in: 0...600, using: &generator)
            let range = start..<min(size, start + length)
            // A read inside another's closure: the outer bytes must stay what they were.
            let other = Int.random(in: 0..<(size - 8), using: &generator)
            let (outer, inner) = try file.withBytes(range) { buffer in
                let inner = try file.uint64(at: other)
                return (Array(buffer), inner)
            }
            // A read outside the pool (a Bloom filter's block), from a pooled block or the file.
            let elsewhere = round % 2 == 0 ? start : Int.random(in: 0..<size, using: &generator)
            let small = elsewhere..<min(size, elsewhere + Int.random(in: 0...BlockFile.blockSize, using: &generator))
            let outside = try file.withBytesOutsidePool(small) { Array($0) }
            #expect(outside == Array(bytes[small]), "read \(small) outside the pool")
            #expect(outer == Array(bytes[range]), "read \(range)")
            var expected: UInt64 = 0
            for (shift, byte) in bytes[other..<(other + 8)].enumerated() {
                expected |= UInt64(byte) << UInt64(8 * shift)
            }
            #expect(inner == expected)
            if outer != Array(bytes[range]) || inner != expected { return }
        }
        #expect(throws: StoreError.self) { try file.withBytes((size - 4)..<(size + 1)) { _ in () } }
        #expect(throws: StoreError.self) { try file.withBytesOutsidePool((size - 4)..<(size + 1)) { _ in () } }
        #expect(throws: StoreError.self) { try file.withBytesOutsidePool(0..<(BlockFile.blockSize + 1)) { _ in () } }
    }

    /// A read outside the pool takes no slot: the blocks the pool held are all still there after
    /// as many such reads of other blocks as it has slots, where reading those blocks through the
    /// pool gives the first ones up.
    @Test func readsOutsideThePoolLeaveItsBlocks() throws {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("blocks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let blocks = BlockFile.poolBlocks * 3
        let bytes = (0..<(blocks * BlockFile.blockSize)).map { UInt8(truncatingIfNeeded: $0 / BlockFile.blockSize) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try BlockFile(path: path)
        func read(_ block: Int, outside: Bool) throws -> UInt8 {
            let range = (block * BlockFile.blockSize + 100)..<(block * BlockFile.blockSize + 164)
            return try outside ? file.withBytesOutsidePool(range) { $0[0] } : file.withBytes(range) { $0[0] }
        }
        for block in 0..<BlockFile.poolBlocks { #expect(try read(block, outside: false) == UInt8(block)) }
        #expect(file.reads == BlockFile.poolBlocks)
        for block in BlockFile.poolBlocks..<(2 * BlockFile.poolBlocks) {
            #expect(try read(block, outside: true) == UInt8(block))
        }
        #expect(file.reads == 2 * BlockFile.poolBlocks)
        // The pool's blocks are read from it, without a read of the file, outside it or through it.
        for block in 0..<BlockFile.poolBlocks {
            #expect(try read(block, outside: true) == UInt8(block))
            #expect(try read(block, outside: false) == UInt8(block))
        }
        #expect(file.reads == 2 * BlockFile.poolBlocks)
        // Through the pool, other blocks take its slots.
        for block in (2 * BlockFile.poolBlocks)..<blocks { _ = try read(block, outside: false) }
        let before = file.reads
        _ = try read(0, outside: false)
        #expect(file.reads == before + 1)
    }

    /// Reads nested deeper than the pool has slots pin every slot: the next read is an error,
    /// never a buffer reused under a reader.
    @Test func nestedReadsNeverReuseAPinnedBuffer() throws {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("blocks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let blocks = BlockFile.poolBlocks + 2
        let bytes = (0..<(blocks * BlockFile.blockSize)).map { UInt8(truncatingIfNeeded: $0 / BlockFile.blockSize) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try BlockFile(path: path)
        func nest(_ block: Int) throws -> Bool {
            try file.withBytes((block * BlockFile.blockSize)..<(block * BlockFile.blockSize + 16)) { buffer in
                let before = Array(buffer)
                let deeper = block + 1 < blocks ? try nest(block + 1) : true
                return deeper && Array(buffer) == before && before.allSatisfy { $0 == UInt8(truncatingIfNeeded: block) }
            }
        }
        #expect(throws: StoreError.self) { _ = try nest(0) }
        // Once the readers are done, every slot can be reused.
        #expect(try nest(blocks - BlockFile.poolBlocks))
    }
}
