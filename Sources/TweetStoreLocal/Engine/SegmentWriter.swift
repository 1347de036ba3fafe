import Foundation
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one immutable segment: a data file of document lines sorted by path, and its index file
/// (line offsets, a Bloom filter of paths, and each secondary index as ordinals sorted by key).
struct SegmentWriter {
    /// One document to write; `data == nil` records a deletion, or, with `line`, a document no
    /// index covers (only index keys need its fields).
    struct Entry {
        var path: DocumentPath
        var data: JSONObject?
        /// The document's line as another segment holds it, copied as is when present.
        var line: [UInt8]?
    }

    let directory: String
    let indexes: [IndexDefinition]

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
        let output = try FileOutput(path: dataPath)
        // The count is known at the end: it is written then, over spaces kept for it (JSON allows
        // them after a number).
        let countWidth = 20
        try output.write(Array("{\"documents\":".utf8) + [UInt8](repeating: 0x20, count: countWidth))
        try output.write(
            Array(",\"format\":\"\(SegmentFormat.formatName)\",\"version\":\(SegmentFormat.dataVersion)}\n".utf8))

        var offsets: [UInt64] = []
        offsets.reserveCapacity(capacity)
        var bloom = [UInt64](repeating: 0, count: BloomFilter.wordCount(forCount: capacity))
        // Each index's keys, flat and order-preserving, with the ordinal of their document.
        var keys = [SortKeyBuffer](repeating: SortKeyBuffer(), count: indexes.count)
        var ordinals = [[UInt32]](repeating: [], count: indexes.count)
        var ordinal = 0
        while let entry = try next() {
            defer { ordinal += 1 }
            offsets.append(UInt64(output.offset))
            try output.write(entry.line ?? SegmentFormat.line(path: entry.path, data: entry.data))
            BloomFilter.insert(BloomFilter.hashes(entry.path.description.utf8), into: &bloom)
            guard let data = entry.data else { continue }
            for (position, index) in indexes.enumerated() {
                if let key = index.key(collection: entry.path.collection, documentID: entry.path.documentID, data: data)
                {
                    keys[position].add { bytes in for value in key { SortKey.append(value, to: &bytes) } }
                    ordinals[position].append(UInt32(ordinal))
                }
            }
        }
        let dataSize = output.offset
        try output.overwrite(Array(String(ordinal).utf8), at: "{\"documents\":".utf8.count)
        try output.finish()

        var bytes: [UInt8] = []
        bytes.reserveCapacity(SegmentFormat.headerSize + offsets.count * 8 + bloom.count * 8)
        bytes += SegmentFormat.indexMagic
        for value in [UInt64(ordinal), UInt64(dataSize), UInt64(bloom.count), UInt64(indexes.count), 0] {
            append(value, to: &bytes)
        }
        for (position, index) in indexes.enumerated() {
            var name = Array(index.name.utf8.prefix(SegmentFormat.indexNameSize))
            name += [UInt8](repeating: 0, count: SegmentFormat.indexNameSize - name.count)
            bytes += name
            append(UInt64(ordinals[position].count), to: &bytes)
        }
        for offset in offsets { append(offset, to: &bytes) }
        for word in bloom { append(word, to: &bytes) }
        for position in indexes.indices {
            for sorted in keys[position].sortedPositions() {
                withUnsafeBytes(of: ordinals[position][sorted].littleEndian) { bytes.append(contentsOf: $0) }
            }
            if ordinals[position].count % 2 == 1 { bytes += [0, 0, 0, 0] }
        }
        // Bytes 40–47 hold the CRC-32 of everything after the header, which the doctor checks.
        let checksum = UInt64(CRC32.checksum(bytes[SegmentFormat.headerSize...]))
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(40..<48, with: $0) }
        let indexOutput = try FileOutput(path: indexPath)
        try indexOutput.write(bytes)
        try indexOutput.finish()
        return ordinal
    }

    private func append(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

/// A new file written through a buffer, then fsynced.
final class FileOutput {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var offset = 0

    init(path: String) throws {
        self.path = path
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
        try FileIO.writeAll(fd, buffer, path: path)
        buffer.removeAll(keepingCapacity: true)
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
