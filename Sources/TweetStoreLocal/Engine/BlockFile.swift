import FoundationEssentials
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// A read-only file read in 4 KiB blocks with `pread`, keeping the blocks it has read.
///
/// Not a memory map on purpose: the kernel maps whole large folios of a mapped file on a fault,
/// so a page of results from a memory-mapped 400 MB segment counted tens of MiB in the process's
/// resident set. A lookup touches a few scattered blocks, and the top levels of every binary search
/// fall on the same blocks, which the cache keeps.
final class BlockFile {
    static let blockSize = 4096
    /// The most blocks kept (16 MiB); a bulk read past it starts the cache afresh.
    static let maximumCachedBlocks = 4096

    let path: String
    let count: Int
    private let file: FileDescriptor
    private var blocks: [Int: [UInt8]] = [:]

    init(path: String) throws {
        self.path = path
        guard let fd = try FileIO.openRegular(path, O_RDONLY) else {
            throw StoreError.cannotOpen(path: path, reason: "there is no such file")
        }
        file = FileDescriptor(fd)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.io(path: path, reason: FileIO.errnoText()) }
        count = Int(info.st_size)
    }

    private func block(_ number: Int) throws -> [UInt8] {
        if let cached = blocks[number] { return cached }
        let start = number * Self.blockSize
        let bytes = try FileIO.readBytes(
            from: file.fd, offset: start, count: min(Self.blockSize, count - start), path: path)
        if blocks.count >= Self.maximumCachedBlocks { blocks.removeAll(keepingCapacity: true) }
        blocks[number] = bytes
        return bytes
    }

    /// The bytes of `range`, which must lie inside the file.
    func read(_ range: Range<Int>) throws -> [UInt8] {
        try withBytes(range) { Array($0) }
    }

    /// Calls `body` with the bytes of `range`, without copying them when they lie in one block.
    func withBytes<T>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw StoreError.io(path: path, reason: "a read past the end of the file")
        }
        let first = range.lowerBound / Self.blockSize
        if (range.upperBound - 1) / Self.blockSize == first || range.isEmpty {
            let block = try block(first)
            let offset = range.lowerBound - first * Self.blockSize
            return try block.withUnsafeBufferPointer { buffer in
                try body(UnsafeBufferPointer(rebasing: buffer[offset..<(offset + range.count)]))
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(range.count)
        var position = range.lowerBound
        while position < range.upperBound {
            let number = position / Self.blockSize
            let block = try block(number)
            let offset = position - number * Self.blockSize
            let take = min(block.count - offset, range.upperBound - position)
            result += block[offset..<(offset + take)]
            position += take
        }
        return try result.withUnsafeBufferPointer(body)
    }

    /// The little-endian integer at byte `offset`.
    func uint64(at offset: Int) throws -> UInt64 {
        try withBytes(offset..<(offset + 8)) {
            UInt64(littleEndian: UnsafeRawBufferPointer($0).loadUnaligned(as: UInt64.self))
        }
    }

    func uint32(at offset: Int) throws -> UInt32 {
        try withBytes(offset..<(offset + 4)) {
            UInt32(littleEndian: UnsafeRawBufferPointer($0).loadUnaligned(as: UInt32.self))
        }
    }
}
