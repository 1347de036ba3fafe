import TweetStore

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
/// arrays in a struct were retained and released on every line.
final class UTF8Set {
    /// Every value's bytes, one after another; value `n` is `bytes[starts[n]..<starts[n + 1]]`.
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let starts: UnsafeMutableBufferPointer<Int>
    /// Open addressing: an index into the values plus one, 0 for an empty bucket.
    private let buckets: UnsafeMutableBufferPointer<Int>
    private let mask: Int
    /// Whether a value has a byte past ASCII: then no byte comparison can say no.
    private let isUndecided: Bool

    /// A duplicate is stored twice and found at its first copy; no `Set` is made to drop it (the
    /// hashing of a hundred strings cost more than the lines it would spare).
    init(_ strings: [String]) {
        let total = strings.reduce(0) { $0 + $1.utf8.count }
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, total))
        let starts = UnsafeMutableBufferPointer<Int>.allocate(capacity: strings.count + 1)
        var start = 0
        var bytesOr: UInt8 = 0
        for (index, string) in strings.enumerated() {
            starts[index] = start
            var string = string
            string.withUTF8 { utf8 in
                for byte in utf8 { bytesOr |= byte }
                _ = UnsafeMutableBufferPointer(rebasing: bytes[start..<(start + utf8.count)]).initialize(from: utf8)
                start += utf8.count
            }
        }
        starts[strings.count] = start
        (self.bytes, self.starts) = (bytes, starts)
        self.isUndecided = bytesOr >= 0x80
        var size = 8
        while size < strings.count * 2 { size *= 2 }
        mask = size - 1
        buckets = .allocate(capacity: size)
        buckets.initialize(repeating: 0)
        for index in 0..<strings.count {
            let (from, to) = (starts[index], starts[index + 1])
            var bucket = Self.scan(UnsafeBufferPointer(start: bytes.baseAddress! + from, count: to - from)).hash & mask
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
        exactly(candidate) ?? true
    }

    /// Whether `candidate` is one of the values' bytes, as a `String` comparison would say; `nil`
    /// when bytes cannot say (a byte past ASCII in it or in a value).
    func exactly(_ candidate: UnsafeBufferPointer<UInt8>) -> Bool? {
        if isUndecided { return nil }
        let (hash, bytesOr) = Self.scan(candidate)
        if bytesOr & 0x8080_8080_8080_8080 != 0 { return nil }
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

    convenience init(field: String, values: UTF8Set) {
        self.init(key: Array("\"\(field)\":\"".utf8), values: values)
    }

    deinit { key.deallocate() }

    /// Whether `line` may hold the key followed by one of the values: false only when every
    /// occurrence of the key is followed by a plain string not among them (the top-level field is
    /// among the occurrences, so no match is ever skipped).
    func mayMatch(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard keyCount > 0 else { return true }
        guard let base = line.baseAddress, keyCount <= line.count, let keyBase = key.baseAddress else { return false }
        if let value = lastMember(of: line) { return values.contains(value) }
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

    /// The value of the line's last top-level member when that member is the key with a string
    /// value and no backslash is near: a segment's line ends `…,"uid":"V"},"checksum"]`, and a
    /// tweet's or a retweet's `uid` sorts after its other fields. Without a backslash in that tail,
    /// each of its quotes is a string's delimiter, so the member found is the object's own, not
    /// text inside a string, and it decides the field (of a key written twice, the last is kept).
    /// `nil` when the line does not end so: the caller searches the whole line.
    private func lastMember(of line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let base = line.baseAddress, line.count > keyCount + 8, let keyBase = key.baseAddress else { return nil }
        let quote = UInt8(ascii: "\"")
        /// The position of the quote that opens the string whose closing quote is at `close`, if
        /// no backslash comes between them and it is at most `limit` bytes back.
        func opening(_ close: Int, limit: Int) -> Int? {
            guard let found = Self.lastQuoteOrBackslash(base, before: close, after: max(0, close - limit) - 1),
                base[found] == quote
            else { return nil }
            return found
        }
        // The checksum: `,"…"]` at the end, after the object's closing brace.
        var end = line.count - 1
        guard base[end] == UInt8(ascii: "]"), base[end - 1] == quote, let checksum = opening(end - 1, limit: 32),
            checksum >= 2, base[checksum - 1] == UInt8(ascii: ","), base[checksum - 2] == UInt8(ascii: "}")
        else { return nil }
        // The last member's string value, and the key (`"name":"`, ending with the value's opening quote).
        end = checksum - 3
        guard end > 0, base[end] == quote, let start = opening(end, limit: 256), start + 1 >= keyCount,
            Self.equal(base + start + 1 - keyCount, keyBase, keyCount)
        else { return nil }
        let before = start - keyCount
        guard before >= 0, base[before] == UInt8(ascii: ",") || base[before] == UInt8(ascii: "{") else { return nil }
        return UnsafeBufferPointer(start: base + start + 1, count: end - start - 1)
    }

    /// The position of the last `"` or `\` in `base[(after + 1)..<before]`, eight bytes at a time
    /// (a bit for each zero byte of the word xor the byte, exact, so the highest is the last).
    private static func lastQuoteOrBackslash(_ base: UnsafePointer<UInt8>, before end: Int, after low: Int) -> Int? {
        let (quotes, backslashes): (UInt64, UInt64) = (0x2222_2222_2222_2222, 0x5C5C_5C5C_5C5C_5C5C)
        func zeroBytes(_ word: UInt64) -> UInt64 {
            let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            return ~(((word & low7) &+ low7) | word | low7)
        }
        let raw = UnsafeRawPointer(base)
        var position = end
        while position - 8 > low {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position - 8, as: UInt64.self))
            let found = zeroBytes(word ^ quotes) | zeroBytes(word ^ backslashes)
            if found != 0 { return position - 8 + (63 - found.leadingZeroBitCount) / 8 }
            position -= 8
        }
        while position - 1 > low {
            position -= 1
            if base[position] == 0x22 || base[position] == 0x5C { return position }
        }
        return nil
    }

    private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for offset in 0..<count where a[offset] != b[offset] { return false }
        return true
    }
}

/// An `in` filter's strings, in the forms each check on a candidate needs: their bytes (for a raw
/// line), their tags (for a tagged index's entries), and the strings (for a parsed document), made
/// once per query with no `Set` of strings (hashing a following feed's hundred uids cost more
/// than the lookups it served).
final class StringValues {
    let strings: [String]
    let bytes: UTF8Set
    /// `nil` when a value is past ASCII: its tag cannot rule out an entry (see ``IndexDefinition/tag(of:)``).
    let tags: TagSet?

    init(_ strings: [String]) {
        self.strings = strings
        bytes = UTF8Set(strings)
        var tags: [UInt32] = []
        tags.reserveCapacity(strings.count)
        for string in strings {
            var string = string
            guard let tag = string.withUTF8({ IndexDefinition.tag(ofBytes: $0) }) else { break }
            tags.append(tag)
        }
        self.tags = tags.count == strings.count ? TagSet(tags) : nil
    }

    /// Whether `value` equals one of the strings (as `String` compares): by bytes when they are
    /// ASCII, else by comparing strings.
    func contains(_ value: String) -> Bool {
        var value = value
        if let known = value.withUTF8({ bytes.exactly($0) }) { return known }
        return strings.contains(value)
    }
}

/// The tags of an `in` filter's strings: whether an index entry's tag may be one of them, from a
/// 4096-bit filter and then a binary search of the sorted tags. Tag 0 (not known) may be anything.
final class TagSet {
    private static let filterWords = 64
    private let filter: UnsafeMutablePointer<UInt64>
    private let tags: UnsafeMutableBufferPointer<UInt32>

    init(_ values: [UInt32]) {
        filter = .allocate(capacity: Self.filterWords)
        filter.initialize(repeating: 0, count: Self.filterWords)
        for tag in values { filter[Int(tag >> 6) & (Self.filterWords - 1)] |= 1 << UInt64(tag & 63) }
        tags = .allocate(capacity: max(1, values.count))
        _ = tags.initialize(from: values.sorted())
        if values.isEmpty { tags[0] = 0 }
    }

    deinit {
        filter.deallocate()
        tags.deallocate()
    }

    func mayContain(_ tag: UInt32) -> Bool {
        if tag == 0 { return true }
        guard filter[Int(tag >> 6) & (Self.filterWords - 1)] & (1 << UInt64(tag & 63)) != 0 else { return false }
        var (low, high) = (0, tags.count)
        while low < high {
            let middle = (low + high) / 2
            if tags[middle] < tag { low = middle + 1 } else { high = middle }
        }
        return low < tags.count && tags[low] == tag
    }
}
