import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// `doctor` reads a segment a line at a time, a megabyte of it at a time, and a repair writes it
/// again the same way: a segment of several megabytes with a damaged line, lines out of order and
/// a path twice is checked and repaired as a small one is, with nothing lost and every byte it
/// removes in the side file.
struct StoreDoctorTests {
    static let posts = IndexDefinition("posts", ["author", "timestamp"])

    /// A store of `count` posts of about 1 KiB each, in one segment; its data file's lines.
    static func store(_ env: TestEnvironment, count: Int) async throws -> (directory: String, lines: [[UInt8]]) {
        let directory = env.storeDirectory
        let store = try env.makeStore(directory: directory, indexes: [posts], foldThreshold: 10_000)
        try await store.importDocuments(
            (0..<count).map { number in
                (
                    DocumentPath(collection: "posts", documentID: String(format: "p%05d", number)),
                    [
                        "author": .string("a\(number % 7)"), "timestamp": .integer(Int64(number)),
                        "text": .string(String(repeating: "word\(number) ", count: 100)),
                    ]
                )
            })
        let bytes = try env.bytes(of: directory + "/seg-000001.jsonl")
        return (directory, bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init))
    }

    @Test func aLargeSegmentIsCheckedAndRepairedALineAtATime() async throws {
        let env = try TestEnvironment()
        var (directory, lines) = try await Self.store(env, count: 6_000)
        #expect(lines.count == 6_001, "the header and one line a post")
        #expect(lines.reduce(0) { $0 + $1.count } > 5 << 20, "several reads of a megabyte")
        // Line 1,501 (p01499) damaged inside its text; lines 3,001 and 3,002 swapped; p04000 again
        // after p05000, with other text (its later copy goes aside).
        lines[1_500][600] ^= 0x01
        lines.swapAt(3_000, 3_001)
        var copy = lines[4_001]
        let at = copy.firstRange(of: Array("word4000".utf8))!.lowerBound
        copy.replaceSubrange(at..<(at + 8), with: Array("WORD4000".utf8))
        // Its checksum made again, so that it is an intact line, only a second one for its path.
        let body = Array(copy[..<(copy.count - SegmentFormat.checksumSuffixLength)])
        var line = body
        SegmentFormat.appendChecksum(to: &line)
        lines.insert(Array(line.dropLast()), at: 5_002)
        let damaged = lines[1_500]
        try env.write(Array(lines.joined(separator: [0x0A])) + [0x0A], to: directory + "/seg-000001.jsonl")

        let doctor = StoreDoctor(directory: directory, indexes: [Self.posts])
        let problems = try doctor.check()
        #expect(problems.contains { $0.line == 1_501 && $0.reason.contains("checksum") }, "\(problems)")
        #expect(problems.filter { $0.reason == "out of order" }.map(\.line) == [3_002, 5_003])
        #expect(!problems.contains { !$0.isRepairable })

        let report = try doctor.repair()
        #expect(report.unrepaired.isEmpty && report.sideFiles.count == 1)
        let aside = try env.bytes(of: report.sideFiles[0])
        #expect(aside == damaged + [0x0A] + Array(line), "the damaged line, then the later copy")
        #expect(try doctor.check().isEmpty)
        let store = try env.makeStore(directory: directory, indexes: [Self.posts], foldThreshold: 10_000)
        let all = try await store.runQuery(store.collection("posts").query)
        #expect(all.count == 5_999)
        #expect(all.map(\.documentID) == (0..<6_000).filter { $0 != 1_499 }.map { String(format: "p%05d", $0) })
        let kept = try #require(all.first { $0.documentID == "p04000" })
        #expect(kept.data["text"]?.stringValue?.hasPrefix("word4000 ") == true, "the first copy is kept")
        let byAuthor = try await store.runQuery(
            store.collection("posts").whereField("author", isEqualTo: .string("a3")).order(by: "timestamp"))
        #expect(byAuthor.map(\.documentID) == all.filter { $0.data["author"] == .string("a3") }.map(\.documentID))
    }

    /// A segment whose lines are all intact and in order, its index damaged: rewritten from the
    /// lines as they come, with nothing moved aside.
    @Test func anIntactSegmentWithADamagedIndexIsRewrittenWithNothingAside() async throws {
        let env = try TestEnvironment()
        let (directory, _) = try await Self.store(env, count: 2_000)
        var index = try env.bytes(of: directory + "/seg-000001.idx")
        index[index.count - 3] ^= 0xFF
        try env.write(index, to: directory + "/seg-000001.idx")
        let doctor = StoreDoctor(directory: directory, indexes: [Self.posts])
        #expect(try doctor.check().map(\.reason) == ["the index does not match its segment"])
        let report = try doctor.repair()
        #expect(report.sideFiles.isEmpty && report.repaired.count == 1)
        #expect(try doctor.check().isEmpty)
        let store = try env.makeStore(directory: directory, indexes: [Self.posts], foldThreshold: 10_000)
        #expect(try await store.count(store.collection("posts").query) == 2_000)
    }
}
