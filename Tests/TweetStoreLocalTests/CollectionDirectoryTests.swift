import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// A segment's collection directory gives each collection the range a binary search over its
/// lines would, reading a few lines instead of dozens; a damaged or lying directory changes
/// nothing but how many lines are read.
struct CollectionDirectoryTests {
    /// Collections as tweetcli's are: top-level ones, per-user subcollections, some of one document.
    static let collections: [String] =
        ["credentials", "tweets", "user-stats", "users"]
        + (0..<300).flatMap { user in
            ["users/u\(user)/user-likes", "following/u\(user)/user-following"].filter { _ in user % 7 != 3 }
        }

    /// Writes the segment: each collection with 1 to 40 documents.
    private func writeSegment(in directory: String) throws -> [String: Int] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var sizes: [String: Int] = [:]
        var entries: [SegmentWriter.Entry] = []
        for (number, collection) in Self.collections.enumerated() {
            let size = 1 + (number * 7919) % 40
            sizes[collection] = size
            for id in 0..<size {
                entries.append(
                    SegmentWriter.Entry(
                        path: DocumentPath(collection: collection, documentID: String(format: "d%03d", id)),
                        data: ["n": .integer(Int64(id))]))
            }
        }
        entries.sort { SegmentFormat.comparePaths($0.path, $1.path) == .orderedAscending }
        _ = try SegmentWriter(directory: directory, indexes: []).write(name: "seg-000001", entries: entries)
        return sizes
    }

    /// What can be wrong with the directory.
    enum Damage: CaseIterable { case none, removed, flippedByte, liedRange }

    @Test(arguments: Damage.allCases)
    func everyCollectionsRangeIsTheBinarySearchsWhateverTheDirectorySays(_ damage: Damage) throws {
        let env = try TestEnvironment()
        let directory = env.path("segments")
        let sizes = try writeSegment(in: directory)
        let indexPath = directory + "/seg-000001.idx"
        let written = try env.bytes(of: indexPath)
        // The same segment as version 03, whose ranges come from the binary search.
        let reference = env.path("reference")
        try FileManager.default.createDirectory(atPath: reference, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: directory + "/seg-000001.jsonl", toPath: reference + "/seg-000001.jsonl")
        try env.write(IndexFileBytes.withoutIDKeys(written), to: reference + "/seg-000001.idx")

        var bytes = written
        let blocks = IndexFileBytes.directory(in: bytes).blocks
        #expect(blocks.count > CollectionDirectory.blockSize, "the test needs a directory of several blocks")
        switch damage {
        case .none: break
        case .removed: bytes = IndexFileBytes.withoutIDKeys(bytes)
        case .flippedByte:
            // One byte of every block's slots: each block then fails its checksum.
            for start in stride(from: blocks.lowerBound, to: blocks.upperBound, by: CollectionDirectory.blockSize) {
                for offset in 0..<(CollectionDirectory.blockSize - 4) where bytes[start + offset] != 0 {
                    bytes[start + offset] ^= 0x40
                    break
                }
            }
        case .liedRange:
            // Every slot's count one more, with the blocks' checksums made again: only the lines can tell.
            for start in stride(from: blocks.lowerBound, to: blocks.upperBound, by: CollectionDirectory.blockSize) {
                for slot in 0..<CollectionDirectory.slotsPerBlock {
                    let at = start + slot * CollectionDirectory.slotSize
                    guard bytes[at..<(at + 8)].contains(where: { $0 != 0 }) else { continue }  // an empty slot
                    bytes[at + 12] &+= 1
                }
                let sum = CRC32.checksum(bytes[start..<(start + CollectionDirectory.blockSize - 4)])
                for byte in 0..<4 {
                    bytes[start + CollectionDirectory.blockSize - 4 + byte] = UInt8(
                        truncatingIfNeeded: sum >> (8 * byte))
                }
            }
        }
        try env.write(bytes, to: indexPath)

        let segment = try Segment(directory: directory, name: "seg-000001")
        let binary = try Segment(directory: reference, name: "seg-000001")
        let absent = ["users/u3/user-likes", "tweets/t1/replies", "a", "zzz", "users/u299/user-likes0"]
        for collection in Self.collections + absent {
            let range = try segment.range(ofCollection: collection)
            #expect(range.count == sizes[collection] ?? 0, "\(collection)")
            if range.isEmpty {
                #expect(try binary.range(ofCollection: collection).isEmpty, "\(collection)")
            } else {
                #expect(range == (try binary.range(ofCollection: collection)), "\(collection)")
            }
        }
        let linesPerRange = Double(segment.linesRead) / Double(Self.collections.count + absent.count)
        // The directory's own answer checks at most four lines; a binary search reads about twenty.
        #expect((damage == .none) == (linesPerRange <= 4), "\(damage): \(linesPerRange) lines a range")
        for collection in Self.collections {
            let id = String(format: "d%03d", (sizes[collection] ?? 1) - 1)
            #expect(try segment.find(DocumentPath(collection: collection, documentID: id)) != nil, "\(collection)")
        }
    }

    @Test func twoCollectionsOfOneHashOrTooManyMakeNoDirectory() {
        let slot = CollectionDirectory.Slot(hash: 42, first: 0, count: 1)
        #expect(CollectionDirectory.blocks([slot, .init(hash: 7, first: 1, count: 1)]) != nil)
        #expect(CollectionDirectory.blocks([slot, .init(hash: 42, first: 1, count: 1)]) == nil)
        #expect(CollectionDirectory.blocks([]) == nil)
        let many = (0...CollectionDirectory.maximumCollections).map {
            CollectionDirectory.Slot(hash: UInt64($0) + 1, first: UInt32($0), count: 1)
        }
        #expect(CollectionDirectory.blocks(many) == nil)
    }
}
