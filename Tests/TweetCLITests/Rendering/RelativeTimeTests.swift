import Foundation
import Testing
import TweetTestSupport

@testable import TweetCLI

#if canImport(Glibc)
    import Glibc
#endif

/// TZ is the process's, so these run one at a time.
@Suite(.serialized)
struct RelativeTimeTests {
    let english = RelativeTime(locale: nil)
    let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18

    func withTimeZone<T>(_ zone: String, _ body: () -> T) -> T {
        // Other suites start child processes meanwhile, which read the environment set here.
        ProcessEnvironment.gate.withLock { _ in
            let previous = getenv("TZ").map { String(cString: $0) }
            setenv("TZ", zone, 1)
            tzset()
            defer {
                if let previous { setenv("TZ", previous, 1) } else { unsetenv("TZ") }
                tzset()
            }
            return body()
        }
    }

    @Test func datesAreInTheLocalTimeZone() throws {
        let midnightUTC = try Date("2026-11-01T00:00:00Z", strategy: .iso8601)
        #expect(withTimeZone("America/Los_Angeles") { english.string(for: midnightUTC, now: now) } == "Oct 31")
        #expect(withTimeZone("UTC") { english.string(for: midnightUTC, now: now) } == "Nov 1")
        #expect(withTimeZone("Asia/Tokyo") { english.string(for: midnightUTC, now: now) } == "Nov 1")
    }

    @Test(arguments: [(2, "now"), (45, "45s"), (300, "5m"), (7200, "2h"), (3 * 86_400, "3d")])
    func recentTimesAreShort(_ seconds: Double, _ expected: String) {
        #expect(english.string(for: now.addingTimeInterval(-seconds), now: now) == expected)
    }

    @Test func anotherYearIsNamed() throws {
        let old = try Date("2024-03-05T12:00:00Z", strategy: .iso8601)
        #expect(withTimeZone("UTC") { english.string(for: old, now: now) } == "Mar 5, 2024")
    }

    @Test func theLanguageComesFromTheEnvironment() {
        #expect(RelativeTime(environment: ["LANG": "ko_KR.UTF-8"]).locale == "ko_KR")
        #expect(RelativeTime(environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": "C"]).locale == nil)
        #expect(RelativeTime(environment: ["LANG": "en_GB.UTF-8"]).locale == nil)
        #expect(RelativeTime(environment: ["LANG": "sr_RS.UTF-8@latin"]).modifier == "latin")
        #expect(RelativeTime(environment: ["LANG": "sr_RS.UTF-8"]).modifier == nil)
        #expect(RelativeTime(environment: [:]).locale == nil)
        let korean = RelativeTime(environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.string(for: now.addingTimeInterval(-7200), now: now) == "2h")
    }

    /// A date older than a week is written as the locale writes dates, from the C library's data;
    /// a locale that is not installed (or is not a name) gets the English date.
    @Test func oldDatesFollowTheLocaleWhenItIsInstalled() throws {
        let old = try Date("2024-03-05T12:00:00Z", strategy: .iso8601)
        #expect(withTimeZone("UTC") { RelativeTime.localDateText(old, locale: "C") } == "03/05/24")
        #expect(RelativeTime.localDateText(old, locale: "xx_NOWHERE") == nil)
        #expect(RelativeTime.localDateText(old, locale: "../../etc/passwd") == nil)
        let missing = RelativeTime(environment: ["LANG": "xx_NOWHERE.UTF-8"])
        #expect(withTimeZone("UTC") { missing.string(for: old, now: now) } == "Mar 5, 2024")
    }
}
