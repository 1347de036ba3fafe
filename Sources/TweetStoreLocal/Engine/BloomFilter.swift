import TweetStore

/// A Bloom filter over document paths: "certainly absent" or "maybe present", at about 10 bits a path.
///
/// Lets a query skip the binary search that asks whether a newer segment replaced a document.
struct BloomFilter {
    static let hashCount = 7

    /// Words per block of a blocked filter: 512 bits, one cache line.
    static let blockWords = 8

    /// A filter sized for `count` paths, as 64-bit words (whole blocks).
    static func wordCount(forCount count: Int) -> Int {
        let words = max(1, (count * 10 + 63) / 64)
        return (words + blockWords - 1) / blockWords * blockWords
    }

    /// Two independent 64-bit hashes (FNV-1a with two offsets), combined by double hashing.
    /// ``hashes(_:)`` of `path.description`'s bytes, without making that string: a lookup's first step.
    static func hashes(of path: DocumentPath) -> (UInt64, UInt64) {
        // The running hashes are passed in and returned, not captured: a nested function that
        // mutates captured variables has its accesses checked for exclusivity at run time, and
        // those checks cost more than the hashing itself.
        func add(_ bytes: UnsafeBufferPointer<UInt8>, to hashes: (UInt64, UInt64)) -> (UInt64, UInt64) {
            var (a, b) = hashes
            for byte in bytes {
                a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
                b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 &+ 0x9E37_79B9
            }
            return (a, b)
        }
        var (collection, id) = (path.collection, path.documentID)
        var running: (UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0x8422_2325_cbf2_9ce4)
        running = collection.withUTF8 { add($0, to: running) }
        running = withUnsafeBytes(of: UInt8(ascii: "/")) { add($0.bindMemory(to: UInt8.self), to: running) }
        running = id.withUTF8 { add($0, to: running) }
        return (running.0, running.1 | 1)
    }

    static func hashes(_ bytes: some Sequence<UInt8>) -> (UInt64, UInt64) {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in bytes {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 &+ 0x9E37_79B9
        }
        return (a, b | 1)
    }

    /// Sets the path's bits in a blocked filter: the block from the first hash, the bits in it
    /// from the second.
    static func insert(_ hashes: (UInt64, UInt64), into words: inout [UInt64]) {
        let base = Int(hashes.0 % UInt64(words.count / blockWords)) * blockWords
        for i in 0..<UInt64(hashCount) {
            let bit = bit(i, of: hashes)
            words[base + Int(bit / 64)] |= 1 << (bit % 64)
        }
    }

    /// The `i`th of the path's bits within its block.
    private static func bit(_ i: UInt64, of hashes: (UInt64, UInt64)) -> UInt64 {
        (hashes.1 &+ i &* (hashes.0 >> 32 | 1)) % UInt64(blockWords * 64)
    }

    /// The words of the block a blocked filter of `wordCount` words keeps the hashed path's bits
    /// in (empty when the filter has no whole block).
    static func block(of hashes: (UInt64, UInt64), wordCount: Int) -> Range<Int> {
        guard wordCount >= blockWords else { return 0..<0 }
        let base = Int(hashes.0 % UInt64(wordCount / blockWords)) * blockWords
        return base..<(base + blockWords)
    }

    /// Whether a blocked filter of `wordCount` words may hold the hashed path, given the bytes of
    /// its block (``block(of:wordCount:)``: 64 bytes, little-endian words).
    static func mayContainBlocked(_ hashes: (UInt64, UInt64), wordCount: Int, in bytes: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        // No whole block (a damaged header): say maybe.
        guard wordCount >= blockWords, bytes.count >= blockWords * 8 else { return true }
        let raw = UnsafeRawBufferPointer(bytes)
        for i in 0..<UInt64(hashCount) {
            let bit = bit(i, of: hashes)
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: Int(bit / 64) * 8, as: UInt64.self))
            if word & (1 << (bit % 64)) == 0 { return false }
        }
        return true
    }

    /// Whether a classic filter (index files of version 01) of `wordCount` words, read through
    /// `word`, may hold the hashed path.
    static func mayContain(_ hashes: (UInt64, UInt64), wordCount: Int, word: (Int) throws -> UInt64) rethrows -> Bool {
        let bits = UInt64(wordCount * 64)
        for i in 0..<UInt64(hashCount) {
            let bit = (hashes.0 &+ i &* hashes.1) % bits
            if try word(Int(bit / 64)) & (1 << (bit % 64)) == 0 { return false }
        }
        return true
    }
}
