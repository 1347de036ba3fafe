/// A Bloom filter over document paths: "certainly absent" or "maybe present", at about 10 bits a path.
///
/// Lets a query skip the binary search that asks whether a newer segment replaced a document.
struct BloomFilter {
    static let hashCount = 7

    /// A filter sized for `count` paths, as 64-bit words.
    static func wordCount(forCount count: Int) -> Int { max(1, (count * 10 + 63) / 64) }

    /// Two independent 64-bit hashes (FNV-1a with two offsets), combined by double hashing.
    static func hashes(_ bytes: some Sequence<UInt8>) -> (UInt64, UInt64) {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in bytes {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 &+ 0x9E37_79B9
        }
        return (a, b | 1)
    }

    static func insert(_ hashes: (UInt64, UInt64), into words: inout [UInt64]) {
        let bits = UInt64(words.count * 64)
        for i in 0..<UInt64(hashCount) {
            let bit = (hashes.0 &+ i &* hashes.1) % bits
            words[Int(bit / 64)] |= 1 << (bit % 64)
        }
    }

    /// Whether the filter of `wordCount` words, read through `word`, may hold the hashed path.
    static func mayContain(_ hashes: (UInt64, UInt64), wordCount: Int, word: (Int) throws -> UInt64) rethrows -> Bool {
        let bits = UInt64(wordCount * 64)
        for i in 0..<UInt64(hashCount) {
            let bit = (hashes.0 &+ i &* hashes.1) % bits
            if try word(Int(bit / 64)) & (1 << (bit % 64)) == 0 { return false }
        }
        return true
    }
}
