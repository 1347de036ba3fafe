import Foundation
import Synchronization

/// A clock that stands still until a test moves it, so the times a store stamps are known.
package final class TestClock: Sendable {
    /// 2026-11-30T09:41:00.000Z.
    package static let start = Date(timeIntervalSince1970: 1_796_031_660)

    private let current: Mutex<Date>

    package init(_ start: Date = TestClock.start) {
        current = Mutex(start)
    }

    /// The time the clock shows.
    package var now: Date { current.withLock { $0 } }

    /// Moves the clock by `seconds` (backwards when negative).
    package func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`.
    package func set(_ date: Date) {
        current.withLock { $0 = date }
    }

    /// The clock as a store takes it.
    package var reading: @Sendable () -> Date { { [self] in now } }
}
