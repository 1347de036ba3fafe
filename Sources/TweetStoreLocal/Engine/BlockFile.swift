import FoundationEssentials
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// A read-only file read in 4 KiB blocks with `pread`, keeping the blocks it has read in a fixed
/// pool of buffers that are reused.
///
/// Not a memory map on purpose: the kernel maps whole large folios of a mapped file on a fault,
/// so a page of results from a memory-mapped 400 MB segment counted tens of MiB in the process's
/// resident set. A lookup touches a few scattered blocks, and the top levels of every binary search
/// fall on the same blocks, which the pool keeps.
///
/// Reused, because memory a process touches for the first time costs a page fault: measured here,
/// reading 265 scattered blocks into a fresh buffer each took 995 µs, into one reused buffer
/// 171 µs. A command reads a few hundred blocks, a scan thousands; the pool's pages fault once.
final class BlockFile {
    static let blockSize = 4096
    /// The blocks kept at once (1 MiB): past it, the block least recently used of those sampled
    /// (a clock sweep) gives up its buffer.
    static let poolBlocks = 32

    let path: String
    let count: Int
    private let file: FileDescriptor
    /// The pool's memory, allocated on the first read; only the pages used become resident.
    private var pool: UnsafeMutableRawPointer?
    /// Which block each slot of the pool holds (-1: none yet), and how many of its bytes.
    private var slotBlock: [Int] = []
    private var slotLength: [Int] = []
    /// Whether a slot was read since the clock hand last passed it.
    private var slotUsed: [Bool] = []
    /// Slots whose bytes a caller's closure is reading (nested reads must not reuse them).
    private var slotPins: [Int] = []
    private var slotOfBlock: [Int: Int] = [:]
    private var hand = 0

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

    deinit { pool?.deallocate() }

    /// The slot holding block `number`, read into one if it is not there.
    private func slot(_ number: Int) throws -> Int {
        if let slot = slotOfBlock[number] {
            slotUsed[slot] = true
            return slot
        }
        let pool: UnsafeMutableRawPointer
        if let existing = self.pool {
            pool = existing
        } else {
            pool = UnsafeMutableRawPointer.allocate(byteCount: Self.poolBlocks * Self.blockSize, alignment: 4096)
            self.pool = pool
        }
        let slot: Int
        if slotBlock.count < Self.poolBlocks {
            slot = slotBlock.count
            slotBlock.append(-1)
            slotLength.append(0)
            slotUsed.append(false)
            slotPins.append(0)
        } else {
            slot = try victim()
            slotOfBlock[slotBlock[slot]] = nil
        }
        let start = number * Self.blockSize
        let length = min(Self.blockSize, count - start)
        // Not mapped to any block until it holds this one whole: a failed read leaves it empty.
        slotBlock[slot] = -1
        try FileIO.readExactly(
            from: file.fd, into: UnsafeMutableRawBufferPointer(start: pool + slot * Self.blockSize, count: length),
            offset: start, path: path)
        slotBlock[slot] = number
        slotLength[slot] = length
        slotUsed[slot] = true
        slotOfBlock[number] = slot
        return slot
    }

    /// A slot to reuse: the first the clock hand finds unread since its last pass and not pinned.
    private func victim() throws -> Int {
        for _ in 0..<(2 * Self.poolBlocks + 1) {
            let slot = hand
            hand = (hand + 1) % Self.poolBlocks
            if slotPins[slot] > 0 { continue }
            if slotUsed[slot] {
                slotUsed[slot] = false
                continue
            }
            return slot
        }
        throw StoreError.io(path: path, reason: "every cached block is in use")
    }

    /// Calls `body` with the bytes of slot `slot`'s `range` (relative to the block), the slot
    /// pinned meanwhile.
    private func withSlot<T>(_ slot: Int, _ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> T)
        rethrows -> T
    {
        slotPins[slot] += 1
        defer { slotPins[slot] -= 1 }
        let base = (pool! + slot * Self.blockSize).assumingMemoryBound(to: UInt8.self)
        return try body(UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
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
            let offset = range.lowerBound - first * Self.blockSize
            return try withSlot(try slot(first), offset..<(offset + range.count), body)
        }
        var result: [UInt8] = []
        result.reserveCapacity(range.count)
        var position = range.lowerBound
        while position < range.upperBound {
            let number = position / Self.blockSize
            let slot = try slot(number)
            let offset = position - number * Self.blockSize
            let take = min(slotLength[slot] - offset, range.upperBound - position)
            withSlot(slot, offset..<(offset + take)) { result += $0 }
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
