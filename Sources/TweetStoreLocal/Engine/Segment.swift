import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One immutable segment, memory-mapped: documents sorted by path, with offsets, a Bloom filter
/// and secondary indexes, so a lookup or a page costs a few binary searches, whatever the size.
final class Segment {
    let name: String
    let dataPath: String
    let indexPath: String
    private let data: BlockFile
    private let index: BlockFile
    /// Documents (and deletions) in the segment.
    let count: Int
    private let offsetsStart: Int
    /// Where each line's ``SegmentFormat/idKey(_:)`` is (index version 04); `nil` without them.
    private let idKeysStart: Int?
    /// Where the collection directory's blocks are, and how many (index version 04; 0 for none).
    private let directoryStart: Int
    private let directoryBlocks: Int
    private let bloomStart: Int
    /// Whether the Bloom filter is blocked (index versions 02 and 03) or classic (01).
    private let blockedBloom: Bool
    private let bloomWords: Int
    /// Each secondary index's first byte, entry count, tagged field and (version 05, untagged) the
    /// bytes every key begins with, after which its entries' windows start, by name.
    private let secondary: [String: (start: Int, count: Int, taggedField: String?, shared: [UInt8]?)]
    /// Collections' ordinal ranges found so far.
    private var collectionRanges: [String: Range<Int>] = [:]
    /// Lines read so far: what the tests of a lookup count.
    private(set) var linesRead = 0

    init(directory: String, name: String) throws {
        self.name = name
        dataPath = PathName.join(directory, SegmentFormat.dataFileName(name))
        indexPath = PathName.join(directory, SegmentFormat.indexFileName(name))
        data = try BlockFile(path: dataPath)
        index = try BlockFile(path: indexPath)
        let indexFile = indexPath
        let damaged = { (reason: String) in StoreError.corruptRecord(file: indexFile, line: 0, reason: reason) }
        let magic = index.count >= SegmentFormat.headerSize ? try index.read(0..<8) : []
        let isWindowed = magic == SegmentFormat.indexMagic
        let isKeyed = isWindowed || magic == SegmentFormat.unwindowedIndexMagic
        let isTagged = isKeyed || magic == SegmentFormat.unkeyedIndexMagic
        guard isTagged || magic == SegmentFormat.untaggedIndexMagic || magic == SegmentFormat.classicBloomIndexMagic
        else {
            throw damaged("not a segment index")
        }
        blockedBloom = magic != SegmentFormat.classicBloomIndexMagic
        let tableEntrySize =
            isWindowed
            ? SegmentFormat.indexTableEntrySize
            : isTagged ? SegmentFormat.unwindowedIndexTableEntrySize : SegmentFormat.untaggedIndexTableEntrySize
        // Every number in the header is untrusted: none can exceed what the file could hold, so
        // none can trap when it becomes an Int or when sizes are added up.
        let index = index
        func number(at offset: Int, atMost limit: Int, _ what: String) throws -> Int {
            let value = try index.uint64(at: offset)
            guard value <= UInt64(limit) else { throw damaged("its \(what) (\(value)) is out of range") }
            return Int(value)
        }
        count = try number(at: 8, atMost: index.count / 8, "document count")
        let dataSize = try index.uint64(at: 16)
        let bloomWords = try number(at: 24, atMost: index.count / 8, "Bloom filter size")
        let indexCount = try number(at: 32, atMost: index.count / tableEntrySize, "index count")
        // The data file's own header: a segment of a newer format is refused, never read as this one.
        let head = try data.read(0..<min(data.count, 512))
        guard let newline = head.firstIndex(of: 0x0A) else {
            throw StoreError.corruptRecord(file: dataPath, line: 1, reason: "not a segment")
        }
        do {
            try FileHeader.check(
                head[..<newline], format: SegmentFormat.formatName, supportedVersion: SegmentFormat.dataVersion)
        } catch .newerVersion(let version) {
            throw StoreError.unsupportedFormat(file: dataPath, version: String(version))
        } catch .notAHeader(let reason) {
            throw StoreError.corruptRecord(file: dataPath, line: 1, reason: reason)
        }
        guard dataSize == UInt64(data.count) else {
            throw StoreError.corruptRecord(
                file: dataPath, line: 0, reason: "it has \(data.count) bytes where its index expects \(dataSize)")
        }
        var position = SegmentFormat.headerSize
        // The table read at once, each entry's fields sliced from it.
        guard position + indexCount * tableEntrySize <= index.count else { throw damaged("truncated") }
        let tableBytes = try index.read(position..<(position + indexCount * tableEntrySize))
        func text(_ range: Range<Int>) -> String? {
            let bytes = tableBytes[range].prefix { $0 != 0 }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
        func tableNumber(at offset: Int, atMost limit: Int, _ what: String) throws -> Int {
            let value = tableBytes[offset..<(offset + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard value <= UInt64(limit) else { throw damaged("its \(what) (\(value)) is out of range") }
            return Int(value)
        }
        var table: [(String, Int, String?, [UInt8]?)] = []
        for number in 0..<indexCount {
            let entry = number * tableEntrySize
            let name = text(entry..<(entry + SegmentFormat.indexNameSize)) ?? ""
            let entries = try tableNumber(
                at: entry + SegmentFormat.indexNameSize, atMost: min(count, index.count / 4), "index entry count")
            let fieldStart = entry + SegmentFormat.indexNameSize + 8
            let taggedField = isTagged ? text(fieldStart..<(fieldStart + SegmentFormat.taggedFieldSize)) : nil
            var shared: [UInt8]?
            if isWindowed, taggedField == nil {
                let start = entry + SegmentFormat.unwindowedIndexTableEntrySize
                let length = try tableNumber(at: start, atMost: SegmentFormat.windowPrefixSize, "shared key length")
                shared = Array(tableBytes[(start + 8)..<(start + 8 + length)])
            }
            table.append((name, entries, taggedField, shared))
        }
        position += indexCount * tableEntrySize
        let sizeMismatch = damaged("its size does not match its header")
        func advance(by bytes: Int) throws {
            position += bytes
            guard position <= index.count else { throw sizeMismatch }
        }
        offsetsStart = position
        try advance(by: count * 8)
        idKeysStart = isKeyed ? position : nil
        if isKeyed { try advance(by: count * 8) }
        let bloomStart = position
        try advance(by: bloomWords * 8)
        if isKeyed {
            let blocks = try number(at: position, atMost: index.count / CollectionDirectory.blockSize, "directory size")
            try advance(by: 8)
            try advance(by: SegmentFormat.directoryPadding(after: position))
            (directoryStart, directoryBlocks) = (position, blocks)
            try advance(by: blocks * CollectionDirectory.blockSize)
        } else {
            (directoryStart, directoryBlocks) = (0, 0)
        }
        var secondary: [String: (start: Int, count: Int, taggedField: String?, shared: [UInt8]?)] = [:]
        for (indexName, entries, taggedField, shared) in table {
            secondary[indexName] = (position, entries, taggedField, shared)
            // A tagged index's entries are 8 bytes (ordinal, tag), and so are a windowed one's
            // (ordinal, window); others 4, padded to 8.
            try advance(by: taggedField == nil && shared == nil ? (entries + entries % 2) * 4 : entries * 8)
        }
        guard position == index.count, bloomWords > 0 else { throw sizeMismatch }
        self.secondary = secondary
        self.bloomStart = bloomStart
        self.bloomWords = bloomWords
    }

    // MARK: Lines

    /// The byte range of document `ordinal`'s line, without its newline.
    private func lineRange(_ ordinal: Int) throws -> Range<Int> {
        guard ordinal >= 0, ordinal < count else { throw damaged(ordinal, "an index names a line past the end") }
        // Offsets are untrusted too: compared as UInt64 before they become Ints.
        let (start, next): (UInt64, UInt64)
        if ordinal + 1 < count {
            // Both offsets in one read: they are neighbours.
            (start, next) = try index.withBytes((offsetsStart + ordinal * 8)..<(offsetsStart + ordinal * 8 + 16)) {
                let raw = UnsafeRawBufferPointer($0)
                return (
                    UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)),
                    UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                )
            }
        } else {
            (start, next) = (try index.uint64(at: offsetsStart + ordinal * 8), UInt64(data.count))
        }
        guard start < next, next <= UInt64(data.count) else { throw damaged(ordinal, "its offset is out of range") }
        return Int(start)..<Int(next - 1)
    }

    /// Calls `body` with the line of document `ordinal`, without its newline.
    private func withLine<T>(_ ordinal: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        linesRead &+= 1
        return try data.withBytes(try lineRange(ordinal), body)
    }

    /// How document `ordinal`'s path compares with `target` (given as its collection's and ID's
    /// UTF-8 bytes), read from the line's bytes without making strings. With `id == nil` only the
    /// collections are compared.
    private func comparePath(at ordinal: Int, collection: [UInt8], id: [UInt8]?) throws -> ComparisonResult {
        let result: ComparisonResult? = try withPath(ordinal) { entryCollection, entryID in
            let order = Self.compare(entryCollection, collection)
            guard order == .orderedSame, let id else { return order }
            return Self.compare(entryID, id)
        }
        if let result { return result }
        // An escaped path: parse it properly.
        let path = try self.path(at: ordinal)
        let order = Self.compare(Array(path.collection.utf8), collection)
        guard order == .orderedSame, let id else { return order }
        return Self.compare(Array(path.documentID.utf8), id)
    }

    /// Calls `body` with the collection and ID bytes of document `ordinal`'s path, read straight
    /// from `["collection/id",…` (paths are written without escapes unless they hold `"` or `\`);
    /// `nil` for an escaped or malformed path, which the caller parses properly.
    private func withPath<T>(
        _ ordinal: Int, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> T
    ) throws -> T? {
        try withLine(ordinal) { line in
            guard let (collection, id) = Self.unescapedPath(line) else { return nil }
            return body(collection, id)
        }
    }

    /// The collection's and ID's bytes of a line's path, when it is written without escapes.
    private static func unescapedPath(_ line: UnsafeBufferPointer<UInt8>) -> (
        UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>
    )? {
        guard line.count > 2, line[0] == UInt8(ascii: "["), line[1] == UInt8(ascii: "\"") else { return nil }
        var end = 2
        while end < line.count, line[end] != UInt8(ascii: "\""), line[end] != UInt8(ascii: "\\") { end += 1 }
        guard end < line.count, line[end] == UInt8(ascii: "\"") else { return nil }
        let path = UnsafeBufferPointer(rebasing: line[2..<end])
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        return (UnsafeBufferPointer(rebasing: path[..<slash]), UnsafeBufferPointer(rebasing: path[(slash + 1)...]))
    }

    /// The ID's bytes of a line's path, when it is written without escapes.
    private static func unescapedID(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        unescapedPath(line)?.1
    }

    private static func compare(_ a: some Collection<UInt8>, _ b: [UInt8]) -> ComparisonResult {
        if a.elementsEqual(b) { return .orderedSame }
        return a.lexicographicallyPrecedes(b) ? .orderedAscending : .orderedDescending
    }

    fileprivate func damaged(_ ordinal: Int, _ reason: String) -> StoreError {
        .corruptRecord(file: dataPath, line: ordinal + 2, reason: reason)
    }

    /// The path of document `ordinal`, read without parsing the rest of the line.
    func path(at ordinal: Int) throws -> DocumentPath {
        let parsed: Result<String, JSONParseError>? = try withLine(ordinal) { bytes in
            guard bytes.count > 2, bytes[0] == UInt8(ascii: "[") else { return nil }
            return Result { () throws(JSONParseError) in try JSONValue.parseString(in: bytes, at: 1).0 }
        }
        guard let parsed else { throw damaged(ordinal, "not a document line") }
        let text: String
        do {
            text = try parsed.get()
        } catch {
            throw damaged(ordinal, "unreadable path: \(error)")
        }
        guard let path = DocumentPath(text) else { throw damaged(ordinal, "invalid path \"\(text)\"") }
        return path
    }

    /// Document `ordinal`, checksum verified; `data == nil` for a deletion. With `fields`, only
    /// those top-level fields are decoded (an index probe's key).
    func entry(at ordinal: Int, keepingFields fields: [[UInt8]]? = nil) throws -> (
        path: DocumentPath, data: JSONObject?
    ) {
        let parsed = try withLine(ordinal) { bytes in
            Result { () throws(SegmentFormat.LineError) in try SegmentFormat.parseLine(bytes, keepingFields: fields) }
        }
        do {
            return try parsed.get()
        } catch {
            throw damaged(ordinal, error.reason)
        }
    }

    /// Document `ordinal` as a merge copies it: its line as it is (checksum verified), with its
    /// fields parsed only when `parsing` (for index keys); and whether it is a deletion.
    func copiedEntry(at ordinal: Int, path: DocumentPath, parsing: Bool) throws -> (
        entry: SegmentWriter.Entry, isDeletion: Bool
    ) {
        if parsing {
            let (_, data) = try entry(at: ordinal)
            let line = try withLine(ordinal) { Array($0) + [0x0A] }
            return (SegmentWriter.Entry(path: path, data: data, line: line), data == nil)
        }
        let copied = try withLine(ordinal) { bytes in
            Result { () throws(SegmentFormat.LineError) in
                try SegmentFormat.checkChecksum(bytes)
                return (Array(bytes) + [0x0A], SegmentFormat.isDeletion(bytes))
            }
        }
        do {
            let (line, isDeletion) = try copied.get()
            return (SegmentWriter.Entry(path: path, data: nil, line: line), isDeletion)
        } catch {
            throw damaged(ordinal, error.reason)
        }
    }

    /// Whether document `ordinal`'s line could hold `needle` (lowercase ASCII): false only when the
    /// line has no U+212A KELVIN SIGN and, ignoring ASCII case, does not contain the needle's bytes.
    /// Skips decoding most lines of a search.
    func lineMayContain(_ ordinal: Int, _ needle: [UInt8]) throws -> Bool {
        try withLine(ordinal) { Self.mayContain($0, needle) }
    }

    /// ``lineMayContain(_:_:)`` on the bytes of a line.
    static func mayContain(_ line: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= line.count, let base = line.baseAddress else { return false }
        let firstIsLetter = (0x61...0x7A).contains(first)
        let last = line.count - needle.count
        /// Whether the byte at `position` starts the only character past ASCII that lowercases to
        /// an ASCII letter (U+212A KELVIN SIGN, to "k"; the real match decides), or the needle.
        /// No other character past ASCII lowercases to, or is canonically equivalent to, one of
        /// the needle's characters (letters, digits, `_`, space, `.` and `-`).
        func decides(_ position: Int) -> Bool {
            let byte = base[position]
            if byte >= 0x80 {
                return byte == 0xE2 && position + 2 < line.count && base[position + 1] == 0x84
                    && base[position + 2] == 0xAA
            }
            guard position <= last, (firstIsLetter ? byte | 0x20 : byte) == first else { return false }
            for matched in 1..<needle.count {
                var other = base[position + matched]
                if other == 0xE2 { return decides(position + matched) }
                if (65...90).contains(other) { other += 32 }
                guard other == needle[matched] else { return false }
            }
            return true
        }
        // Eight bytes at a time while none is past ASCII nor the needle's first byte in either
        // case (SWAR: a byte equal to `first` becomes zero, and a zero byte sets its high bit);
        // a word with a candidate is checked byte by byte.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let pattern = UInt64(first) &* ones
        let caseBits: UInt64 = firstIsLetter ? 0x2020_2020_2020_2020 : 0
        let raw = UnsafeRawPointer(base)
        var position = 0
        while position + 8 <= line.count {
            let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            let difference = (word | caseBits) ^ pattern
            if word & highs != 0 || (difference &- ones) & ~difference & highs != 0 {
                for offset in position..<(position + 8) where decides(offset) { return true }
            }
            position += 8
        }
        while position < line.count {
            if decides(position) { return true }
            position += 1
        }
        return false
    }

    /// Whether document `ordinal`'s line may hold `required`'s field with one of its values
    /// (``RequiredValue/mayMatch(_:)``).
    func lineMayHave(_ ordinal: Int, _ required: RequiredValue) throws -> Bool {
        try withLine(ordinal) { required.mayMatch($0) }
    }

    // MARK: Lookups

    /// The largest Bloom filter read through the block pool (a quarter of it).
    static let pooledBloomBytes = BlockFile.poolBlocks / 4 * BlockFile.blockSize

    /// The ordinal of the entry for `path`, if this segment has one (a document or a deletion).
    /// The Bloom filter rules most absent paths out before any search; with `bloomFirst` false
    /// (for a path likely here) the ID keys are searched first, and the filter is read only when
    /// they do not find it, before the search by lines that would follow.
    func find(_ path: DocumentPath, bloomFirst: Bool = true) throws -> Int? {
        if bloomFirst { guard try bloomMayHave(path) else { return nil } }
        let (collection, id) = (Array(path.collection.utf8), Array(path.documentID.utf8))
        // Search only the collection's range: a user among a thousand, not among three million lines.
        let range = try self.range(ofCollection: path.collection)
        // The ID keys steer the probes without reading lines; they are only hints (a damaged one
        // could hide a document), so what they do not find is searched for again by the lines.
        if idKeysStart != nil, let found = try search(range, collection: collection, id: id, byKeys: true) {
            return found
        }
        if !bloomFirst { guard try bloomMayHave(path) else { return nil } }
        return try search(range, collection: collection, id: id, byKeys: false)
    }

    /// Whether the Bloom filter says this segment may have an entry for `path`.
    private func bloomMayHave(_ path: DocumentPath) throws -> Bool {
        let hashes = BloomFilter.hashes(of: path)
        if blockedBloom {
            // The filter's one block for this path. A large filter's is read outside the block
            // pool: most lookups read a block of it no other lookup of the command reads. A small
            // one (a recent fold's, a few blocks) stays in the pool, where every lookup finds it.
            let block = BloomFilter.block(of: hashes, wordCount: bloomWords)
            let start = bloomStart + block.lowerBound * 8
            let words = start..<(start + block.count * 8)
            let wordCount = bloomWords
            // Closures written out in each branch: one held in a variable would be allocated.
            let mayHave =
                bloomWords * 8 <= Self.pooledBloomBytes
                ? try index.withBytes(words) { BloomFilter.mayContainBlocked(hashes, wordCount: wordCount, in: $0) }
                : try index.withBytesOutsidePool(words) {
                    BloomFilter.mayContainBlocked(hashes, wordCount: wordCount, in: $0)
                }
            return mayHave
        }
        let word = { (number: Int) in try self.index.uint64(at: self.bloomStart + number * 8) }
        return try BloomFilter.mayContain(hashes, wordCount: bloomWords, word: word)
    }

    /// The ordinal of the document with `id` in `range` (its collection's), by interpolation and
    /// bisection; `byKeys` compares the ID keys first and reads a line only when they tie.
    private func search(_ range: Range<Int>, collection: [UInt8], id: [UInt8], byKeys: Bool) throws -> Int? {
        var (low, high) = (range.lowerBound, range.upperBound)
        let key = byKeys ? SegmentFormat.idKey(id) : nil
        // Interpolation on the IDs' first characters (as base-62 digits: IDs are random or start
        // with their time, so a guess lands near) while the range is wide, with a bisection after
        // any guess that did not halve the range: a few probes among a million instead of twenty,
        // never many more than a binary search's. Each probe's own ID becomes the new bound.
        let target = byKeys ? Self.idValue(id.prefix(8)) : Self.idValue(id)
        var bounds: (low: Double, high: Double)?
        if high - low > 16, let first = try idValue(at: low, byKeys: byKeys),
            let last = try idValue(at: high - 1, byKeys: byKeys)
        {
            bounds = (first, last)
        }
        var bisectNext = false
        while low < high {
            let middle = Self.probePosition(low, high, bounds: bounds, target: target, bisect: bisectNext)
            let before = high - low
            let (order, value) = try probe(at: middle, collection: collection, id: id, key: key)
            switch order {
            case .orderedAscending:
                low = middle + 1
                if let known = bounds, let value { bounds = (value, known.high) }
            case .orderedDescending:
                high = middle
                if let known = bounds, let value { bounds = (known.low, value) }
            case .orderedSame: return middle
            }
            bisectNext = !bisectNext && (high - low) * 2 > before
        }
        return nil
    }

    /// The next probe of an interpolated search of `low..<high`: where `target` falls between the
    /// bounds' values while the range is wide (unless the last guess did not halve it), else the
    /// middle.
    private static func probePosition(
        _ low: Int, _ high: Int, bounds: (low: Double, high: Double)?, target: Double, bisect: Bool
    ) -> Int {
        guard !bisect, high - low > 16, let (first, last) = bounds, first < last, (first...last).contains(target) else {
            return (low + high) / 2
        }
        let fraction = (target - first) / (last - first)
        return min(high - 1, max(low, low + Int(fraction * Double(high - 1 - low))))
    }

    /// An ID's first ten characters as a number, letters and digits as base-62 digits in byte
    /// order (anything else as the nearest): increasing with the ID, near-linear for random and
    /// time-ordered IDs, which is all an interpolation guess needs.
    private static func idValue(_ id: some Collection<UInt8>) -> Double {
        var value = 0.0
        var bytes = id.makeIterator()
        for _ in 0..<10 {
            let byte = bytes.next() ?? 0
            let digit: Int =
                switch byte {
                case 0..<48: 0
                case 48...57: Int(byte) - 48
                case 58..<65: 10
                case 65...90: Int(byte) - 55
                case 91..<97: 36
                case 97...122: Int(byte) - 61
                default: 61
                }
            value = value * 62 + Double(digit)
        }
        return value
    }

    /// How document `ordinal` compares with the target, and its ID's ``idValue(_:)``, from one read:
    /// with the target's `key`, of the ID keys when they differ (the value then of the key's bytes).
    private func probe(at ordinal: Int, collection: [UInt8], id: [UInt8], key: UInt64?) throws -> (
        ComparisonResult, Double?
    ) {
        if let key {
            let entryKey = try idKey(at: ordinal)
            if entryKey != key {
                return (entryKey < key ? .orderedAscending : .orderedDescending, Self.idValue(keyBytes: entryKey))
            }
            // Tied keys: the line decides, and the value stays the key's, as the bounds are.
            return (try comparePath(at: ordinal, collection: collection, id: id), Self.idValue(keyBytes: key))
        }
        let simple: (ComparisonResult, Double?)? = try withPath(ordinal) { entryCollection, entryID in
            let order = Self.compare(entryCollection, collection)
            guard order == .orderedSame else { return (order, nil) }
            return (Self.compare(entryID, id), Self.idValue(entryID))
        }
        return try simple ?? (comparePath(at: ordinal, collection: collection, id: id), nil)
    }

    /// The ``idValue(_:)`` of document `ordinal`'s ID (of its key's bytes, `byKeys`); `nil` for a
    /// line not read simply.
    private func idValue(at ordinal: Int, byKeys: Bool) throws -> Double? {
        if byKeys { return Self.idValue(keyBytes: try idKey(at: ordinal)) }
        return try withPath(ordinal) { _, entryID in Self.idValue(entryID) }
    }

    /// Document `ordinal`'s ID key (index version 04 only).
    private func idKey(at ordinal: Int) throws -> UInt64 {
        try index.uint64(at: idKeysStart! + ordinal * 8)
    }

    /// The ``idValue(_:)`` of the bytes a key holds.
    private static func idValue(keyBytes key: UInt64) -> Double {
        withUnsafeBytes(of: key.bigEndian) { idValue($0) }
    }

    /// The first ordinal in `range` (a collection's) whose ID is not below `id` (with `upper`, not
    /// at or below it).
    func bound(ofID id: String, in collection: String, upper: Bool, within range: Range<Int>) throws -> Int {
        let (collection, id) = (Array(collection.utf8), Array(id.utf8))
        let byLines = { (position: Int) in try self.comparePath(at: position, collection: collection, id: id) }
        // An ID of at most 8 bytes is its own key, so the keys alone find its lower bound; they are
        // only hints, so the lines on either side of it must bear it out.
        if !upper, idKeysStart != nil, id.count <= 8 {
            let found = try keyLowerBound(SegmentFormat.idKey(id), in: range)
            // The entry before must be below it by its line; the entry at it is read anyway by
            // whoever asked, which checks it against the prefix.
            if try found == range.lowerBound || byLines(found - 1) == .orderedAscending {
                return found
            }
        }
        return try Bisection.bound(range, upper: upper, byLines)
    }

    /// The first ordinal in `range` whose ID key is not below `key`: by interpolation on the keys'
    /// values while the range is wide, with a bisection after any guess that did not halve it, as
    /// ``search(_:collection:id:byKeys:)`` finds an ID.
    private func keyLowerBound(_ key: UInt64, in range: Range<Int>) throws -> Int {
        var (low, high) = (range.lowerBound, range.upperBound)
        let target = Self.idValue(keyBytes: key)
        var bounds: (low: Double, high: Double)?
        if high - low > 16 {
            bounds = (Self.idValue(keyBytes: try idKey(at: low)), Self.idValue(keyBytes: try idKey(at: high - 1)))
        }
        var bisectNext = false
        while low < high {
            let middle = Self.probePosition(low, high, bounds: bounds, target: target, bisect: bisectNext)
            let before = high - low
            let probe = try idKey(at: middle)
            let value = Self.idValue(keyBytes: probe)
            if probe < key {
                low = middle + 1
                if let known = bounds { bounds = (value, known.high) }
            } else {
                high = middle
                if let known = bounds { bounds = (known.low, value) }
            }
            bisectNext = !bisectNext && (high - low) * 2 > before
        }
        return low
    }

    /// How many entries in a collection's `range` have IDs whose first 8 bytes make `key`, counted
    /// up to `cap` from the ID keys alone; `nil` when the segment has no ID keys (an older index).
    func idKeyCount(_ key: UInt64, within range: Range<Int>, upTo cap: Int) throws -> Int? {
        guard idKeysStart != nil else { return nil }
        var ordinal = try keyLowerBound(key, in: range)
        var count = 0
        while ordinal < range.upperBound, count < cap, try idKey(at: ordinal) == key {
            count += 1
            ordinal += 1
        }
        return count
    }

    /// The entries from `start` on (in a collection's `range`) whose IDs start with `prefix`: each
    /// ID, and whether its entry is a deletion. Read from the lines' paths and ends, without
    /// parsing or checksumming them: a damaged line could at worst misname a short ID, and any
    /// read of its document checks it.
    func idRun(startingWith prefix: String, from start: Int, within range: Range<Int>) throws -> [(
        id: String, isDeletion: Bool
    )] {
        let prefix = Array(prefix.utf8)
        // Past an entry whose key already differs from the prefix's (a prefix of 8 bytes is its
        // key), no line needs reading to end the run.
        let key = idKeysStart != nil && prefix.count == 8 ? SegmentFormat.idKey(prefix) : nil
        var run: [(id: String, isDeletion: Bool)] = []
        var ordinal = start
        while ordinal < range.upperBound {
            if let key, try idKey(at: ordinal) != key { break }
            let read = try withLine(ordinal) { line -> (id: String, isDeletion: Bool)?? in
                guard let id = Self.unescapedID(line) else { return .some(nil) }
                guard id.starts(with: prefix) else { return nil }
                return (String(decoding: id, as: UTF8.self), SegmentFormat.isDeletion(line))
            }
            guard let found = read else { break }
            if let found {
                run.append(found)
            } else {
                // An escaped path: parse it properly.
                let id = try path(at: ordinal).documentID
                guard id.utf8.starts(with: prefix) else { break }
                run.append((id, try withLine(ordinal) { SegmentFormat.isDeletion($0) }))
            }
            ordinal += 1
        }
        return run
    }

    /// The ordinals of `collection`'s documents (subcollections excluded), remembered: the segment
    /// never changes.
    func range(ofCollection collection: String) throws -> Range<Int> {
        if let known = collectionRanges[collection] { return known }
        let bytes = Array(collection.utf8)
        let range =
            try directoryRange(of: bytes)
            ?? Bisection.equalRange(0..<count) { try comparePath(at: $0, collection: bytes, id: nil) }
        collectionRanges[collection] = range
        return range
    }

    /// The range the collection directory gives `collection`, when its block is whole and the
    /// lines at and beside the range's ends bear it out; `nil` otherwise (then a binary search
    /// decides). A collection the directory does not have is empty.
    private func directoryRange(of collection: [UInt8]) throws -> Range<Int>? {
        guard directoryBlocks > 0 else { return nil }
        let hash = CollectionDirectory.hash(collection)
        let (block, slot) = CollectionDirectory.home(of: hash, blocks: directoryBlocks)
        let start = directoryStart + block * CollectionDirectory.blockSize
        let answer = try index.withBytes(start..<(start + CollectionDirectory.blockSize)) {
            CollectionDirectory.look(up: hash, startingAt: slot, in: $0)
        }
        switch answer {
        case nil: return nil
        case .absent: return 0..<0
        case .found(let found):
            let (first, end) = (Int(found.first), Int(found.first) + Int(found.count))
            guard found.count > 0, end <= count else { return nil }
            let inside = { (ordinal: Int) in try self.comparePath(at: ordinal, collection: collection, id: nil) }
            guard try inside(first) == .orderedSame, try inside(end - 1) == .orderedSame,
                try first == 0 || inside(first - 1) == .orderedAscending,
                try end == count || inside(end) == .orderedDescending
            else { return nil }
            return first..<end
        }
    }

    // MARK: Secondary indexes

    /// Whether this segment was written with `definition`.
    func hasIndex(_ definition: IndexDefinition) -> Bool { secondary[definition.name] != nil }

    /// The number of entries in index `definition`.
    func entryCount(_ definition: IndexDefinition) -> Int { secondary[definition.name]?.count ?? 0 }

    /// Where one secondary index's ordinals are in the index file: looked up once by a stream or
    /// a binary search, rather than by name at every position.
    struct OrdinalTable {
        let start: Int
        let name: String
        /// The field whose tags its entries carry (then each entry is 8 bytes), as the file says.
        let taggedField: String?
        /// What every key begins with, when the entries carry windows (then each is 8 bytes).
        let shared: [UInt8]?
        var stride: Int { taggedField == nil && shared == nil ? 4 : 8 }
    }

    /// Index `definition`'s ordinals, or `nil` when this segment does not have it.
    func ordinalTable(_ definition: IndexDefinition) -> OrdinalTable? {
        secondary[definition.name].map {
            OrdinalTable(start: $0.start, name: definition.name, taggedField: $0.taggedField, shared: $0.shared)
        }
    }

    /// The document ordinal at position `position` of a windowed `table`, and its entry's window
    /// (``SegmentFormat/window(of:skipping:)``), from one read.
    func windowedOrdinal(in table: OrdinalTable, _ position: Int) throws -> (ordinal: Int, window: UInt32) {
        let entry = try index.uint64(at: table.start + position * 8)
        return (try checked(Int(entry & 0xFFFF_FFFF), in: table), UInt32(truncatingIfNeeded: entry >> 32))
    }

    /// The document ordinal at position `position` of index `definition`.
    func ordinal(_ definition: IndexDefinition, _ position: Int) throws -> Int {
        try ordinal(in: ordinalTable(definition)!, position)
    }

    /// The document ordinal at position `position` of `table`.
    func ordinal(in table: OrdinalTable, _ position: Int) throws -> Int {
        try checked(Int(try index.uint32(at: table.start + position * table.stride)), in: table)
    }

    /// The document ordinal at position `position` of a tagged `table`, and its entry's tag, from one read.
    func taggedOrdinal(in table: OrdinalTable, _ position: Int) throws -> (ordinal: Int, tag: UInt32) {
        let entry = try index.uint64(at: table.start + position * 8)
        return (try checked(Int(entry & 0xFFFF_FFFF), in: table), UInt32(truncatingIfNeeded: entry >> 32))
    }

    /// The first of `positions` (the last, when `descending`) whose entry in tagged `table` has a
    /// tag `tags` may hold, and its ordinal; `nil` when none has. Reads the entries a block at a
    /// time: a following feed passes over a hundred for each it reads.
    func firstTagged(in table: OrdinalTable, _ positions: Range<Int>, descending: Bool, passing tags: TagSet) throws
        -> (position: Int, ordinal: Int)?
    {
        var remaining = positions
        while !remaining.isEmpty {
            // The positions of `remaining` whose entries lie in the block of its next one (a
            // table starts at a multiple of 8, so no entry straddles two blocks).
            let next = descending ? remaining.upperBound - 1 : remaining.lowerBound
            let blockStart = (table.start + next * 8) / BlockFile.blockSize * BlockFile.blockSize
            let first = max(remaining.lowerBound, (blockStart - table.start) / 8)
            let end = min(remaining.upperBound, (blockStart + BlockFile.blockSize - table.start) / 8)
            let found: Int? = try index.withBytes((table.start + first * 8)..<(table.start + end * 8)) { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                let count = end - first
                for step in 0..<count {
                    let offset = descending ? count - 1 - step : step
                    let entry = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset * 8, as: UInt64.self))
                    if tags.mayContain(UInt32(truncatingIfNeeded: entry >> 32)) { return first + offset }
                }
                return nil
            }
            if let found {
                return (found, try taggedOrdinal(in: table, found).ordinal)
            }
            remaining = descending ? remaining.lowerBound..<first : end..<remaining.upperBound
        }
        return nil
    }

    private func checked(_ ordinal: Int, in table: OrdinalTable) throws -> Int {
        guard ordinal < count else {
            throw StoreError.corruptRecord(
                file: indexPath, line: 0, reason: "index \(table.name) names document \(ordinal) of \(count)")
        }
        return ordinal
    }

    /// The first of `positions` in index `definition` whose key is not below `key` (with `upper`,
    /// not at or below), comparing only the first `key.count` elements; `positions.upperBound`
    /// when there is none.
    func bound(_ definition: IndexDefinition, _ key: [JSONValue], upper: Bool, in positions: Range<Int>) throws -> Int {
        guard let table = ordinalTable(definition) else { return positions.lowerBound }
        let probe = IndexProbe(segment: self, definition: definition, table: table, key: key, windows: true)
        let positions = positions.clamped(to: 0..<entryCount(definition))
        var steered = false
        let found = try Bisection.bound(positions, upper: upper) { try probe.order(at: $0, steered: &steered) }
        guard steered else { return found }
        // The windows only steered the search: the lines beside the bound bear it out (the entries
        // are in order, so all before it are below and all from it on are not), or a search by
        // the lines alone decides. A damaged window costs reads, never a wrong answer.
        let lines = probe.byLines()
        let below = { (order: ComparisonResult) in order == .orderedAscending || (upper && order == .orderedSame) }
        if try found == positions.lowerBound || below(lines.order(at: found - 1)),
            try found == positions.upperBound || !below(lines.order(at: found))
        {
            return found
        }
        return try Bisection.bound(positions, upper: upper, lines.order(at:))
    }

    /// The positions of index `definition` whose keys begin with `key`.
    func range(_ definition: IndexDefinition, _ key: [JSONValue]) throws -> Range<Int> {
        guard let table = ordinalTable(definition) else { return 0..<0 }
        let probe = IndexProbe(segment: self, definition: definition, table: table, key: key, windows: true)
        let count = entryCount(definition)
        var steered = false
        let found = try probe.range(count: count, steered: &steered)
        guard steered else { return found }
        // Checked by the lines as a bound is: the first and last entries of the range have the
        // prefix, the ones beside it do not.
        let lines = probe.byLines()
        if try found.isEmpty
            || (lines.order(at: found.lowerBound) == .orderedSame
                && lines.order(at: found.upperBound - 1) == .orderedSame),
            try found.lowerBound == 0 || lines.order(at: found.lowerBound - 1) == .orderedAscending,
            try found.upperBound == count || lines.order(at: found.upperBound) == .orderedDescending
        {
            return found
        }
        var byLines = false
        return try lines.range(count: count, steered: &byLines)
    }

    /// Comparisons of one index's entries with one key prefix.
    private struct IndexProbe {
        let segment: Segment
        let definition: IndexDefinition
        let table: OrdinalTable
        let key: [JSONValue]
        /// Each probe needs only the indexed fields: the rest of the document is skipped, not decoded.
        let fields: [[UInt8]]
        /// The prefix's window and the mask of the bytes it has (fewer than 4 when its encoding
        /// ends inside the window), when the entries carry windows and the prefix begins with what
        /// every key does: then an entry whose window differs is ordered without reading its line.
        let window: (value: UInt32, mask: UInt32)?

        init(segment: Segment, definition: IndexDefinition, table: OrdinalTable, key: [JSONValue], windows: Bool) {
            (self.segment, self.definition, self.table, self.key) = (segment, definition, table, key)
            fields = definition.fields.map { Array(($0.hasSuffix("?") ? String($0.dropLast()) : $0).utf8) }
            // Objects compare as equal (`JSONValue.compare`) while their encodings differ: a key
            // holding one is compared by the lines only.
            window = table.shared.flatMap { shared in
                guard windows, !key.contains(where: Self.holdsObject) else { return nil }
                var encoded: [UInt8] = []
                for value in key { SortKey.append(value, to: &encoded) }
                guard encoded.count > shared.count, encoded.starts(with: shared) else { return nil }
                let mask = UInt32.max << (8 * UInt32(max(0, 4 - (encoded.count - shared.count))))
                return (SegmentFormat.window(of: encoded, skipping: shared.count), mask)
            }
        }

        /// The same comparisons, made by the lines alone.
        func byLines() -> IndexProbe {
            IndexProbe(segment: segment, definition: definition, table: table, key: key, windows: false)
        }

        /// The positions of the `count` entries whose keys begin with the prefix; `steered` is set
        /// if a window ordered an entry.
        func range(count: Int, steered: inout Bool) throws -> Range<Int> {
            guard count > 0 else { return 0..<0 }
            // A prefix every entry has (a top-level collection's path, in its own index) takes two
            // probes, not two bisections; so does one before every entry or after every entry.
            let (first, last) = (try order(at: 0, steered: &steered), try order(at: count - 1, steered: &steered))
            if first == .orderedSame, last == .orderedSame { return 0..<count }
            if first == .orderedDescending { return 0..<0 }
            if last == .orderedAscending { return count..<count }
            return try Bisection.equalRange(0..<count) { try order(at: $0, steered: &steered) }
        }

        private static func holdsObject(_ value: JSONValue) -> Bool {
            switch value {
            case .object: true
            case .array(let values): values.contains(where: holdsObject)
            default: false
            }
        }

        /// How the key of the entry at `position` compares with the prefix.
        func order(at position: Int) throws -> ComparisonResult {
            var steered = false
            return try order(at: position, steered: &steered)
        }

        /// How the key of the entry at `position` compares with the prefix; `steered` is set when
        /// its window, not its line, decided.
        func order(at position: Int, steered: inout Bool) throws -> ComparisonResult {
            let ordinal: Int
            if let window {
                let entry = try segment.windowedOrdinal(in: table, position)
                // Where the windows differ, the keys do, in the same direction (SortKey orders as
                // `compareKeys` does); where they tie, the line decides.
                let masked = entry.window & window.mask
                if masked != window.value {
                    steered = true
                    return masked < window.value ? .orderedAscending : .orderedDescending
                }
                ordinal = entry.ordinal
            } else {
                ordinal = try segment.ordinal(in: table, position)
            }
            let (path, data) = try segment.entry(at: ordinal, keepingFields: fields)
            guard let data,
                let entryKey = definition.key(collection: path.collection, documentID: path.documentID, data: data)
            else { throw segment.damaged(ordinal, "index \(definition.name) lists a document it does not cover") }
            return compareKeys(entryKey, key)
        }
    }
}

/// Binary searches over positions in ascending order, `order(position)` saying how the entry at a
/// position compares with the target.
enum Bisection {
    /// The first position in `positions` whose entry is not below the target (with `upper`, not at
    /// or below it).
    static func bound(
        _ positions: Range<Int>, upper: Bool, _ order: (Int) throws -> ComparisonResult
    ) rethrows -> Int {
        var (low, high) = (positions.lowerBound, positions.upperBound)
        while low < high {
            let middle = (low + high) / 2
            let result = try order(middle)
            if result == .orderedAscending || (upper && result == .orderedSame) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The positions whose entries equal the target: both bounds, from one bisection until a probe
    /// lands on an equal entry and then one for each end in what is left, so the probes that two
    /// separate searches would share are made once.
    static func equalRange(_ positions: Range<Int>, _ order: (Int) throws -> ComparisonResult) rethrows -> Range<Int> {
        var (low, high) = (positions.lowerBound, positions.upperBound)
        while low < high {
            let middle = (low + high) / 2
            switch try order(middle) {
            case .orderedAscending: low = middle + 1
            case .orderedDescending: high = middle
            case .orderedSame:
                return try bound(low..<middle, upper: false, order)..<bound((middle + 1)..<high, upper: true, order)
            }
        }
        return low..<low
    }
}
