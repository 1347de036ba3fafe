import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one immutable segment: a data file of document lines sorted by path, and its index file
/// (line offsets, their IDs' keys, a Bloom filter of paths, and each secondary index as ordinals sorted by key, each
/// with its tag when the index has a tagged field).
struct SegmentWriter {
    /// One document to write; `data == nil` records a deletion, or, with `line`, a document no
    /// index covers (only index keys need its fields).
    struct Entry {
        var path: DocumentPath
        var data: JSONObject?
        /// The document's line as another segment holds it, copied as is when present.
        var line: [UInt8]?
        /// Its index keys, made already (``SegmentWriter/keys(of:at:indexes:)``): then `data` is not needed.
        var keys: [IndexKey]?
    }

    /// A document's entry in one index: the index's position, the bytes the index sorts by, and
    /// the entry's tag (``IndexDefinition/tag(of:)``; 0 when the index tags nothing).
    struct IndexKey {
        var index: Int
        var key: [UInt8]
        var tag: UInt32
    }

    /// The keys `indexes` give a document.
    static func keys(of data: JSONObject, at path: DocumentPath, indexes: [IndexDefinition]) -> [IndexKey] {
        var keys: [IndexKey] = []
        // The collection's last component, found once: most indexes are not the document's, and
        // asking each whether it is cost more than making the keys of those that are.
        var collection = path.collection
        let last = collection.withUTF8 { bytes in
            let start = bytes.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            return IndexDefinition.collectionIDHash(UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        for position in indexes.indices where indexes[position].collectionIDHash == last {
            let index = indexes[position]
            guard let key = index.key(collection: path.collection, documentID: path.documentID, data: data) else {
                continue
            }
            var bytes: [UInt8] = []
            for value in key { SortKey.append(value, to: &bytes) }
            let tag = index.taggedField.map { IndexDefinition.tag(of: data[$0]) } ?? 0
            keys.append(IndexKey(index: position, key: bytes, tag: tag))
        }
        return keys
    }

    let directory: String
    let indexes: [IndexDefinition]
    /// Bytes of index keys sorted in memory before they go to a temporary file.
    var sortBudget = 16 << 20
    /// Offsets kept in memory before they go to a temporary file.
    var offsetsInMemory = 1 << 20
    /// Whether the files are written back to the disk as they are written, a megabyte at a time
    /// (``FileOutput/boundedWriteback``): for a merge, which writes beside the commits of others.
    let boundedWriteback: Bool

    init(directory: String, indexes: [IndexDefinition], boundedWriteback: Bool = false) {
        self.directory = directory
        self.indexes = indexes
        self.boundedWriteback = boundedWriteback
    }

    /// Writes `entries` (sorted by ``SegmentFormat/comparePaths(_:_:)``, one per path) as segment
    /// `name`, fsyncing both files. The files are not part of the store until a manifest names them.
    /// - Returns: the number of documents written.
    func write(name: String, entries: [Entry]) throws -> Int {
        var iterator = entries.makeIterator()
        return try write(name: name, atMost: entries.count) { iterator.next() }
    }

    /// Writes the entries `next` gives, one at a time until it returns `nil` (sorted by
    /// ``SegmentFormat/comparePaths(_:_:)``, one per path), as segment `name`: a merge streams its
    /// inputs through here without holding their documents. `atMost` bounds their number (it sizes
    /// the Bloom filter).
    /// - Returns: the number of documents written.
    func write(name: String, atMost capacity: Int, next: () throws -> Entry?) throws -> Int {
        let dataPath = PathName.join(directory, SegmentFormat.dataFileName(name))
        let indexPath = PathName.join(directory, SegmentFormat.indexFileName(name))
        let output = try FileOutput(path: dataPath, boundedWriteback: boundedWriteback)
        // The count is known at the end: it is written then, over spaces kept for it (JSON allows
        // them after a number).
        let countWidth = 20
        try output.write(Array("{\"documents\":".utf8) + [UInt8](repeating: 0x20, count: countWidth))
        try output.write(
            Array(",\"format\":\"\(SegmentFormat.formatName)\",\"version\":\(SegmentFormat.dataVersion)}\n".utf8))

        // Offsets, the Bloom filter and each index's keys grow with the segment: the offsets and
        // the keys go to temporary files beyond a few megabytes (the keys are sorted externally),
        // so that a merge or an import of any size holds about the Bloom filter's 10 bits per
        // document and the sorter's budget.
        var offsets = WordList(directory: directory, chunkWords: offsetsInMemory)
        var idKeys = WordList(directory: directory, chunkWords: offsetsInMemory)
        var bloom = [UInt64](repeating: 0, count: BloomFilter.wordCount(forCount: capacity))
        // Every index's keys in one sort, each prefixed with its index's position, so that they
        // come out index by index, as the file lays them out; the value is the document's ordinal.
        var keys = ExternalSorter(directory: directory, budget: sortBudget)
        var counts = [Int](repeating: 0, count: indexes.count)
        // What every key of each index begins with (up to what a table entry keeps): each entry's
        // window is the bytes after it.
        var shared = [[UInt8]?](repeating: nil, count: indexes.count)
        // Each collection's hash, first ordinal and count, for the collection directory; the
        // entries come by path, so a collection's documents come together.
        var collections: [CollectionDirectory.Slot] = []
        var collection: String?
        var ordinal = 0
        while let entry = try next() {
            defer { ordinal += 1 }
            // Past the most a directory holds, one more is kept, which is enough to write none.
            let isCounting = collections.count <= CollectionDirectory.maximumCollections
            if entry.path.collection != collection {
                collection = entry.path.collection
                if isCounting {
                    let hash = CollectionDirectory.hash(entry.path.collection.utf8)
                    collections.append(.init(hash: hash, first: UInt32(truncatingIfNeeded: ordinal), count: 0))
                }
            }
            if collections.count <= CollectionDirectory.maximumCollections {
                collections[collections.count - 1].count &+= 1
            }
            try offsets.append(UInt64(output.offset))
            try idKeys.append(SegmentFormat.idKey(entry.path.documentID.utf8))
            try output.write(entry.line ?? SegmentFormat.line(path: entry.path, data: entry.data))
            BloomFilter.insert(BloomFilter.hashes(of: entry.path), into: &bloom)
            guard let made = entry.keys ?? entry.data.map({ Self.keys(of: $0, at: entry.path, indexes: indexes) })
            else { continue }
            for made in made {
                // The value is the entry as the file holds it: the ordinal, then the tag if the index has one.
                let position = made.index
                let isTagged = indexes[position].taggedField != nil
                let entryValue = UInt64(ordinal) | (isTagged ? UInt64(made.tag) << 32 : 0)
                try withUnsafeBytes(of: entryValue.littleEndian) { value in
                    try keys.add(value: value.prefix(isTagged ? 8 : 4)) { bytes in
                        bytes.append(UInt8(position >> 8))
                        bytes.append(UInt8(position & 0xFF))
                        bytes += made.key
                    }
                }
                counts[position] += 1
                if let known = shared[position] {
                    var common = 0
                    let limit = min(known.count, made.key.count)
                    while common < limit, known[common] == made.key[common] { common += 1 }
                    if common < known.count { shared[position] = Array(known.prefix(common)) }
                } else if isTagged {
                    shared[position] = []
                } else {
                    shared[position] = Array(made.key.prefix(SegmentFormat.windowPrefixSize))
                }
            }
        }
        let dataSize = output.offset
        try output.overwrite(Array(String(ordinal).utf8), at: "{\"documents\":".utf8.count)
        try output.finish()

        // The index file, written as it is computed; its header last, with the checksum of
        // everything after it (bytes 40–47, which the doctor checks).
        let indexOutput = try FileOutput(path: indexPath, boundedWriteback: boundedWriteback)
        // The checksum covers the header's numbers too (version 05), so `doctor` sees them damaged.
        var numbers: [UInt8] = []
        for value in [UInt64(ordinal), UInt64(dataSize), UInt64(bloom.count), UInt64(indexes.count)] {
            numbers += Self.bytes(value)
        }
        var checksum = CRC32.Running()
        checksum.add(numbers)
        var pending: [UInt8] = []
        pending.reserveCapacity(1 << 20)
        var emitted = SegmentFormat.headerSize
        func emit(_ bytes: some Collection<UInt8>) throws {
            pending.append(contentsOf: bytes)
            emitted += bytes.count
            if pending.count >= 1 << 20 { try flush() }
        }
        func flush() throws {
            checksum.add(pending)
            try indexOutput.write(pending)
            pending.removeAll(keepingCapacity: true)
        }
        try indexOutput.write([UInt8](repeating: 0, count: SegmentFormat.headerSize))
        for (position, index) in indexes.enumerated() {
            var name = Array(index.name.utf8.prefix(SegmentFormat.indexNameSize))
            name += [UInt8](repeating: 0, count: SegmentFormat.indexNameSize - name.count)
            try emit(name)
            try emit(Self.bytes(UInt64(counts[position])))
            var tagged = Array((index.taggedField ?? "").utf8.prefix(SegmentFormat.taggedFieldSize))
            tagged += [UInt8](repeating: 0, count: SegmentFormat.taggedFieldSize - tagged.count)
            try emit(tagged)
            // An untagged index's windows skip what every key begins with (nothing for a tagged one).
            let skipped = index.taggedField == nil ? shared[position] ?? [] : []
            try emit(Self.bytes(UInt64(skipped.count)))
            try emit(skipped + [UInt8](repeating: 0, count: SegmentFormat.windowPrefixSize - skipped.count))
        }
        try offsets.forEachChunk { try emit($0) }
        try idKeys.forEachChunk { try emit($0) }
        for word in bloom { try emit(Self.bytes(word)) }
        // The collection directory: its block count, zeros to the file's next 4 KiB boundary, and
        // its blocks (none for a segment with too many collections, or none to tell apart).
        let directory = CollectionDirectory.blocks(collections) ?? []
        try emit(Self.bytes(UInt64(directory.count / CollectionDirectory.blockSize)))
        try emit([UInt8](repeating: 0, count: SegmentFormat.directoryPadding(after: emitted)))
        try emit(directory)
        var sorted = try keys.sorted()
        for position in indexes.indices {
            // A tagged index's entries are the ordinal and the tag, an untagged one's the ordinal
            // and the window: 8 bytes, little-endian.
            let skip = indexes[position].taggedField == nil ? shared[position]?.count ?? 0 : nil
            for _ in 0..<counts[position] {
                guard let (key, value) = try sorted.nextKeyAndValue() else {
                    throw StoreError.io(path: indexPath, reason: "an index's keys ran out while it was written")
                }
                try emit(value)
                if let skip {
                    // The record's key is the index's position (2 bytes), then the key.
                    let window = SegmentFormat.window(of: key.dropFirst(2), skipping: skip)
                    try emit(withUnsafeBytes(of: window.littleEndian) { Array($0) })
                }
            }
        }
        try flush()
        let header = SegmentFormat.indexMagic + numbers + Self.bytes(UInt64(checksum.value))
        try indexOutput.overwrite(header, at: 0)
        try indexOutput.finish()
        return ordinal
    }

    private static func bytes(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

/// 64-bit words appended one at a time and read back in order: in memory up to `chunkWords`, then
/// in a temporary file, that many at a time.
struct WordList {
    private let directory: String
    private let chunkWords: Int
    private var memory: [UInt64] = []
    private var file: SpillFile?
    private var spilledChunks = 0

    init(directory: String, chunkWords: Int) {
        self.directory = directory
        self.chunkWords = max(1, chunkWords)
    }

    mutating func append(_ word: UInt64) throws {
        memory.append(word.littleEndian)
        guard memory.count == chunkWords else { return }
        if file == nil { file = try SpillFile(directory: directory) }
        try memory.withUnsafeBytes { try file!.write($0) }
        memory.removeAll(keepingCapacity: true)
        spilledChunks += 1
    }

    /// Calls `body` with the words' little-endian bytes, in order, a chunk at a time.
    func forEachChunk(_ body: (ArraySlice<UInt8>) throws -> Void) throws {
        if let file {
            try file.finishWriting()
            for _ in 0..<spilledChunks { try body(try file.exactly(chunkWords * 8)) }
        }
        try memory.withUnsafeBytes { try body(ArraySlice($0)) }
    }
}

/// A new file written through a buffer, then fsynced.
final class FileOutput {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var offset = 0
    /// Whether each megabyte is sent to the disk as soon as it is written, after waiting for the
    /// one before: a writer then has at most about two megabytes the disk has not taken, where
    /// otherwise the page cache holds all of a merge's output until its fsync. On ext4, another
    /// process's fsync (a post's journal append) can wait for that whole flush; bounded, it waits
    /// for a megabyte at most (RocksDB's `bytes_per_sync` does the same, with `sync_file_range`).
    let boundedWriteback: Bool
    /// Where the bytes flushed so far end, and where those the disk is known to have taken end.
    private var flushed = 0
    private var writtenBack = 0

    init(path: String, boundedWriteback: Bool = false) throws {
        self.path = path
        self.boundedWriteback = boundedWriteback
        fd = FileIO.createExclusive(path)
        guard fd >= 0 else { throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        buffer.reserveCapacity(1 << 20)
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) throws {
        buffer += bytes
        offset += bytes.count
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        try StoreFiles.writeAll(fd, buffer, path: path)
        let start = flushed
        flushed += buffer.count
        buffer.removeAll(keepingCapacity: true)
        guard boundedWriteback, flushed > start else { return }
        // Best effort: refused (not Linux, another file system), the fsync at the end does it all.
        ProcessControl.writeBack(fd, offset: Int64(start), length: Int64(flushed - start), wait: false)
        if start > writtenBack {
            ProcessControl.writeBack(fd, offset: Int64(writtenBack), length: Int64(start - writtenBack), wait: true)
            writtenBack = start
        }
    }

    /// Writes `bytes` over what is at `offset` already (the buffer is written out first).
    func overwrite(_ bytes: [UInt8], at position: Int) throws {
        precondition(position + bytes.count <= offset, "overwrites only what was written")
        try flush()
        let written = bytes.withUnsafeBytes { raw in
            var result: Int
            repeat {
                result = pwrite(fd, raw.baseAddress, raw.count, off_t(position))
            } while result < 0 && errno == EINTR
            return result
        }
        guard written == bytes.count else { throw StoreError.io(path: path, reason: String(cString: strerror(errno))) }
    }

    /// Flushes and fsyncs.
    func finish() throws {
        try flush()
        guard FileIO.retrying({ fsync(fd) }) == 0 else {
            throw StoreError.io(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
