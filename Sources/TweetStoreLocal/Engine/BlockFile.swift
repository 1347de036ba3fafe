import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A read-only file read in 4 KiB blocks with `pread`, keeping the blocks it has read in a fixed
/// pool of buffers that are reused.
///
/// Not a memory map on purpose: the kernel maps whole large folios of a mapped file on a fault,
/// so a page of results from a large memory-mapped segment counted far more than the blocks it
/// read in the process's resident set. A lookup touches a few scattered blocks, and the top levels
/// of every binary search fall on the same blocks, which the pool keeps.
///
/// Reused, because memory a process touches for the first time costs a page fault, which made
/// reading scattered blocks into a fresh buffer each far slower than into one reused buffer. A
/// command reads a few hundred blocks, a scan thousands; the pool's pages fault once.
final class BlockFile {
    static let blockSize = 4096
    /// The blocks kept at once (64 KiB): past it, the block least recently used of those sampled
    /// (a clock sweep) gives up its buffer. Each block's page costs a fault on first use, as much
    /// as reading a cached block again: with 16 rather than 32, `feed` reads a few more blocks but
    /// takes fewer faults.
    static let poolBlocks = 16

    let path: String
    let count: Int
    private let file: FileDescriptor

    private struct Slot {
        /// The block it holds (-1: none).
        var block = -1
        var length = 0
        /// Whether it was read since the clock hand last passed it.
        var used = false
        /// How many of the callers' closures are reading it (nested reads must not reuse it).
        var pins = 0
    }

    private struct State {
        var filled = 0
        var hand = 0
        var reads = 0
    }

    /// How many times this file was read from disk (`pread`), into the pool or outside it.
    var reads: Int { state.pointee.reads }

    /// Where block `n` was last found or read: `hints[n % hintCount]`, checked against the slot.
    /// A wrong hint costs a scan of the slots; a right one (most hits) costs none.
    private static let hintCount = 64

    // The pool's bookkeeping is in memory of its own, not in stored properties: every access to
    // a class's `var` is checked for exclusivity at run time, and a scan of thousands of blocks
    // paid for that check on every block.
    private let slots: UnsafeMutablePointer<Slot>
    private let state: UnsafeMutablePointer<State>
    private let hints: UnsafeMutablePointer<Int>
    /// The blocks' bytes; only the pages used become resident.
    private let pool: UnsafeMutableRawPointer

    init(path: String) throws {
        self.path = path
        guard let fd = try StoreFiles.openRegular(path, O_RDONLY) else {
            throw StoreError.cannotOpen(path: path, reason: "there is no such file")
        }
        file = FileDescriptor(fd)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.io(path: path, reason: FileIO.errnoText()) }
        count = Int(info.st_size)
        slots = .allocate(capacity: Self.poolBlocks)
        slots.initialize(repeating: Slot(), count: Self.poolBlocks)
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        hints = .allocate(capacity: Self.hintCount)
        hints.initialize(repeating: 0, count: Self.hintCount)
        pool = .allocate(byteCount: Self.poolBlocks * Self.blockSize, alignment: 4096)
    }

    deinit {
        slots.deallocate()
        state.deallocate()
        hints.deallocate()
        pool.deallocate()
    }

    /// The slot holding block `number`, read into one if it is not there.
    private func slot(_ number: Int) throws -> Int {
        if let slot = pooledSlot(number) { return slot }
        let hint = number & (Self.hintCount - 1)
        let slot: Int
        if state.pointee.filled < Self.poolBlocks {
            slot = state.pointee.filled
            state.pointee.filled += 1
        } else {
            slot = try victim()
        }
        let start = number * Self.blockSize
        let length = min(Self.blockSize, count - start)
        // It holds no block until it holds this one whole: a failed read leaves it empty.
        slots[slot].block = -1
        state.pointee.reads &+= 1
        try StoreFiles.readExactly(
            from: file.fd, into: UnsafeMutableRawBufferPointer(start: pool + slot * Self.blockSize, count: length),
            offset: start, path: path)
        slots[slot] = Slot(block: number, length: length, used: true, pins: 0)
        hints[hint] = slot
        return slot
    }

    /// A slot to reuse: the first the clock hand finds unread since its last pass and not pinned.
    private func victim() throws -> Int {
        for _ in 0..<(2 * Self.poolBlocks + 1) {
            let slot = state.pointee.hand
            state.pointee.hand = (slot + 1) % Self.poolBlocks
            if slots[slot].pins > 0 { continue }
            if slots[slot].used {
                slots[slot].used = false
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
        slots[slot].pins += 1
        defer { slots[slot].pins -= 1 }
        let base = (pool + slot * Self.blockSize).assumingMemoryBound(to: UInt8.self)
        return try body(UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    /// The bytes of `range`, which must lie inside the file.
    func read(_ range: Range<Int>) throws -> [UInt8] {
        try withBytes(range) { Array($0) }
    }

    /// Calls `body` with the bytes of `range`, without copying them when they lie in one block.
    func withBytes<T>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        if let (block, within) = try locate(range) { return try withSlot(try slot(block), within, body) }
        var result: [UInt8] = []
        result.reserveCapacity(range.count)
        var position = range.lowerBound
        while position < range.upperBound {
            let number = position / Self.blockSize
            let slot = try slot(number)
            let offset = position - number * Self.blockSize
            let take = min(slots[slot].length - offset, range.upperBound - position)
            withSlot(slot, offset..<(offset + take)) { result += $0 }
            position += take
        }
        return try result.withUnsafeBufferPointer(body)
    }

    /// Calls `body` with the bytes of `range` (at most a block's), from the pool when their block
    /// is there, else read from the file straight into a buffer of their own without taking a
    /// slot: for reads that are seldom read again, a Bloom filter's 64 bytes among megabytes, which
    /// in the pool gave up blocks that a batch of lookups reads again (the ID keys and offsets
    /// of the collection it searches).
    func withBytesOutsidePool<T>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        let located = try locate(range)
        guard range.count <= Self.blockSize else {
            throw StoreError.io(path: path, reason: "a read of more than a block outside the pool")
        }
        if let (block, within) = located, let slot = pooledSlot(block) { return try withSlot(slot, within, body) }
        return try withUnsafeTemporaryAllocation(byteCount: max(1, range.count), alignment: 8) { buffer in
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<range.count])
            state.pointee.reads &+= 1
            try StoreFiles.readExactly(from: file.fd, into: bytes, offset: range.lowerBound, path: path)
            return try body(UnsafeBufferPointer(bytes.bindMemory(to: UInt8.self)))
        }
    }

    /// The block `range` lies in and its place in that block, when it lies in one (an empty range
    /// lies in the block of its start); `nil` when it spans blocks.
    /// - Throws: when `range` does not lie inside the file.
    private func locate(_ range: Range<Int>) throws -> (block: Int, within: Range<Int>)? {
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw StoreError.io(path: path, reason: "a read past the end of the file")
        }
        let first = range.lowerBound / Self.blockSize
        guard (range.upperBound - 1) / Self.blockSize == first || range.isEmpty else { return nil }
        let offset = range.lowerBound - first * Self.blockSize
        return (first, offset..<(offset + range.count))
    }

    /// The slot holding block `number`, if the pool has it; it counts as used.
    private func pooledSlot(_ number: Int) -> Int? {
        let hint = number & (Self.hintCount - 1)
        if slots[hints[hint]].block == number {
            slots[hints[hint]].used = true
            return hints[hint]
        }
        for slot in 0..<state.pointee.filled where slots[slot].block == number {
            slots[slot].used = true
            hints[hint] = slot
            return slot
        }
        return nil
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
