import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The layout of segment files, shared by the writer and the reader (docs/STORAGE.md).
enum SegmentFormat {
    static let formatName = "tweetcli-segment"
    static let dataVersion: Int64 = 1
    /// The index file's magic: version 05 gives each untagged index's entries a window of their
    /// keys (``window(of:skipping:)``), so that a binary search over them reads a line only where
    /// the windows tie; 04, still read, has none. 04 and 05 keep, beside each line's offset, its ID
    /// key (``idKey(_:)``), so a lookup's probes read the index and not the lines, and a directory
    /// of its collections (``CollectionDirectory``); 03, still read, has neither; 03 to 05 give
    /// each index a tagged field (``IndexDefinition/taggedField``), whose entries are then 8 bytes,
    /// the ordinal and the tag; 02, still read, has no tags; 02 to 05 keep a blocked Bloom filter
    /// (each path's bits in one 512-bit block, so a lookup reads one block of it); 01, still read,
    /// a classic one.
    static let indexMagic = Array("TWTIDX05".utf8)
    static let unwindowedIndexMagic = Array("TWTIDX04".utf8)
    static let unkeyedIndexMagic = Array("TWTIDX03".utf8)
    static let untaggedIndexMagic = Array("TWTIDX02".utf8)
    static let classicBloomIndexMagic = Array("TWTIDX01".utf8)
    static let headerSize = 48
    static let indexNameSize = 64
    /// The tagged field's name in an index's table entry (version 03), zero-padded; empty for none.
    static let taggedFieldSize = 32
    /// The most bytes every key of an index may share that an index's table entry keeps (version
    /// 05): the rest of a longer shared beginning is in each window.
    static let windowPrefixSize = 32
    /// An index's table entry: its name, its entry count, (version 03) its tagged field, and
    /// (version 05) how many bytes every key of it begins with, and those bytes, zero-padded.
    static let indexTableEntrySize = unwindowedIndexTableEntrySize + 8 + windowPrefixSize
    static let unwindowedIndexTableEntrySize = indexNameSize + 8 + taggedFieldSize
    static let untaggedIndexTableEntrySize = indexNameSize + 8

    /// An index entry's window (version 05): the 4 bytes of its key's ``SortKey`` encoding after
    /// the `skip` bytes every key of its index begins with, zeros past the key's end, as a
    /// big-endian number. Keys in order have windows in order, so where two windows differ, so do
    /// the keys, in the same direction; where they tie, only the line can tell.
    static func window(of key: some Collection<UInt8>, skipping skip: Int) -> UInt32 {
        var window: UInt32 = 0
        var taken = 0
        for byte in key.dropFirst(skip).prefix(4) {
            window = window << 8 | UInt32(byte)
            taken += 1
        }
        return taken == 4 ? window : taken == 0 ? 0 : window << (8 * UInt32(4 - taken))
    }

    /// Whether the index file at `path` holds, in its header's bytes 40–47, the CRC-32 of its
    /// header's numbers (bytes 8–39, version 05) and of everything after the header (every
    /// version), read a megabyte at a time (a large store's index is too big to read whole);
    /// `nil` when there is no such file.
    static func indexChecksumHolds(path: String) throws -> Bool? {
        guard let fd = try StoreFiles.openRegular(path, O_RDONLY) else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.io(path: path, reason: FileIO.errnoText()) }
        let size = Int(info.st_size)
        guard size >= headerSize else { return false }
        let header = try StoreFiles.readBytes(from: fd, offset: 0, count: headerSize, path: path)
        var running = CRC32.Running()
        if Array(header[0..<8]) == indexMagic { running.add(header[8..<40]) }
        var offset = headerSize
        while offset < size {
            let count = min(1 << 20, size - offset)
            running.add(try StoreFiles.readBytes(from: fd, offset: offset, count: count, path: path))
            offset += count
        }
        let stored = header[40..<48].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return stored == UInt64(running.value)
    }

    /// A document ID's key: its first 8 bytes (zeros after a shorter one), big-endian, so keys
    /// order as the IDs' bytes do, ties apart. Only a hint to a lookup: the line decides.
    static func idKey(_ id: some Sequence<UInt8>) -> UInt64 {
        var key: UInt64 = 0
        var taken = 0
        for byte in id.prefix(8) {
            key = key << 8 | UInt64(byte)
            taken += 1
        }
        return taken == 8 ? key : key << (8 * UInt64(8 - taken))
    }

    /// The zeros between a collection directory's block count, which ends at byte `end` of the
    /// index file, and its first block, which starts on a 4 KiB boundary (one read a block).
    static func directoryPadding(after end: Int) -> Int {
        (CollectionDirectory.blockSize - end % CollectionDirectory.blockSize) % CollectionDirectory.blockSize
    }

    /// `["collection/id",{…},"crc"]`: the trailing `,"xxxxxxxx"]` is 12 bytes.
    static let checksumSuffixLength = 12

    /// Segment `number`'s name: `seg-` and the number in at least six digits.
    static func segmentName(_ number: Int) -> String {
        let digits = String(number)
        return "seg-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
    static func dataFileName(_ name: String) -> String { name + ".jsonl" }
    static func indexFileName(_ name: String) -> String { name + ".idx" }
    /// Segment (or compaction output) `name`'s two files, its data and its index.
    static func fileNames(_ name: String) -> [String] { [dataFileName(name), indexFileName(name)] }

    /// Deletes segment (or compaction output) `name`'s files in `directory`, if they are there.
    static func removeFiles(of name: String, in directory: String) {
        for file in fileNames(name) { unlink(PathName.join(directory, file)) }
    }

    /// One document line, newline included; `data == nil` is a deletion (a tombstone).
    static func line(path: DocumentPath, data: JSONObject?) -> [UInt8] {
        var line: [UInt8] = [UInt8(ascii: "[")]
        line.reserveCapacity(256)
        JSONValue.writeString(path.collection, slash: path.documentID, into: &line)
        line.append(UInt8(ascii: ","))
        if let data { JSONValue.object(data).write(into: &line) } else { line.append(contentsOf: "null".utf8) }
        appendChecksum(to: &line)
        return line
    }

    /// Appends `,"<crc of everything so far>"]\n`.
    static func appendChecksum(to line: inout [UInt8]) {
        let crc = CRC32.checksum(line)
        line.append(contentsOf: ",\"".utf8)
        for shift in stride(from: 28, through: 0, by: -4) {
            line.append(JSONValue.hexDigit(UInt8(truncatingIfNeeded: crc >> UInt32(shift)) & 15))
        }
        line.append(contentsOf: "\"]\n".utf8)
    }

    /// Why a document line could not be read.
    struct LineError: Error {
        var reason: String
    }

    /// Parses a document line (without its newline), checksum verified; `data == nil` for a deletion.
    static func parseLine(_ bytes: UnsafeBufferPointer<UInt8>, keepingFields fields: [[UInt8]]? = nil) throws(LineError)
        -> (path: DocumentPath, data: JSONObject?)
    {
        try checkChecksum(bytes)
        if let line = readLine(bytes, keepingFields: fields) { return line }
        // Not the shape a segment writes: parsed whole, for the same answer and the same error.
        let value: JSONValue
        do {
            value =
                try fields.map { (fields) throws(JSONParseError) in try JSONValue.parse(bytes, keepingFields: fields) }
                ?? JSONValue.parse(bytes)
        } catch {
            throw LineError(reason: "invalid JSON: \(error)")
        }
        guard case .array(let parts) = value, parts.count == 3, let text = parts[0].stringValue,
            let path = DocumentPath(text)
        else { throw LineError(reason: "not a [path, data, checksum] line") }
        switch parts[1] {
        case .object(let fields): return (path, fields)
        case .null: return (path, nil)
        default: throw LineError(reason: "the document is not an object")
        }
    }

    /// A line of the shape a segment writes, read in one pass with a cursor: the path split from
    /// its bytes, the document parsed (or `null`), the checksum walked. `nil` for any other line,
    /// which ``parseLine(_:keepingFields:)`` then parses whole: it accepts what this accepts, with
    /// the same path and fields, and decides what any other line is. (Parsing the line as one value
    /// made the array around it and the path's string, then split the string again, for every
    /// line.)
    private static func readLine(_ bytes: UnsafeBufferPointer<UInt8>, keepingFields fields: [[UInt8]]?)
        -> (path: DocumentPath, data: JSONObject?)?
    {
        var cursor = JSONCursor(bytes)
        do {
            guard cursor.peek() == UInt8(ascii: "[") else { return nil }
            try cursor.enterArray()
            guard try cursor.nextElement(), let path = try cursor.readPath(), try cursor.nextElement() else {
                return nil
            }
            let data: JSONObject?
            switch cursor.peek() {
            case UInt8(ascii: "{"):
                guard case .object(let object) = try cursor.readValue(keepingFields: fields) else { return nil }
                data = object
            case UInt8(ascii: "n"):
                guard case .null = try cursor.readValue() else { return nil }
                data = nil
            default: return nil
            }
            guard try cursor.nextElement() else { return nil }
            try cursor.skipValue()
            guard try !cursor.nextElement() else { return nil }
            try cursor.finish()
            return (path, data)
        } catch {
            // Not JSON: the whole parse refuses it too, and its error is the one to report.
            return nil
        }
    }

    /// Checks a document line's checksum (the line without its newline), without parsing it.
    static func checkChecksum(_ bytes: UnsafeBufferPointer<UInt8>) throws(LineError) {
        guard bytes.count > checksumSuffixLength + 4 else { throw LineError(reason: "the line is truncated") }
        let body = UnsafeBufferPointer(rebasing: bytes[0..<(bytes.count - checksumSuffixLength)])
        let stored = UInt32(String(decoding: bytes[(bytes.count - 10)..<(bytes.count - 2)], as: UTF8.self), radix: 16)
        guard let stored, stored == CRC32.checksum(body) else { throw LineError(reason: "checksum mismatch") }
    }

    /// Whether a checked document line (without its newline) is a deletion: its document is
    /// `null` (a document is an object, so its JSON never ends in `null`).
    static func isDeletion(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let end = bytes.count - checksumSuffixLength
        return end >= 5 && bytes[(end - 5)..<end].elementsEqual(",null".utf8)
    }

    /// Orders documents by collection path, then by ID, comparing bytes: a collection's documents
    /// are contiguous, apart from those of its subcollections.
    static func comparePaths(_ a: DocumentPath, _ b: DocumentPath) -> ComparisonResult {
        let collection = compareBytes(a.collection, b.collection)
        return collection != .orderedSame ? collection : compareBytes(a.documentID, b.documentID)
    }

    static func compareBytes(_ a: String, _ b: String) -> ComparisonResult { ByteOrder.compare(a, b) }
}
