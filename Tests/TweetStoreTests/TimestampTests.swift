import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct TimestampTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_796_031_660.123, "2026-11-30T09:41:00.123Z"),
        (951_782_400, "2000-02-29T00:00:00.000Z"),
        (1_704_067_199.999, "2023-12-31T23:59:59.999Z"),
        (1.9996, "1970-01-01T00:00:02.000Z"),
        (-0.001, "1969-12-31T23:59:59.999Z"),
        (-86_400.5, "1969-12-30T23:59:59.500Z"),
        (253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
    ])
    func formatsUTCWithMilliseconds(_ seconds: TimeInterval, _ expected: String) {
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test(arguments: [
        ("2026-11-30T09:41:00.123Z", 1_796_031_660.123),
        ("2026-11-30T09:41:00Z", 1_796_031_660),
        ("2026-11-30T09:41:00.5Z", 1_796_031_660.5),
        ("2026-11-30T09:41:00.123456Z", 1_796_031_660.123456),
        ("1970-01-01T00:00:00.000Z", 0),
        ("1969-12-31T23:59:59.999Z", -0.001),
    ])
    func parsesWithOrWithoutAFraction(_ text: String, _ seconds: TimeInterval) throws {
        let date = try #require(Timestamp.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: [
        "", "2026-11-30", "2026-11-30T09:41:00", "2026-11-30 09:41:00Z", "2026-11-30T09:41:00+01:00",
        "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-32T00:00:00Z",
        "2026-11-30T24:00:00Z", "2026-11-30T09:60:00Z", "2026-11-30T09:41:61Z", "2026-11-30T09:41:00.Z",
        "2026-11-30T09:41:00,123Z", "2026-1a-30T09:41:00Z", "x026-11-30T09:41:00Z", "2026-11-30T09:41:00.12aZ",
        "2026/11/30T09:41:00Z", "2026-11-30t09:41:00z",
    ])
    func rejectsAnythingElse(_ text: String) {
        #expect(Timestamp.date(from: text) == nil)
    }

    @Test func formattingThenParsingKeepsEveryMillisecond() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let milliseconds = Int64(random.next() % 4_102_444_800_000)  // 1970 up to 2100
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = Timestamp.string(from: date)
            let parsed = try #require(Timestamp.date(from: text), "\(text)")
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == milliseconds, "\(text)")
            #expect(Timestamp.string(from: parsed) == text)
        }
    }

    @Test func byteOrderIsTimeOrder() {
        var random = SplitMix64(seed: 11)
        var milliseconds = (0..<2_000).map { _ in Int64(random.next() % 4_102_444_800_000) }
        // Neighbours across carries: a second, a minute, a day, a year.
        milliseconds += [999, 1_000, 59_999, 60_000, 86_399_999, 86_400_000, 946_684_799_999, 946_684_800_000]
        let texts = milliseconds.sorted().map { Timestamp.string(from: Date(timeIntervalSince1970: Double($0) / 1000)) }
        for (earlier, later) in zip(texts, texts.dropFirst()) {
            #expect(!later.utf8.lexicographicallyPrecedes(earlier.utf8), "\(earlier) should sort before \(later)")
        }
        #expect(Set(texts.map(\.utf8.count)) == [24])
    }
}
