import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Twitter's short times: "now", "45s", "5m", "2h", "3d", then "Nov 3" (and the year when it
/// differs), in the local time zone (`TZ`). In another language than English, Foundation's
/// formatters say it in that language ("2시간 전").
struct RelativeTime {
    /// The locale to speak, or `nil` for the built-in English (which needs no locale data).
    let locale: Locale?

    /// The language of `LC_ALL`, else `LC_TIME`, else `LANG`: `nil` for English, C and POSIX.
    init(environment: [String: String]) {
        let setting = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        let identifier = setting.map { String($0.prefix { $0 != "." && $0 != "@" }) } ?? "C"
        if identifier == "C" || identifier == "POSIX" || identifier.hasPrefix("en") {
            locale = nil
        } else {
            locale = Locale(identifier: identifier)
        }
    }

    init(locale: Locale?) {
        self.locale = locale
    }

    func string(for date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        if let locale {
            if seconds < 7 * 86_400 {
                // Anchored at the tweet's date, formatted at `now`: "2 hours ago", not "in 2 hours".
                let style = Date.AnchoredRelativeFormatStyle(
                    anchor: min(date, now), presentation: .numeric, unitsStyle: .abbreviated, locale: locale)
                return style.format(now)
            }
            let sameYear = Self.localDate(now).year == Self.localDate(date).year
            let style =
                sameYear
                ? Date.FormatStyle().month(.abbreviated).day() : Date.FormatStyle().year().month(.abbreviated).day()
            return date.formatted(style.locale(locale))
        }
        switch seconds {
        case ..<5: return "now"
        case ..<60: return "\(seconds)s"
        case ..<3600: return "\(seconds / 60)m"
        case ..<86_400: return "\(seconds / 3600)h"
        case ..<(7 * 86_400): return "\(seconds / 86_400)d"
        default:
            let (year, month, day) = Self.localDate(date)
            let sameYear = Self.localDate(now).year == year
            return sameYear ? "\(Self.months[month - 1]) \(day)" : "\(Self.months[month - 1]) \(day), \(year)"
        }
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
