import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// Damaged `.idx` files, flipped and overwritten byte by byte: every read, `doctor` and
/// `doctor --repair` must fail cleanly or answer rightly, never trap (a trap would end this test
/// process), and repair must give back every document, since the segment itself is intact.
@Suite(.serialized)
struct MalformedIndexTests {
    let env: TestEnvironment
    let pristine: String
    let documents: [DocumentPath: JSONObject]

    init() async throws {
        env = try TestEnvironment()
        pristine = env.path("pristine")
        let store = try env.makeStore(directory: pristine, foldThreshold: 4)
        var documents: [DocumentPath: JSONObject] = [:]
        for number in 0..<24 {
            let path = DocumentPath(collection: "tweets", documentID: String(format: "t%03d", number))
            let fields: JSONObject = [
                "uid": .string("u\(number % 3)"), "caption": .string("tweet \(number)"), "likes": .integer(0),
                "timestamp": .string(Timestamp.string(from: Date(timeIntervalSince1970: Double(number)))),
                "replyToId": number % 4 == 0 ? .string("t000") : .null,
            ]
            try await store.setData(fields, at: path)
            documents[path] = fields
        }
        self.documents = documents
    }

    /// The pristine store copied to a new directory, with `mutate` applied to its first index file.
    func damagedCopy(_ name: String, _ mutate: (inout [UInt8]) -> Void) throws -> String {
        let directory = env.path(name)
        try FileManager.default.copyItem(atPath: pristine, toPath: directory)
        let index = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted().first { $0.hasSuffix(".idx") })
        let path = directory + "/" + index
        var bytes = try env.bytes(of: path)
        mutate(&bytes)
        try env.write(bytes, to: path)
        return directory
    }

    /// Reads through every path a command takes, accepting an error but not a wrong answer.
    func exercise(_ directory: String) async {
        let store: LocalDocumentStore
        do {
            store = try LocalDocumentStore(directory: directory, indexes: AppServices.indexes, foldThreshold: 4)
        } catch {
            return
        }
        for (path, fields) in documents.prefix(4) {
            if let found = try? await store.getDocument(path) {  // An error is an acceptable answer here.
                #expect(found.data == fields)
            }
        }
        let tweets = store.collection("tweets")
        for query in [
            tweets.order(by: "timestamp", descending: true).limit(to: 5),
            tweets.whereField("uid", isEqualTo: .string("u1")).order(by: "timestamp", descending: true),
            tweets.whereField("replyToId", isEqualTo: .string("t000")),
        ] {
            _ = try? await store.runQuery(query)  // Any error is acceptable; a trap is not.
            _ = try? await store.count(query)
        }
    }

    /// `doctor`, then `doctor --repair`, then every document read back.
    func repairGivesEverythingBack(_ directory: String) async throws {
        let doctor = StoreDoctor(directory: directory, indexes: AppServices.indexes)
        _ = try? doctor.check()  // What it reports is checked by the doctor's own tests; here: no trap.
        _ = try doctor.repair()
        let store = try LocalDocumentStore(directory: directory, indexes: AppServices.indexes, foldThreshold: 4)
        for (path, fields) in documents {
            #expect(try await store.getDocument(path)?.data == fields, "\(path) after repairing \(directory)")
        }
        #expect(try await store.count(store.collection("tweets").query) == documents.count)
    }

    @Test func everyHeaderByteFlippedOrOverwrittenFailsCleanlyAndRepairs() async throws {
        var cases = 0
        for offset in 0..<48 {
            for (label, change) in [("flip", { (byte: inout UInt8) in byte ^= 0x80 }), ("ff", { $0 = 0xFF })] {
                let directory = try damagedCopy("header-\(offset)-\(label)") { bytes in
                    if offset < bytes.count { change(&bytes[offset]) }
                }
                await exercise(directory)
                try await repairGivesEverythingBack(directory)
                cases += 1
            }
        }
        #expect(cases == 96)
    }

    @Test func seededRandomDamageAnywhereFailsCleanlyAndRepairs() async throws {
        var random = SplitMix64(seed: 7)
        for run in 0..<60 {
            let directory = try damagedCopy("random-\(run)") { bytes in
                for _ in 0..<(1 + Int(random.next() % 4)) {
                    let offset = Int(random.next() % UInt64(bytes.count))
                    bytes[offset] = UInt8(truncatingIfNeeded: random.next())
                }
                if random.next() % 5 == 0 { bytes.removeLast(Int(random.next() % UInt64(bytes.count))) }
            }
            await exercise(directory)
            try await repairGivesEverythingBack(directory)
        }
    }
}
