import Synchronization
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// One line on standard error that redraws itself in place while a long command works: count,
/// rate and time left. It is drawn only when stderr is a terminal, so pipes, files and the tests
/// never see it, and at most ten times a second, so the work pays nothing measurable for it.
final class ProgressLine: Sendable {
    /// "Seeding", "Importing": what the line says the command is doing.
    let label: String
    /// What the count counts: "documents", "tweets".
    let unit: String
    /// Whether the line is drawn at all.
    let isShown: Bool

    private let clock: @Sendable () -> Double
    private let width: Int
    private let write: @Sendable (String) -> Void
    private let state: Mutex<(start: Double, lastDrawn: Double?, written: Bool)>

    /// A line for `label`, drawn when stderr is a terminal, at its width.
    convenience init(_ label: String, unit: String = "documents") {
        var size = winsize()
        let shown = isatty(STDERR_FILENO) == 1
        let measured = shown && ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
        let width = measured ? Int(size.ws_col) : 80
        self.init(label, unit: unit, shown: shown, width: width, clock: ProgressLine.monotonicSeconds) {
            Output.writeError($0)
        }
    }

    /// A line that writes through `write`, timed by `clock` (seconds), for tests.
    init(
        _ label: String, unit: String = "documents", shown: Bool, width: Int, clock: @escaping @Sendable () -> Double,
        write: @escaping @Sendable (String) -> Void
    ) {
        self.label = label
        self.unit = unit
        self.isShown = shown
        self.width = width
        self.clock = clock
        self.write = write
        state = Mutex((start: clock(), lastDrawn: nil, written: false))
    }

    /// Redraws the line for `progress`, unless it was drawn less than a tenth of a second ago (the
    /// last step of the work, ``WorkProgress/isFinishing``, is always drawn).
    func update(_ progress: WorkProgress) {
        guard isShown else { return }
        let now = clock()
        state.withLock { state in
            if let last = state.lastDrawn, now - last < 0.1, !progress.isFinishing { return }
            state.lastDrawn = now
            state.written = true
            let text = Self.text(label, unit: unit, progress, elapsed: now - state.start)
            // Wider than the terminal, the line would wrap and the carriage return could not redraw it.
            write("\r\u{1B}[K" + String(text.prefix(max(width - 1, 1))))
        }
    }

    /// Erases the line, so the command's own output starts on a clean one.
    func clear() {
        guard isShown else { return }
        state.withLock { state in
            guard state.written else { return }
            state.written = false
            write("\r\u{1B}[K")
        }
    }

    /// The words of the line: "Seeding: 120,000 of 300,000 tweets · 5,400/s · 33 s left".
    static func text(_ label: String, unit: String, _ progress: WorkProgress, elapsed: Double) -> String {
        if progress.isFinishing {
            return "\(label): writing \(grouped(progress.done)) \(unit) to the store…"
        }
        var parts = [
            progress.total.map { "\(grouped(progress.done)) of \(grouped($0)) \(unit)" }
                ?? "\(grouped(progress.done)) \(unit)"
        ]
        // A rate or a time left from the first moments would be noise.
        guard elapsed >= 0.5 else { return "\(label): " + parts.joined(separator: " · ") }
        parts.append("\(grouped(Int((Double(progress.done) / elapsed).rounded())))/s")
        if let share = progress.share {
            if progress.total == nil { parts.append("\(Int(share * 100))%") }
            if share > 0 { parts.append(timeLeft(elapsed * (1 - share) / share)) }
        }
        return "\(label): " + parts.joined(separator: " · ")
    }

    /// "33 s left", "4 min 5 s left", "2 h 10 min left".
    static func timeLeft(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        switch whole {
        case ..<60: return "\(max(whole, 0)) s left"
        case ..<3600: return "\(whole / 60) min \(whole % 60) s left"
        default: return "\(whole / 3600) h \(whole % 3600 / 60) min left"
        }
    }

    /// `number` with commas between thousands: "1,234,567".
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (position, digit) in digits.enumerated() {
            if position > 0 && (digits.count - position) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }

    private static let monotonicSeconds: @Sendable () -> Double = {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
