import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// The Bloom filter of a segment's paths: never a false "absent", rarely a false "maybe", and the
/// classic layout of index files written before version 02 still read.
struct BloomFilterTests {
    let paths = (0..<5_000).map { "tweets/t\($0)" }

    @Test func theBlockedFilterHasNoFalseNegativesAndFewFalsePositives() {
        var words = [UInt64](repeating: 0, count: BloomFilter.wordCount(forCount: paths.count))
        #expect(words.count % BloomFilter.blockWords == 0)
        for path in paths { BloomFilter.insert(BloomFilter.hashes(path.utf8), into: &words) }
        // A lookup reads the path's block alone, as a segment's index file holds it.
        func mayContain(_ path: String) -> Bool {
            let hashes = BloomFilter.hashes(path.utf8)
            let block = Array(words[BloomFilter.block(of: hashes, wordCount: words.count)].map(\.littleEndian))
            return block.withUnsafeBytes {
                BloomFilter.mayContainBlocked(hashes, wordCount: words.count, in: $0.bindMemory(to: UInt8.self))
            }
        }
        #expect(paths.allSatisfy(mayContain))
        let strangers = (0..<5_000).map { "tweets/other\($0)" }
        let falsePositives = strangers.filter(mayContain).count
        #expect(falsePositives < 150, "\(falsePositives) of 5000")  // about 1% expected
    }

    /// The classic layout, as index version 01 wrote it: every bit anywhere in the filter.
    static func insertClassic(_ hashes: (UInt64, UInt64), into words: inout [UInt64]) {
        let bits = UInt64(words.count * 64)
        for i in 0..<UInt64(BloomFilter.hashCount) {
            let bit = (hashes.0 &+ i &* hashes.1) % bits
            words[Int(bit / 64)] |= 1 << (bit % 64)
        }
    }

    /// A lookup hashes a path's parts where the writer hashed its whole text: the same hashes, or
    /// the filter would turn documents away.
    @Test func aPathsPartsHashAsItsTextDoes() {
        let paths = [
            DocumentPath(collection: "users", documentID: "yeL9aTqRXshsdJ7ChijN"),
            DocumentPath(collection: "users/u1/user-likes", documentID: "0VRBf1pwuFp8HN74x03d"),
            DocumentPath(collection: "t", documentID: ""),
            DocumentPath(collection: "東京", documentID: "café ☕️ \u{0}"),
            DocumentPath(
                collection: String(repeating: "c/d/", count: 40) + "e", documentID: String(repeating: "x", count: 300)),
        ]
        for path in paths {
            let (a, b) = BloomFilter.hashes(of: path)
            let (c, d) = BloomFilter.hashes(path.description.utf8)
            #expect(a == c && b == d, "\(path)")
        }
    }

    @Test func aSegmentWhoseIndexHasTheClassicFilterIsStillRead() throws {
        let env = try TestEnvironment()
        let directory = env.path("segments")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let entries = (0..<300).map { number in
            SegmentWriter.Entry(
                path: DocumentPath(collection: "tweets", documentID: String(format: "t%05d", number)),
                data: ["n": .integer(Int64(number))])
        }
        _ = try SegmentWriter(directory: directory, indexes: []).write(name: "seg-000001", entries: entries)
        // Rewritten as version 01: its magic, no ID keys, and its filter laid out the classic way.
        let indexPath = directory + "/seg-000001.idx"
        var bytes = IndexFileBytes.withoutIDKeys(try env.bytes(of: indexPath))
        bytes.replaceSubrange(0..<8, with: Array("TWTIDX01".utf8))
        func number(_ offset: Int) -> Int {
            Int(bytes[offset..<(offset + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        let (documents, bloomWords, indexCount) = (number(8), number(24), number(32))
        let bloomStart =
            SegmentFormat.headerSize + indexCount * SegmentFormat.unwindowedIndexTableEntrySize + documents * 8
        var words = [UInt64](repeating: 0, count: bloomWords)
        for entry in entries { Self.insertClassic(BloomFilter.hashes(entry.path.description.utf8), into: &words) }
        for (position, word) in words.enumerated() {
            for byte in 0..<8 {
                bytes[bloomStart + position * 8 + byte] = UInt8(truncatingIfNeeded: word >> (8 * byte))
            }
        }
        try env.write(bytes, to: indexPath)
        let segment = try Segment(directory: directory, name: "seg-000001")
        for entry in entries { #expect(try segment.find(entry.path) != nil, "\(entry.path)") }
        #expect(try segment.find(DocumentPath(collection: "tweets", documentID: "missing")) == nil)
    }
}

/// Lookups interpolate on the IDs' first bytes: whatever the IDs look like (random, sharing long
/// prefixes, of different lengths, clustered), every document is found and nothing else is.
struct SegmentLookupTests {
    static let shapes: [(String, @Sendable (Int) -> String)] = [
        (
            "random",
            { number in
                String(UInt64(number).multipliedReportingOverflow(by: 0x9E37_79B9_7F4A_7C15).partialValue, radix: 36)
            }
        ),
        ("long shared prefix", { String(format: "like-AAAAAAAAAAAA-%06d", $0) }),
        ("lengths", { String(repeating: "z", count: 1 + $0 % 5) + String($0) }),
        ("clustered", { ($0 % 10 == 0 ? "a" : "zzzzzz") + String(format: "%05d", $0) }),
    ]

    /// The index file as it is, as version 03 wrote it (no ID keys), or with every ID key replaced
    /// by noise: the keys only steer the probes, so each finds what the lines hold.
    enum Keys: CaseIterable { case written, absent, damaged }

    @Test(arguments: 0..<shapes.count, Keys.allCases)
    func everyDocumentIsFoundAndNoOtherWhateverItsIDsLookLike(_ shape: Int, _ keys: Keys) throws {
        let env = try TestEnvironment()
        let directory = env.path("segments")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let make = Self.shapes[shape].1
        var ids = Set((0..<2_000).map(make))
        ids.remove("")
        let sorted = ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        // Neighbouring collections, so the one searched is a range in the middle of the segment.
        let entries =
            [SegmentWriter.Entry(path: DocumentPath(collection: "a", documentID: "x"), data: [:])]
            + sorted.map { SegmentWriter.Entry(path: DocumentPath(collection: "m", documentID: $0), data: [:]) }
            + [SegmentWriter.Entry(path: DocumentPath(collection: "z", documentID: "x"), data: [:])]
        _ = try SegmentWriter(directory: directory, indexes: []).write(name: "seg-000001", entries: entries)
        let indexPath = directory + "/seg-000001.idx"
        var bytes = try env.bytes(of: indexPath)
        switch keys {
        case .written: break
        case .absent: bytes = IndexFileBytes.withoutIDKeys(bytes)
        case .damaged:
            var noise = SplitMix64(seed: UInt64(shape))
            for position in IndexFileBytes.idKeys(in: bytes) {
                bytes[position] = UInt8(truncatingIfNeeded: noise.next())
            }
        }
        try env.write(bytes, to: indexPath)
        let segment = try Segment(directory: directory, name: "seg-000001")
        _ = try segment.range(ofCollection: "m")
        let linesBefore = segment.linesRead
        for (position, id) in sorted.enumerated() {
            #expect(try segment.find(DocumentPath(collection: "m", documentID: id)) == position + 1, "\(id)")
        }
        let linesPerLookup = Double(segment.linesRead - linesBefore) / Double(sorted.count)
        // Searched before the Bloom filter is read (as a batch looks up a path likely there), the
        // same answers: the filter, read after the keys miss, still rules out what is absent.
        for (position, id) in sorted.enumerated() where position % 7 == 0 {
            let path = DocumentPath(collection: "m", documentID: id)
            #expect(try segment.find(path, bloomFirst: false) == position + 1, "\(id), keys first")
        }
        if Self.shapes[shape].0 == "random" {
            // IDs that nearly all differ in their first 8 bytes: with keys, a lookup reads its own
            // line alone (without them, a few a lookup).
            #expect((keys == .written) == (linesPerLookup < 1.01), "\(keys): \(linesPerLookup) lines a lookup")
        }
        for absent in ["", "0", "~", "m", sorted[0] + "0", sorted[sorted.count / 2] + "!"] where !ids.contains(absent) {
            #expect(try segment.find(DocumentPath(collection: "m", documentID: absent)) == nil, "\(absent)")
            let linesBeforeAbsent = segment.linesRead
            #expect(try segment.find(DocumentPath(collection: "m", documentID: absent), bloomFirst: false) == nil)
            if keys == .written, Self.shapes[shape].0 == "random", !absent.isEmpty {
                // The keys miss it and the filter rules it out: no search by the lines.
                #expect(segment.linesRead - linesBeforeAbsent <= 2, "\(absent), keys first")
            }
        }
    }

    /// A lookup likely to find its document (a batch's next path in the segment where the last one
    /// was found) searches the ID keys before the Bloom filter: with a filter emptied to say
    /// "absent" to everything, it still finds what the keys find, where the filter-first lookup
    /// finds nothing, and it still answers absent for what the keys do not find.
    @Test func aLookupExpectedInASegmentSearchesItsKeysBeforeItsFilter() throws {
        let env = try TestEnvironment()
        let directory = env.path("segments")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ids = (0..<300).map { String(format: "doc%04d", $0 * 7) }
        let entries = ids.map { SegmentWriter.Entry(path: DocumentPath(collection: "m", documentID: $0), data: [:]) }
        _ = try SegmentWriter(directory: directory, indexes: []).write(name: "seg-000001", entries: entries)
        let indexPath = directory + "/seg-000001.idx"
        var bytes = try env.bytes(of: indexPath)
        let bloomStart = IndexFileBytes.idKeys(in: bytes).upperBound
        for position in bloomStart..<(bloomStart + IndexFileBytes.number(bytes, 24) * 8) { bytes[position] = 0 }
        try env.write(bytes, to: indexPath)
        let segment = try Segment(directory: directory, name: "seg-000001")
        for (position, id) in ids.enumerated() where position % 10 == 0 {
            let path = DocumentPath(collection: "m", documentID: id)
            #expect(try segment.find(path) == nil, "the emptied filter rules \(id) out")
            #expect(try segment.find(path, bloomFirst: false) == position, "the keys find \(id)")
        }
        let before = segment.linesRead
        #expect(try segment.find(DocumentPath(collection: "m", documentID: "doc0001"), bloomFirst: false) == nil)
        #expect(segment.linesRead - before <= 2, "no search by the lines after the filter said absent")
    }
}
