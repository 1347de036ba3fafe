#if canImport(Glibc)
    import Glibc
#endif

/// A few strings, looked up by their UTF-8 bytes without making a `String`: the following feed's
/// raw-line check asks it for the `uid` of thousands of lines, where a `Set<String>` made a heap
/// string and hashed it with SipHash for each.
///
/// Bytes are compared as bytes, so only ASCII answers are exact: a `String` equal to a value may
/// have other bytes (another normalization, repaired UTF-8), and a value past ASCII may equal an
/// ASCII string (U+212A KELVIN SIGN is "K" to `String`). ``contains(_:)`` therefore says `true`
/// for anything past ASCII, and for everything when a value is, and the caller decides from the
/// parsed document.
struct UTF8Set {
    private let values: [[UInt8]]
    /// Whether a value has a byte past ASCII: then no byte comparison can say no.
    private let isUndecided: Bool
    /// Open addressing: an index into `values` plus one, 0 for an empty bucket.
    private let buckets: [Int]
    private let mask: Int

    init(_ strings: some Sequence<String>) {
        var unique: [[UInt8]] = []
        var seen = Set<String>()
        for string in strings where seen.insert(string).inserted { unique.append(Array(string.utf8)) }
        values = unique
        isUndecided = unique.contains { $0.contains { $0 >= 0x80 } }
        var size = 8
        while size < unique.count * 2 { size *= 2 }
        mask = size - 1
        var buckets = [Int](repeating: 0, count: size)
        for (index, value) in unique.enumerated() {
            var bucket = value.withUnsafeBufferPointer { Self.hash($0) } & (size - 1)
            while buckets[bucket] != 0 { bucket = (bucket + 1) & (size - 1) }
            buckets[bucket] = index + 1
        }
        self.buckets = buckets
    }

    /// Whether `bytes` are one of the values', or hold a byte past ASCII (undecided, see above).
    func contains(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if isUndecided || bytes.contains(where: { $0 >= 0x80 }) { return true }
        var bucket = Self.hash(bytes) & mask
        while buckets[bucket] != 0 {
            let value = values[buckets[bucket] - 1]
            if value.count == bytes.count,
                bytes.isEmpty
                    || value.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 })
            {
                return true
            }
            bucket = (bucket + 1) & mask
        }
        return false
    }

    /// FNV-1a: the values are the reader's own (whom they follow), so no input can choose collisions
    /// among them; a colliding line costs a few more comparisons, never a wrong answer.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
