import Foundation

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
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let month = months[(parts.month ?? 1) - 1]
            let sameYear = calendar.component(.year, from: now) == parts.year
            return sameYear ? "\(month) \(parts.day ?? 1)" : "\(month) \(parts.day ?? 1), \(parts.year ?? 1970)"
        }
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
