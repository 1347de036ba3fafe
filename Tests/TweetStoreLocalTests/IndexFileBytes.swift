@testable import TweetStoreLocal

/// A segment's index file, as bytes, rewritten as an older version would have written it, or with
/// one section damaged: for tests of what the reader accepts and what it does with it.
enum IndexFileBytes {
    /// The little-endian 64-bit number at `offset`.
    static func number(_ bytes: [UInt8], _ offset: Int) -> Int {
        Int(bytes[offset..<(offset + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// Where a version 04 or 05 file keeps its lines' ID keys.
    static func idKeys(in bytes: [UInt8]) -> Range<Int> {
        let magic = Array(bytes[0..<8])
        precondition(
            magic == SegmentFormat.indexMagic || magic == SegmentFormat.unwindowedIndexMagic,
            "not a version 04 or 05 index")
        let entrySize =
            magic == SegmentFormat.indexMagic
            ? SegmentFormat.indexTableEntrySize : SegmentFormat.unwindowedIndexTableEntrySize
        let (documents, indexCount) = (number(bytes, 8), number(bytes, 32))
        let start = SegmentFormat.headerSize + indexCount * entrySize + documents * 8
        return start..<(start + documents * 8)
    }

    /// A version 05 file with each untagged index entry's window replaced by `body(position, window)`.
    static func rewritingWindows(_ bytes: [UInt8], _ body: (Int, UInt32) -> UInt32) -> [UInt8] {
        precondition(Array(bytes[0..<8]) == SegmentFormat.indexMagic, "not a version 05 index")
        var copy = bytes
        var position = secondaryStart(in: bytes)
        for index in 0..<number(bytes, 32) {
            let start = SegmentFormat.headerSize + index * SegmentFormat.indexTableEntrySize
            let count = number(bytes, start + SegmentFormat.indexNameSize)
            let field = start + SegmentFormat.indexNameSize + 8
            if !bytes[field..<(field + SegmentFormat.taggedFieldSize)].contains(where: { $0 != 0 }) {
                for entry in 0..<count {
                    let at = position + entry * 8 + 4
                    let window = bytes[at..<(at + 4)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    let new = body(entry, window)
                    for byte in 0..<4 { copy[at + byte] = UInt8(truncatingIfNeeded: new >> (8 * UInt32(byte))) }
                }
            }
            position += count * 8
        }
        return copy
    }

    /// A version 05 file as version 04 wrote it: its magic, table entries without the bytes every
    /// key shares, and an untagged index's entries without their windows (4 bytes each, padded to
    /// 8); the header's checksum made again.
    static func withoutWindows(_ bytes: [UInt8]) -> [UInt8] {
        precondition(Array(bytes[0..<8]) == SegmentFormat.indexMagic, "not a version 05 index")
        let indexCount = number(bytes, 32)
        let tableEnd = SegmentFormat.headerSize + indexCount * SegmentFormat.indexTableEntrySize
        var tagged: [Bool] = []
        var counts: [Int] = []
        var copy = Array(bytes[0..<SegmentFormat.headerSize])
        for index in 0..<indexCount {
            let start = SegmentFormat.headerSize + index * SegmentFormat.indexTableEntrySize
            copy += bytes[start..<(start + SegmentFormat.unwindowedIndexTableEntrySize)]
            counts.append(number(bytes, start + SegmentFormat.indexNameSize))
            let field = start + SegmentFormat.indexNameSize + 8
            tagged.append(bytes[field..<(field + SegmentFormat.taggedFieldSize)].contains { $0 != 0 })
        }
        // Everything between the table and the secondary indexes is as it was, but for the zeros
        // before the collection directory's blocks, which end on a 4 KiB boundary of the file.
        let directory = directory(in: bytes)
        copy += bytes[tableEnd..<(directory.whole.lowerBound + 8)]
        copy += [UInt8](repeating: 0, count: SegmentFormat.directoryPadding(after: copy.count))
        copy += bytes[directory.blocks]
        var position = directory.whole.upperBound
        for (count, isTagged) in zip(counts, tagged) {
            if isTagged {
                copy += bytes[position..<(position + count * 8)]
            } else {
                for entry in 0..<count { copy += bytes[(position + entry * 8)..<(position + entry * 8 + 4)] }
                if count % 2 == 1 { copy += [0, 0, 0, 0] }
            }
            position += count * 8
        }
        precondition(position == bytes.count, "a version 05 index ends with its secondary indexes")
        copy.replaceSubrange(0..<8, with: SegmentFormat.unwindowedIndexMagic)
        let checksum = UInt64(CRC32.checksum(copy[SegmentFormat.headerSize...]))
        copy.replaceSubrange(40..<48, with: withUnsafeBytes(of: checksum.littleEndian) { Array($0) })
        return copy
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
        var copy = Array(bytes[0..<8]) == SegmentFormat.indexMagic ? withoutWindows(bytes) : bytes
        let bytes = copy
        copy.removeSubrange(directory(in: bytes).whole)
        copy.removeSubrange(idKeys(in: bytes))
        copy.replaceSubrange(0..<8, with: SegmentFormat.unkeyedIndexMagic)
        return copy
    }
}
