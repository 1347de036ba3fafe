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
///
/// A class over memory of its own, made once per query: a lookup reads it through pointers, where
/// arrays in a struct were retained and released on every line (about 250 instructions a line).
final class UTF8Set {
    /// Every value's bytes, one after another; value `n` is `bytes[starts[n]..<starts[n + 1]]`.
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let starts: UnsafeMutableBufferPointer<Int>
    /// Open addressing: an index into the values plus one, 0 for an empty bucket.
    private let buckets: UnsafeMutableBufferPointer<Int>
    private let mask: Int
    /// Whether a value has a byte past ASCII: then no byte comparison can say no.
    private let isUndecided: Bool

    init(_ strings: some Sequence<String>) {
        var unique: [[UInt8]] = []
        var seen = Set<String>()
        for string in strings where seen.insert(string).inserted { unique.append(Array(string.utf8)) }
        isUndecided = unique.contains { $0.contains { $0 >= 0x80 } }
        let joined = unique.flatMap { $0 }
        bytes = .allocate(capacity: max(1, joined.count))
        _ = bytes.initialize(from: joined)
        starts = .allocate(capacity: unique.count + 1)
        var start = 0
        for (index, value) in unique.enumerated() {
            starts[index] = start
            start += value.count
        }
        starts[unique.count] = start
        var size = 8
        while size < unique.count * 2 { size *= 2 }
        mask = size - 1
        buckets = .allocate(capacity: size)
        buckets.initialize(repeating: 0)
        for (index, value) in unique.enumerated() {
            var bucket = value.withUnsafeBufferPointer { Self.scan($0).hash } & mask
            while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = index + 1
        }
    }

    deinit {
        bytes.deallocate()
        starts.deallocate()
        buckets.deallocate()
    }

    /// Whether `candidate` is one of the values' bytes, or holds a byte past ASCII (undecided,
    /// see above).
    func contains(_ candidate: UnsafeBufferPointer<UInt8>) -> Bool {
        if isUndecided { return true }
        let (hash, bytesOr) = Self.scan(candidate)
        if bytesOr & 0x8080_8080_8080_8080 != 0 { return true }
        var bucket = hash & mask
        while buckets[bucket] != 0 {
            let value = buckets[bucket] - 1
            let (start, end) = (starts[value], starts[value + 1])
            if end - start == candidate.count,
                candidate.isEmpty || memcmp(bytes.baseAddress! + start, candidate.baseAddress!, candidate.count) == 0
            {
                return true
            }
            bucket = (bucket + 1) & mask
        }
        return false
    }

    /// A hash of `bytes` (FNV-1a over eight bytes at a time, then the rest one by one), and all
    /// their bytes or-ed together, whose high bits say whether one is past ASCII: one pass. The
    /// values are the reader's own (whom they follow), so no input can choose collisions among
    /// them; a colliding line costs a few more comparisons, never a wrong answer.
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (hash: Int, bytesOr: UInt64) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var bytesOr: UInt64 = 0
        guard let base = bytes.baseAddress else { return (Int(truncatingIfNeeded: hash), 0) }
        let raw = UnsafeRawPointer(base)
        var position = 0
        while position + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            bytesOr |= word
            hash = (hash ^ word) &* 0x0000_0100_0000_01b3
            position += 8
        }
        while position < bytes.count {
            bytesOr |= UInt64(base[position])
            hash = (hash ^ UInt64(base[position])) &* 0x0000_0100_0000_01b3
            position += 1
        }
        return (Int(truncatingIfNeeded: hash ^ (hash >> 29)), bytesOr)
    }
}

/// A top-level string field (its `"name":"` bytes) whose value must be one of a few, checked on a
/// document's raw line before it is parsed: the following feed's `uid in [...]`.
final class RequiredValue {
    private let key: UnsafeMutableBufferPointer<UInt8>
    private let keyCount: Int
    let values: UTF8Set

    init(key: [UInt8], values: UTF8Set) {
        self.key = .allocate(capacity: max(1, key.count))
        _ = self.key.initialize(from: key)
        self.values = values
        keyCount = key.count
    }

    convenience init(field: String, values: some Sequence<String>) {
        self.init(key: Array("\"\(field)\":\"".utf8), values: UTF8Set(values))
    }

    deinit { key.deallocate() }

    /// Whether `line` may hold the key followed by one of the values: false only when every
    /// occurrence of the key is followed by a plain string not among them (the top-level field is
    /// among the occurrences, so no match is ever skipped).
    func mayMatch(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard keyCount > 0 else { return true }
        guard let base = line.baseAddress, keyCount <= line.count, let keyBase = key.baseAddress else { return false }
        let end = base + line.count
        // The name's last byte (of `"name":"`, the byte before `":"`) found by the C library's
        // memchr, many bytes at a time, then the whole key checked there: in a tweet's line, 5
        // of the uid's `d` against 8 of its `u`, where quotes and colons are everywhere.
        let probe = keyCount >= 4 ? keyCount - 4 : 0
        let probeByte = Int32(keyBase[probe])
        var position = base
        while end - position >= keyCount {
            guard let found = memchr(position + probe, probeByte, end - position - keyCount + 1) else { break }
            let candidate = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - probe
            // The byte after the probe first (the `"` closing the name, rarer than the name's last
            // letter), then the rest, without a call.
            guard probe + 1 == keyCount || candidate[probe + 1] == keyBase[probe + 1],
                Self.equal(candidate, keyBase, keyCount)
            else {
                position = candidate + 1
                continue
            }
            // The value up to its closing quote; one with a backslash before it, or none, is
            // decided later.
            let start = candidate + keyCount
            guard let quote = memchr(start, 0x22, end - start) else { return true }
            let stop = UnsafePointer(quote.assumingMemoryBound(to: UInt8.self))
            if memchr(start, 0x5C, stop - start) != nil { return true }
            if values.contains(UnsafeBufferPointer(start: start, count: stop - start)) { return true }
            position = stop
        }
        return false  // no occurrence, or none with an accepted value: the field cannot match
    }

    private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for offset in 0..<count where a[offset] != b[offset] { return false }
        return true
    }
}
