import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The store's textual timestamp: ISO 8601 in UTC with milliseconds ("2026-11-30T09:41:00.123Z").
///
/// Fixed width, so the byte order of two timestamps is their time order: the store sorts them
/// as strings, as Firestore sorts its `Timestamp` values.
package enum Timestamp {
    package static func string(from date: Date) -> String {
        var milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        if !milliseconds.isFinite { milliseconds = 0 }
        let total = Int64(milliseconds)
        var seconds = time_t(total >= 0 ? total / 1000 : (total - 999) / 1000)
        let millis = Int(total - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Written digit by digit: String(format:) costs more than the rest of a page's formatting.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = max(0, value)
            for _ in 0..<count {
                bytes.append(UInt8(48 + (rest / divisor) % 10))
                rest %= divisor
                divisor = max(1, divisor / 10)
            }
        }
        digits(Int(parts.tm_year) + 1900, 4)
        bytes.append(45)
        digits(Int(parts.tm_mon) + 1, 2)
        bytes.append(45)
        digits(Int(parts.tm_mday), 2)
        bytes.append(84)
        digits(Int(parts.tm_hour), 2)
        bytes.append(58)
        digits(Int(parts.tm_min), 2)
        bytes.append(58)
        digits(Int(parts.tm_sec), 2)
        bytes.append(46)
        digits(millis, 3)
        bytes.append(90)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses "YYYY-MM-DDTHH:MM:SS[.fff]Z"; `nil` for anything else.
    ///
    /// Read in place from the string's bytes: every listing parses a timestamp for each row it
    /// reads, and a user's filters one for each account they block or mute.
    package static func date(from string: String) -> Date? {
        var string = string
        return string.withUTF8 { date(fromBytes: $0) }
    }

    private static func date(fromBytes bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, range.count <= 18 else { return nil }
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58,
            bytes[16] == 58, bytes[bytes.count - 1] == 90,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == 46, bytes.count > 21, let digits = number(20..<(bytes.count - 1)) else { return nil }
            let places = bytes.count - 21
            fraction = Double(digits) / (places == 3 ? 1000 : pow(10, Double(places)))
        } else if bytes[19] != 90 {
            return nil
        }
        guard
            let seconds = secondsSince1970(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// The decimal number that the ASCII digits `bytes[range]` spell; `nil` if one is not a digit
    /// or the range runs past the end. For the textual times' fixed-width fields.
    package static func decimal(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count, range.count <= 18 else { return nil }
        var value = 0
        for byte in bytes[range] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    /// The seconds since 1970 of a UTC date and time (month 1–12), as `timegm` counts them: for
    /// every parser of a textual time (this one, twtxt's RFC 3339, Twitter's `created_at`).
    /// `nil` for a day the month does not have (February 30th, or the 29th out of a leap year).
    package static func secondsSince1970(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)
        -> Int?
    {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays =
            month == 2 ? (leap ? 29 : 28) : (month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31)
        guard (1...12).contains(month), (1...monthDays).contains(day) else { return nil }
        return daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// The days from 1970-01-01 to a date of the proleptic Gregorian calendar, counted in whole
    /// 400-year eras of 146,097 days, each from a March 1st so that a leap day ends its year: the
    /// arithmetic `timegm` does, without its calls (a page's rows each parse a time).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        // 719,468 days from 0000-03-01 to 1970-01-01.
        return era * 146_097 + dayOfEra - 719_468
    }
}
