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

    /// The calendar arithmetic gives what the C library's `timegm` gives, for any day of years 0
    /// to 9999 (leap days and a leap second included), and no day a month does not have.
    @Test func secondsAreTheCLibrarysForEveryDay() {
        var random = SplitMix64(seed: 13)
        let fixed = [(2000, 2, 29), (1900, 2, 28), (2024, 2, 29), (1969, 12, 31), (1, 1, 1), (9999, 12, 31), (0, 3, 1)]
        let days =
            fixed
            + (0..<5_000).map { _ in
                (Int(random.next() % 10_000), Int(random.next() % 12) + 1, Int(random.next() % 31) + 1)
            }
        for (year, month, day) in days {
            let hour = Int(random.next() % 24)
            let minute = Int(random.next() % 60)
            let second = Int(random.next() % 61)
            var parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mon = Int32(month - 1)
            parts.tm_mday = Int32(day)
            parts.tm_hour = Int32(hour)
            parts.tm_min = Int32(minute)
            parts.tm_sec = Int32(second)
            let expected = Int(timegm(&parts))
            // timegm moves a day past its month's end into the next month (checked at noon, where
            // a leap second cannot carry it); the parser refuses that day.
            var noon = tm()
            noon.tm_year = Int32(year - 1900)
            noon.tm_mon = Int32(month - 1)
            noon.tm_mday = Int32(day)
            noon.tm_hour = 12
            _ = timegm(&noon)
            let exists = noon.tm_mday == Int32(day)
            let seconds = Timestamp.secondsSince1970(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            #expect(seconds == (exists ? expected : nil), "\(year)-\(month)-\(day) \(hour):\(minute):\(second)")
        }
        #expect(Timestamp.date(from: "2026-02-29T00:00:00.000Z") == nil)
        #expect(Timestamp.date(from: "2024-02-29T00:00:00.000Z")?.timeIntervalSince1970 == 1_709_164_800)
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
