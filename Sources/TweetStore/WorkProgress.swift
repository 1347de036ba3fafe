/// How far a long piece of work has come: what a command line draws as a progress line. The
/// library only counts; the caller decides whether and how to show it.
public struct WorkProgress: Sendable, Equatable {
    /// Items done so far: documents made, read or written, files checked.
    public var done: Int
    /// Items in all, when known ahead.
    public var total: Int?
    /// The share of the work done, 0…1, when the items are not an even measure of it (a seed
    /// makes documents at uneven speeds, in passes of known length).
    public var fraction: Double?
    /// Whether every item is in and what remains is writing them out, whose length is not counted.
    public var isFinishing: Bool

    public init(done: Int, total: Int? = nil, fraction: Double? = nil, isFinishing: Bool = false) {
        self.done = done
        self.total = total
        self.fraction = fraction
        self.isFinishing = isFinishing
    }

    /// The share of the work done, from ``fraction`` or from ``done`` of ``total``.
    public var share: Double? {
        if let fraction { return min(max(fraction, 0), 1) }
        guard let total, total > 0 else { return nil }
        return min(Double(done) / Double(total), 1)
    }
}

/// Hears a long piece of work's ``WorkProgress``; called from whichever thread does the work, now
/// and then, never for every item.
public typealias ProgressHandler = @Sendable (WorkProgress) -> Void
