import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// The external sort and the segment writer that uses it: spilling to temporary files gives
/// exactly what sorting in memory gives.
struct ExternalSortTests {
    /// 64 bytes makes thousands of runs, so they are merged along the way too, on three levels.
    @Test(arguments: [64, 4096, 1 << 20])
    func recordsComeOutSortedByKeyAndStableWhateverTheBudget(budget: Int) throws {
        let directory = StorageEngineTests.Directory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        var random = SplitMix64(seed: UInt64(budget))
        var sorter = ExternalSorter(directory: directory.path, budget: budget, fanIn: 32)
        var records: [(key: [UInt8], value: [UInt8])] = []
        for number in 0..<3000 {
            // Short keys from a small alphabet: many ties, many keys prefixes of others, some empty.
            let key = (0..<Int(random.next() % 4)).map { _ in UInt8(random.next() % 3) }
            let value = Array("record \(number)".utf8)
            try sorter.add(value: value) { $0 += key }
            records.append((key, value))
        }
        #expect(sorter.count == 3000)
        // Runs merge by level: each record is written once per level, about log₃₂ of the runs
        // (at 64 bytes, a record or two per run: thousands of runs, three levels), not again
        // with every merge.
        #expect(sorter.recordsWritten <= 3000 * 4, "\(sorter.recordsWritten) records written for 3000")
        // Swift's sort is not stable: order ties by their insertion number.
        let expected = records.enumerated().sorted { a, b in
            a.element.key.lexicographicallyPrecedes(b.element.key)
                || (a.element.key == b.element.key && a.offset < b.offset)
        }.map(\.element.value)
        var sorted = try sorter.sorted()
        var actual: [[UInt8]] = []
        while let value = try sorted.nextValue() { actual.append(Array(value)) }
        #expect(actual == expected)
        // Run files are unnamed: nothing is left in the directory.
        #expect(directory.files().isEmpty, "\(directory.files())")
    }

    /// Runs are written on another thread: one that cannot be written fails the sort, at the
    /// next run or at the end, rather than losing records.
    @Test func aRunThatCannotBeWrittenFailsTheSort() throws {
        var sorter = ExternalSorter(directory: "/nonexistent-\(getpid())/runs", budget: 256)
        #expect(throws: StoreError.self) {
            for number in 0..<200 {
                try sorter.add(value: Array("record \(number)".utf8)) { $0 += [UInt8(number % 7)] }
            }
            var sorted = try sorter.sorted()
            while try sorted.nextValue() != nil {}
        }
    }

    /// The default fan-in merges hundreds of runs at once (as many as the ten-million-tweet seed
    /// writes), within the descriptors this process may open, and still sorts stably.
    @Test func theDefaultFanInMergesHundredsOfRunsAtOnce() throws {
        #expect(ExternalSorter.defaultFanIn >= 16)
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #expect(ExternalSorter.defaultFanIn * 3 < Int(clamping: limit.rlim_cur))
        let directory = StorageEngineTests.Directory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        var sorter = ExternalSorter(directory: directory.path, budget: 2048)
        var expected: [(key: UInt16, number: Int)] = []
        for number in 0..<20_000 {
            let key = UInt16(truncatingIfNeeded: number &* 7919 % 1000)
            try sorter.add(value: Array("\(number)".utf8)) { $0 += [UInt8(key >> 8), UInt8(key & 0xFF)] }
            expected.append((key, number))
        }
        // Without a level merge along the way, each record is written once.
        if ExternalSorter.defaultFanIn >= 1024 { #expect(sorter.recordsWritten == 20_000) }
        expected.sort { ($0.key, $0.number) < ($1.key, $1.number) }
        var sorted = try sorter.sorted()
        var actual: [String] = []
        while let value = try sorted.nextValue() { actual.append(String(decoding: value, as: UTF8.self)) }
        #expect(actual == expected.map { "\($0.number)" })
    }

    @Test func aSegmentWrittenThroughTemporaryFilesIsTheSameByteForByte() throws {
        let directory = StorageEngineTests.Directory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        var random = SplitMix64(seed: 3)
        var entries: [SegmentWriter.Entry] = []
        for number in 0..<4000 {
            let collection = ["posts", "users/a\(number % 7)/likes", "zzz"][Int(random.next() % 3)]
            let path = DocumentPath(collection: collection, documentID: String(format: "d%05d", number))
            let data: JSONObject? =
                random.next() % 10 == 0
                ? nil
                : [
                    "author": .string("a\(random.next() % 9)"), "timestamp": .integer(Int64(random.next() % 50)),
                    "at": .integer(Int64(number)), "post": .string("p\(random.next() % 30)"),
                ]
            entries.append(SegmentWriter.Entry(path: path, data: data))
        }
        entries.sort { SegmentFormat.comparePaths($0.path, $1.path) == .orderedAscending }
        var inMemory = SegmentWriter(directory: directory.path, indexes: StorageEngineTests.indexes)
        inMemory.sortBudget = 1 << 30
        var spilling = SegmentWriter(directory: directory.path, indexes: StorageEngineTests.indexes)
        spilling.sortBudget = 2048
        spilling.offsetsInMemory = 100
        #expect(try inMemory.write(name: "seg-000001", entries: entries) == 4000)
        #expect(try spilling.write(name: "seg-000002", entries: entries) == 4000)
        for file in [SegmentFormat.dataFileName, SegmentFormat.indexFileName] {
            let first = try Data(
                contentsOf: URL(fileURLWithPath: directory.path).appendingPathComponent(file("seg-000001")))
            let second = try Data(
                contentsOf: URL(fileURLWithPath: directory.path).appendingPathComponent(file("seg-000002")))
            #expect(first == second, "\(file("seg"))")
        }
        // And it reads: every document found, every index in order.
        let segment = try Segment(directory: directory.path, name: "seg-000002")
        for entry in entries {
            #expect(try segment.find(entry.path).map { try segment.entry(at: $0).data } == .some(entry.data))
        }
    }
}
