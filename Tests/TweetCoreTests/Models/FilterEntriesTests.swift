import Foundation
import Testing
import TweetStore

@testable import TweetCore

/// A filter's accounts kept as sorted lines in one string answer as a dictionary of them would:
/// found by halves, written back in order, and never trusting the order or lines a document has.
struct FilterEntriesTests {
    static func date(_ seconds: Int) -> Date { Date(timeIntervalSince1970: Double(seconds)) }

    @Test(arguments: [0, 1, 2, 7, 300])
    func entriesAnswerAsADictionaryDoes(_ size: Int) {
        var generator = SplitMix64(seed: UInt64(size))
        // Uids of several lengths, some sharing long prefixes, one not ASCII.
        let uids = (0..<size).map { index in
            ["", "a", "uid-with-a-long-shared-prefix-", "\u{E9}"][index % 4] + String(index * 7919 % 10_007)
        }
        var entries = FilterEntries<Date>()
        var model: [String: Date] = [:]
        for uid in uids.shuffled(using: &generator) {
            let date = Self.date(Int.random(in: 0...2_000_000_000, using: &generator))
            entries[uid] = date
            model[uid] = date
        }
        #expect(entries.count == model.count && entries.all == model)
        for uid in uids { #expect(entries[uid] == model[uid], "\(uid)") }
        for absent in ["", "0", "a", "uid-with-a-long-shared-prefix", "zzz", "\u{E9}", "\u{FFFF}"]
        where model[absent] == nil {
            #expect(entries[absent] == nil, "\(absent)")
        }
        // Read back from the document's value, each is found the same way.
        let read = FilterEntries<Date>(entries.written)
        #expect(read.dropped == 0 && read == entries)
        for uid in uids.prefix(50) {
            #expect(read[uid] == model[uid])
            var removing = read
            #expect(removing.removeValue(forKey: uid) == model[uid])
            #expect(removing[uid] == nil && removing.count == model.count - 1)
        }
    }

    @Test func linesOutOfOrderTwiceOrDamagedAreLeftOutAndTheRestFound() {
        let since = "2026-12-01T10:00:00.000Z"
        let until = "2026-12-08T10:00:00.000Z"
        let text = [
            "carol \(since)", "alice \(since) \(until)", "bob \(since)", "alice \(since)", "dave not-a-time",
            "", " \(since)", "erin", "frank \(since) \(until) \(until)",
        ].joined(separator: "/")
        let mutes = FilterEntries<ViewerFilters.Mute>(.string(text))
        #expect(Set(mutes.keys) == ["alice", "bob", "carol"])
        #expect(mutes.dropped == 6)
        #expect(mutes["alice"]?.until == Timestamp.date(from: until))
        #expect(mutes["dave"] == nil && mutes["erin"] == nil && mutes["frank"] == nil)
        // A trailing separator is not a line in order either.
        #expect(FilterEntries<Date>(.string("alice \(since)/")).dropped == 1)
        #expect(FilterEntries<Date>(.string("alice \(since)/bob \(since)")).dropped == 0)
    }

    @Test func anObjectByUidAsEarlierVersionsWroteItIsRead() {
        let object: JSONObject = [
            "bob": .string("2026-12-01T10:00:00.000Z"), "alice": .string("2026-11-01T10:00:00.000Z"),
            "eve": .integer(3),
        ]
        let blocking = FilterEntries<Date>(.object(object))
        #expect(blocking.dropped == 1 && blocking.count == 2)
        #expect(blocking["alice"] == Timestamp.date(from: "2026-11-01T10:00:00.000Z"))
        #expect(blocking.written == .string("alice 2026-11-01T10:00:00.000Z/bob 2026-12-01T10:00:00.000Z"))
        let filters = ViewerFilters(fields: ["blocking": .object(object)])
        #expect(filters.isBlocked("bob") && !filters.isBlocked("eve") && filters.droppedEntries == 1)
    }
}
