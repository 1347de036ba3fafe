import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Twitter's short times: "now", "45s", "5m", "2h", "3d", then "Nov 3" (and the year when it differs).
enum RelativeTime {
    static func string(for date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        switch seconds {
        case ..<5: return "now"
        case ..<60: return "\(seconds)s"
        case ..<3600: return "\(seconds / 60)m"
        case ..<86_400: return "\(seconds / 3600)h"
        case ..<(7 * 86_400): return "\(seconds / 86_400)d"
        default:
            // gmtime_r rather than Calendar: no time-zone or locale data to load for one date.
            let (year, month, day) = civilDate(date)
            let sameYear = civilDate(now).year == year
            return sameYear ? "\(months[month - 1]) \(day)" : "\(months[month - 1]) \(day), \(year)"
        }
    }

    /// The UTC calendar date of `date`.
    private static func civilDate(_ date: Date) -> (year: Int, month: Int, day: Int) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
