import TweetStore

/// A segment's collections and where each one's documents are (index version 04): a hash table
/// in 4 KiB blocks, each with its own CRC-32, so finding a collection's range reads one block
/// where a binary search over every line read dozens. A block that fails its checksum, or a range
/// its lines do not bear out, sends the reader back to the binary search.
enum CollectionDirectory {
    static let blockSize = 4096
    static let slotSize = 16
    /// Slots in a block: what is left after the block's checksum.
    static let slotsPerBlock = (blockSize - 4) / slotSize
    /// Collections a block is sized for: half its slots, so that a block overflows almost never.
    static let plannedPerBlock = slotsPerBlock / 2
    /// The most collections a directory holds (its blocks are built in memory): a segment with
    /// more has none, and its ranges are found by binary search.
    static let maximumCollections = 1 << 19

    /// One collection: its path's hash, its first ordinal and its number of documents.
    struct Slot: Equatable {
        var hash: UInt64
        var first: UInt32
        var count: UInt32
    }

    /// A collection path's hash (FNV-1a, 64 bits), never 0, which marks an empty slot.
    static func hash(_ collection: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in collection { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash == 0 ? 1 : hash
    }

    static func blockCount(forCollections count: Int) -> Int {
        (count + plannedPerBlock - 1) / plannedPerBlock
    }

    /// Where a hash's search starts: its block, and its first slot there.
    static func home(of hash: UInt64, blocks: Int) -> (block: Int, slot: Int) {
        (Int(hash % UInt64(blocks)), Int((hash >> 32) % UInt64(slotsPerBlock)))
    }

    /// The directory's blocks for `slots` (in the order the collections came), or `nil` when
    /// there are too many or one block would overflow.
    static func blocks(_ slots: [Slot]) -> [UInt8]? {
        guard !slots.isEmpty, slots.count <= maximumCollections else { return nil }
        let blocks = blockCount(forCollections: slots.count)
        var bytes = [UInt8](repeating: 0, count: blocks * blockSize)
        func word(_ offset: Int) -> UInt64 {
            bytes[offset..<(offset + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        func put(_ value: UInt64, width: Int, at offset: Int) {
            for byte in 0..<width { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(byte))) }
        }
        for slot in slots {
            let (block, start) = home(of: slot.hash, blocks: blocks)
            var placed = false
            for step in 0..<slotsPerBlock {
                let at = block * blockSize + ((start + step) % slotsPerBlock) * slotSize
                if word(at) == slot.hash { return nil }  // two collections of one hash: no directory
                guard word(at) == 0 else { continue }
                put(slot.hash, width: 8, at: at)
                put(UInt64(slot.first), width: 4, at: at + 8)
                put(UInt64(slot.count), width: 4, at: at + 12)
                placed = true
                break
            }
            guard placed else { return nil }
        }
        for block in 0..<blocks {
            let start = block * blockSize
            let sum = CRC32.checksum(bytes[start..<(start + blockSize - 4)])
            put(UInt64(sum), width: 4, at: start + blockSize - 4)
        }
        return bytes
    }

    /// What a block says of a collection: where it is, or that the segment has none of it.
    enum Answer: Equatable {
        case found(Slot)
        case absent
    }

    /// What `block` says of `hash`, searching from slot `start`: its slot, `.absent` when the
    /// search reached an empty slot, `nil` when the block cannot be trusted (its checksum) or says
    /// nothing (it is full).
    static func look(up hash: UInt64, startingAt start: Int, in block: UnsafeBufferPointer<UInt8>) -> Answer? {
        guard block.count == blockSize else { return nil }
        let raw = UnsafeRawBufferPointer(block)
        let stored = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: blockSize - 4, as: UInt32.self))
        guard CRC32.checksum(UnsafeBufferPointer(rebasing: block[0..<(blockSize - 4)])) == stored else { return nil }
        for step in 0..<slotsPerBlock {
            let at = ((start + step) % slotsPerBlock) * slotSize
            let slotHash = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            if slotHash == 0 { return .absent }
            guard slotHash == hash else { continue }
            return .found(
                Slot(
                    hash: slotHash,
                    first: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self)),
                    count: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self))))
        }
        return nil
    }
}
