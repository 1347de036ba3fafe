import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// A tagged index (``IndexDefinition/taggedField``): a scan of it with an `in` filter on the tagged
/// field passes over the entries whose tag no value has, and never over one that could match.
struct IndexTagTests {
    static let tagged = IndexDefinition("posts", ["timestamp"], tagging: "uid")
    static let untagged = IndexDefinition("posts", ["timestamp"])

    /// Uids of every kind a tag must get right: ASCII ones, ones past ASCII (U+212A KELVIN SIGN
    /// equals "K" as a `String`; "é" composed and decomposed are equal too), an empty one, a
    /// number, and none at all.
    static let uids: [JSONValue?] = [
        .string("ada"), .string("bob"), .string("cy"), .string("K"), .string("\u{212A}"), .string("caf\u{E9}"),
        .string("cafe\u{301}"), .string(""), .integer(7), nil,
    ]

    static func post(_ number: Int, uid: JSONValue?) -> (DocumentPath, JSONObject) {
        var data: JSONObject = ["timestamp": .integer(Int64(number % 37))]
        if let uid { data["uid"] = uid }
        return (DocumentPath(collection: "posts", documentID: String(format: "p%04d", number)), data)
    }

    /// Every `in` filter over the uids, in every layout (several segments, the journal), newest
    /// first, selects what a filter of every document by `String` equality selects.
    @Test(arguments: StoreLayout.localCases)
    func anInFilterOnTheTaggedFieldSelectsWhatAFilterOfEveryDocumentWould(_ layout: StoreLayout) async throws {
        let env = try TestEnvironment()
        let store = try env.makeStore(layout, indexes: [Self.tagged])
        var generator = SplitMix64(seed: 11)
        var documents: [(DocumentPath, JSONObject)] = []
        for number in 0..<240 {
            let post = Self.post(number, uid: Self.uids[Int(generator.next() % UInt64(Self.uids.count))])
            documents.append(post)
            try await store.setData(post.1, at: post.0)
        }
        let everything = documents.sorted {
            let (a, b) = ($0.1["timestamp"]!.integerValue!, $1.1["timestamp"]!.integerValue!)
            return a != b ? a > b : $0.0.documentID > $1.0.documentID
        }
        let values: [[String]] = [
            ["ada"], ["ada", "cy"], ["K"], ["\u{212A}"], ["caf\u{E9}"], ["cafe\u{301}", "bob"], [""], ["7"],
            ["nobody"], (0..<20).map { "u\($0)" } + ["bob"],
        ]
        for strings in values {
            let expected = everything.filter { post in
                guard case .string(let uid)? = post.1["uid"] else { return false }
                return strings.contains(uid)
            }.map(\.0.documentID)
            #expect(!expected.isEmpty || ["nobody", "7"].contains(strings[0]), "\(strings) matches something")
            let query = store.collection("posts").whereField("uid", in: strings.map { .string($0) })
                .order(by: "timestamp", descending: true)
            let all = try await query.getDocuments().map(\.documentID)
            #expect(all == expected, "\(strings) in \(layout)")
            let page = try await query.limit(to: 5).getDocuments().map(\.documentID)
            #expect(page == Array(expected.prefix(5)), "\(strings) in \(layout), a page")
        }
    }

    /// A scan of many blocks of tagged entries, in both directions, with a cursor and pages,
    /// finds what a filter of every document finds (the entries are read a block at a time).
    @Test func aScanOfManyBlocksOfEntriesMissesNothing() async throws {
        let env = try TestEnvironment()
        var generator = SplitMix64(seed: 5)
        let posts = (0..<3_000).map { number in
            Self.post(number, uid: generator.next() % 40 == 0 ? .string("rare") : Self.uids[number % 3])
        }
        let store = try env.makeStore(directory: env.storeDirectory, indexes: [Self.tagged], foldThreshold: 1000)
        try await store.importDocuments(posts)
        for descending in [true, false] {
            let expected = posts.filter { $0.1["uid"] == .string("rare") }.sorted {
                let (a, b) = ($0.1["timestamp"]!.integerValue!, $1.1["timestamp"]!.integerValue!)
                return a != b ? (a > b) == descending : ($0.0.documentID > $1.0.documentID) == descending
            }.map(\.0.documentID)
            #expect(expected.count > 40)
            let query = store.collection("posts").whereField("uid", in: [.string("rare")])
                .order(by: "timestamp", descending: descending)
            #expect(try await query.getDocuments().map(\.documentID) == expected, "descending \(descending)")
            var paged: [String] = []
            var page = try await query.limit(to: 7).getDocuments()
            while let last = page.last {
                paged += page.map(\.documentID)
                page = try await query.limit(to: 7).start(after: last).getDocuments()
            }
            #expect(paged == expected, "paged, descending \(descending)")
        }
    }

    /// The entries' tags in `store`'s only segment, each replaced by `body(tag)`.
    static func rewriteTags(in directory: String, _ body: (UInt32) -> UInt32) throws {
        let path = (directory as NSString).appendingPathComponent("seg-000001.idx")
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes[0..<8]) == Array("TWTIDX05".utf8))
        #expect(IndexFileBytes.number(bytes, 32) == 1)
        let entries = IndexFileBytes.number(bytes, SegmentFormat.headerSize + SegmentFormat.indexNameSize)
        let start = IndexFileBytes.secondaryStart(in: bytes)
        #expect(start + entries * 8 == bytes.count, "the tagged entries are 8 bytes each")
        for entry in 0..<entries {
            let at = start + entry * 8 + 4
            let tag = bytes[at..<(at + 4)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let new = body(tag)
            for byte in 0..<4 { bytes[at + byte] = UInt8(truncatingIfNeeded: new >> (8 * UInt32(byte))) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The tags are read, and decide: with every tag replaced by one no value has, an `in` filter
    /// finds nothing in the segment; with every tag 0 ("read the document"), it finds every match.
    @Test func theEntriesTagsDecideWhichLinesAreRead() async throws {
        let env = try TestEnvironment()
        let directory = env.storeDirectory
        let posts = (0..<60).map { Self.post($0, uid: .string(["ada", "bob", "cy"][$0 % 3])) }
        try await env.makeStore(directory: directory, indexes: [Self.tagged], foldThreshold: 1000)
            .importDocuments(posts)
        func adas() async throws -> Int {
            let store = try env.makeStore(directory: directory, indexes: [Self.tagged], foldThreshold: 1000)
            return try await store.collection("posts").whereField("uid", in: [.string("ada"), .string("cy")])
                .order(by: "timestamp", descending: true).getDocuments().count
        }
        #expect(try await adas() == 40)
        let ada = IndexDefinition.tag(of: .string("ada"))
        let unused = (1...UInt32(100)).first { ![ada, IndexDefinition.tag(of: .string("cy"))].contains($0) }!
        try Self.rewriteTags(in: directory) { _ in unused }
        #expect(try await adas() == 0, "every entry passed over by its tag")
        try Self.rewriteTags(in: directory) { _ in 0 }
        #expect(try await adas() == 40, "a tag of 0 has the line read")
    }

    /// An index file of version 02 (no ID keys, no tagged fields, 72-byte table entries) is still
    /// read: its entries are the ones a version 04 file of the same documents has.
    @Test func anIndexOfVersion02IsStillRead() throws {
        let env = try TestEnvironment()
        let directory = env.path("segments")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var generator = SplitMix64(seed: 3)
        let entries = (0..<101).map { number in
            let (path, data) = Self.post(number, uid: .string("u\(generator.next() % 9)"))
            return SegmentWriter.Entry(path: path, data: data)
        }
        let definitions = [Self.untagged, IndexDefinition("posts", ["uid", "timestamp"])]
        for name in ["seg-000001", "seg-000002"] {
            _ = try SegmentWriter(directory: directory, indexes: definitions).write(name: name, entries: entries)
        }
        // seg-000002 rewritten as version 02: its magic, no ID keys, and each table entry without a tagged field.
        let path = directory + "/seg-000002.idx"
        var bytes = IndexFileBytes.withoutIDKeys(try env.bytes(of: path))
        bytes.replaceSubrange(0..<8, with: Array("TWTIDX02".utf8))
        for index in (0..<definitions.count).reversed() {
            let tagStart =
                SegmentFormat.headerSize + index * SegmentFormat.unwindowedIndexTableEntrySize
                + SegmentFormat.untaggedIndexTableEntrySize
            #expect(bytes[tagStart..<(tagStart + SegmentFormat.taggedFieldSize)].allSatisfy { $0 == 0 })
            bytes.removeSubrange(tagStart..<(tagStart + SegmentFormat.taggedFieldSize))
        }
        try env.write(bytes, to: path)
        let current = try Segment(directory: directory, name: "seg-000001")
        let old = try Segment(directory: directory, name: "seg-000002")
        for definition in definitions {
            #expect(old.hasIndex(definition) && old.ordinalTable(definition)?.taggedField == nil)
            #expect(old.entryCount(definition) == entries.count)
            let ordinals = { (segment: Segment) in
                try (0..<entries.count).map { try segment.ordinal(definition, $0) }
            }
            #expect(try ordinals(old) == ordinals(current), "\(definition.name)")
            #expect(Set(try ordinals(old)) == Set(0..<entries.count))
        }
        for entry in entries { #expect(try old.find(entry.path) != nil) }
    }

    /// A tagged index's entries carry each document's tag, and the same ordinals as the untagged index.
    @Test func aTaggedIndexCarriesEachDocumentsTag() throws {
        let env = try TestEnvironment()
        let directory = env.path("segments")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let entries = (0..<50).map { number in
            let (path, data) = Self.post(number, uid: Self.uids[number % Self.uids.count])
            return SegmentWriter.Entry(path: path, data: data)
        }
        _ = try SegmentWriter(directory: directory, indexes: [Self.tagged]).write(name: "seg-000001", entries: entries)
        _ = try SegmentWriter(directory: directory, indexes: [Self.untagged]).write(
            name: "seg-000002", entries: entries)
        let tagged = try Segment(directory: directory, name: "seg-000001")
        let untagged = try Segment(directory: directory, name: "seg-000002")
        let table = try #require(tagged.ordinalTable(Self.tagged))
        #expect(table.taggedField == "uid" && untagged.ordinalTable(Self.untagged)?.taggedField == nil)
        for position in 0..<entries.count {
            let (ordinal, tag) = try tagged.taggedOrdinal(in: table, position)
            #expect(ordinal == (try untagged.ordinal(Self.untagged, position)))
            let uid = entries[ordinal].data?["uid"]
            #expect(tag == IndexDefinition.tag(of: uid))
            let isASCIIString = uid?.stringValue.map { $0.utf8.allSatisfy { $0 < 0x80 } } ?? false
            #expect((tag != 0) == isASCIIString, "\(String(describing: uid))")
        }
    }
}

/// An index range (``Segment/range(_:_:)``) and bound (``Segment/bound(_:_:upper:in:)``) are the
/// ones a scan of every entry finds, whatever the keys look like, with the entries' windows
/// (version 05) or without them (04); an absent prefix gives an empty range where it would go.
struct IndexRangeTests {
    /// The keys' owners in each shape: random uids, uids sharing a long prefix, numbers among the
    /// strings, a collection index whose paths share `users/`, and values around a window's four
    /// bytes (short strings, zero bytes, nulls, booleans, arrays, objects).
    static func owners(shape: Int, _ word: (Int) -> String) -> [JSONValue] {
        (0..<60).map { number -> JSONValue in
            switch shape {
            case 1: return .string("sameprefix-" + word(1 + number % 3))
            case 2: return number % 7 == 0 ? .integer(Int64(number)) : .string(word(8))
            case 4:
                let odd: [JSONValue] = [
                    .null, .bool(false), .bool(true), .string(""), .string("a"), .string("ab"), .string("abc"),
                    .string("abcd"), .string("a\u{0}"), .string("a\u{0}\u{0}b"), .string("\u{0}"), .string("ab\u{1}"),
                    .double(-0.5), .integer(0), .array([.string("a")]), .array([]), .object(["k": .string(word(2))]),
                ]
                return odd[number % odd.count]
            default: return .string(word(20))
            }
        }
    }

    /// Every prefix, present or not, of an index over owners of each shape.
    @Test(arguments: [0, 1, 2, 3, 4])
    func everyPrefixsRangeIsTheEntriesWithIt(shape: Int) throws {
        let env = try TestEnvironment()
        let directory = env.path("segments")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var generator = SplitMix64(seed: UInt64(shape) + 20)
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        func word(_ length: Int) -> String {
            String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
        }
        let owners = Self.owners(shape: shape, word)
        var entries: [SegmentWriter.Entry] = []
        for number in 0..<1_500 {
            let owner = owners[Int(generator.next() % UInt64(owners.count))]
            let collection = shape == 3 ? "users/\(owner.stringValue!)/likes" : "posts"
            entries.append(
                SegmentWriter.Entry(
                    path: DocumentPath(collection: collection, documentID: String(format: "d%05d", number)),
                    data: ["owner": owner, "timestamp": .integer(Int64(generator.next() % 50))]))
        }
        entries.sort { SegmentFormat.comparePaths($0.path, $1.path) == .orderedAscending }
        let definition =
            shape == 3 ? IndexDefinition("likes", ["timestamp"]) : IndexDefinition("posts", ["owner", "timestamp"])
        _ = try SegmentWriter(directory: directory, indexes: [definition]).write(name: "seg-000001", entries: entries)
        // seg-000002: the same segment as version 04 wrote it, without windows; seg-000003: with
        // windows damaged (every third one random), which may cost reads but never a wrong answer.
        var damage = SplitMix64(seed: UInt64(shape))
        let index = try env.bytes(of: directory + "/seg-000001.idx")
        let rewritten = [
            IndexFileBytes.withoutWindows(index),
            IndexFileBytes.rewritingWindows(index) { $0 % 3 == 0 ? UInt32(truncatingIfNeeded: damage.next()) : $1 },
        ]
        for (name, bytes) in zip(["seg-000002", "seg-000003"], rewritten) {
            try env.write(try env.bytes(of: directory + "/seg-000001.jsonl"), to: directory + "/\(name).jsonl")
            try env.write(bytes, to: directory + "/\(name).idx")
        }
        let windowed = try Segment(directory: directory, name: "seg-000001")
        let plain = try Segment(directory: directory, name: "seg-000002")
        let damaged = try Segment(directory: directory, name: "seg-000003")
        #expect(windowed.ordinalTable(definition)?.shared != nil && plain.ordinalTable(definition)?.shared == nil)
        let keys = try (0..<windowed.entryCount(definition)).map { position -> [JSONValue] in
            #expect(try plain.ordinal(definition, position) == windowed.ordinal(definition, position))
            let entry = entries[try windowed.ordinal(definition, position)]
            return definition.key(
                collection: entry.path.collection, documentID: entry.path.documentID, data: entry.data!)!
        }
        var prefixes: [[JSONValue]] = owners.map {
            shape == 3 ? [.string("users/\($0.stringValue!)/likes")] : [.string("posts"), $0]
        }
        prefixes += [
            [.string("posts"), .string("")], [.string("posts"), .string("zzzz")], [.string("posts"), .string("M")],
            [.string("posts"), .string("a\u{0}\u{0}")], [.string("posts"), .string("abcde")],
            [.string("posts"), .string("ab\u{0}")], [.string("posts"), .bool(true)], [.string("posts"), .null],
            [.string("posts"), .array([.string("a"), .null])], [.string("posts"), .double(0.5)],
        ]
        prefixes += [
            [.string("users/")], [.string("users/zz/likes")], [.string("a")], [.string("posts"), .integer(3)],
            [.string("post")], [.string("postsa")], [],
        ]
        // Lines read by the ranges alone, of each segment.
        var rangeLines = [0, 0, 0]
        for (number, segment) in [windowed, plain, damaged].enumerated() {
            for prefix in prefixes {
                let expected = keys.indices.filter { compareKeys(keys[$0], prefix) == .orderedSame }
                let before = segment.linesRead
                let found = try segment.range(definition, prefix)
                rangeLines[number] += segment.linesRead - before
                if expected.isEmpty {
                    #expect(found.isEmpty, "\(prefix)")
                    let insertion = keys.firstIndex { compareKeys($0, prefix) == .orderedDescending } ?? keys.count
                    #expect(found.lowerBound == insertion, "\(prefix) would go at \(insertion)")
                } else {
                    #expect(Array(found) == expected, "\(prefix)")
                }
                // A timeline's bounds: the entries of the prefix below and above a time (not among
                // objects, which all compare as equal while the index orders them by their text).
                let holdsObject = prefix.contains { if case .object = $0 { true } else { false } }
                for time in [-1, 0, 17, 49, 50] where !prefix.isEmpty && !holdsObject {
                    let key = prefix + [.integer(Int64(time))]
                    for upper in [false, true] {
                        let bound = try segment.bound(definition, key, upper: upper, in: found)
                        let wanted =
                            found.first { position in
                                let order = compareKeys(keys[position], key)
                                return order == .orderedDescending || (!upper && order == .orderedSame)
                            } ?? found.upperBound
                        #expect(bound == wanted, "\(key) upper: \(upper)")
                    }
                }
            }
        }
        // The windows spare lines: the probes outside a prefix's entries are ordered without one
        // (the bounds, inside a prefix's entries, are the lines' to decide either way).
        if shape == 0 || shape == 3 {
            #expect(rangeLines[0] * 3 < rangeLines[1] * 2, "\(rangeLines)")
        }
        #expect(windowed.linesRead <= plain.linesRead, "\(windowed.linesRead) vs \(plain.linesRead)")
    }
}
