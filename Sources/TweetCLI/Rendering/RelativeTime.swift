import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Twitter's short times: "now", "45s", "5m", "2h", "3d", then "Nov 3" (and the year when it
/// differs), in the local time zone (`TZ`). In another language than English, a date older than a
/// week is written as that language writes dates (`%x`), from the C library's locale data when
/// that locale is installed; the short times stay as they are.
struct RelativeTime {
    /// The language of the dates (`ko_KR`), or `nil` for the built-in English.
    let locale: String?
    /// The locale's `@` modifier (`latin` in `sr_RS.UTF-8@latin`), if any.
    let modifier: String?

    /// The language of `LC_ALL`, else `LC_TIME`, else `LANG`: `nil` for English, C and POSIX.
    init(environment: [String: String]) {
        let setting = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        let identifier = setting.map { String($0.prefix { $0 != "." && $0 != "@" }) } ?? "C"
        if identifier == "C" || identifier == "POSIX" || identifier.hasPrefix("en") {
            (locale, modifier) = (nil, nil)
        } else {
            locale = identifier
            modifier = setting?.firstIndex(of: "@").map { String(setting![$0...].dropFirst()) }
        }
    }

    init(locale: String?, modifier: String? = nil) {
        self.locale = locale
        self.modifier = modifier
    }

    func string(for date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        switch seconds {
        case ..<5: return "now"
        case ..<60: return "\(seconds)s"
        case ..<3600: return "\(seconds / 60)m"
        case ..<86_400: return "\(seconds / 3600)h"
        case ..<(7 * 86_400): return "\(seconds / 86_400)d"
        default:
            if let locale, let text = Self.localDateText(date, locale: locale, modifier: modifier) { return text }
            let (year, month, day) = Self.localDate(date)
            let sameYear = Self.localDate(now).year == year
            return sameYear ? "\(Self.months[month - 1]) \(day)" : "\(Self.months[month - 1]) \(day), \(year)"
        }
    }

    /// `date` as `locale` (with its `@modifier`) writes dates (`strftime`'s `%x`), or `nil` when
    /// that locale is not installed.
    static func localDateText(_ date: Date, locale: String, modifier: String? = nil) -> String? {
        let suffix = modifier.map { "@" + $0 } ?? ""
        guard (locale + suffix).utf8.allSatisfy({ $0 > 0x20 && $0 < 0x80 && $0 != 0x2F }),
            let handle = newlocale(LC_TIME_MASK, locale + ".UTF-8" + suffix, nil)
                ?? newlocale(LC_TIME_MASK, locale + suffix, nil)
        else { return nil }
        defer { freelocale(handle) }
        _ = timeZoneLoaded
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 128)
        let count = strftime_l(&buffer, buffer.count, "%x", &parts, handle)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The calendar date of `date` in the local time zone: localtime_r reads `TZ` (through tzset)
    /// with no locale data to load.
    static func localDate(_ date: Date) -> (year: Int, month: Int, day: Int) {
        _ = timeZoneLoaded
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// tzset once: each call stats /etc/localtime again.
    private static let timeZoneLoaded: Void = tzset()

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
