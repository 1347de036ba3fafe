@testable import TweetStoreLocal

/// A segment's index file, as bytes, rewritten as an older version would have written it, or with
/// one section damaged: for tests of what the reader accepts and what it does with it.
enum IndexFileBytes {
    /// The little-endian 64-bit number at `offset`.
    static func number(_ bytes: [UInt8], _ offset: Int) -> Int {
        Int(bytes[offset..<(offset + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// Where a version 04 file keeps its lines' ID keys.
    static func idKeys(in bytes: [UInt8]) -> Range<Int> {
        precondition(Array(bytes[0..<8]) == SegmentFormat.indexMagic, "not a version 04 index")
        let (documents, indexCount) = (number(bytes, 8), number(bytes, 32))
        let start = SegmentFormat.headerSize + indexCount * SegmentFormat.indexTableEntrySize + documents * 8
        return start..<(start + documents * 8)
    }

    /// Where a version 04 file keeps its collection directory: its block count, the padding, the blocks.
    static func directory(in bytes: [UInt8]) -> (whole: Range<Int>, blocks: Range<Int>) {
        let start = idKeys(in: bytes).upperBound + number(bytes, 24) * 8
        let blocksStart = start + 8 + SegmentFormat.directoryPadding(after: start + 8)
        let end = blocksStart + number(bytes, start) * CollectionDirectory.blockSize
        return (start..<end, blocksStart..<end)
    }

    /// Where a version 04 file's secondary indexes start: after everything else.
    static func secondaryStart(in bytes: [UInt8]) -> Int { directory(in: bytes).whole.upperBound }

    /// A version 04 file as version 03 wrote it: its magic, no ID keys after the offsets and no
    /// collection directory after the Bloom filter.
    static func withoutIDKeys(_ bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        copy.removeSubrange(directory(in: bytes).whole)
        copy.removeSubrange(idKeys(in: bytes))
        copy.replaceSubrange(0..<8, with: SegmentFormat.unkeyedIndexMagic)
        return copy
    }
}
