/// The timed runs of one command on one data set: wall times and peak memory.
struct Timings {
    /// Each run's wall time, in milliseconds, in run order.
    private(set) var milliseconds: [Double] = []
    /// The largest peak resident set size of any run, in KiB.
    private(set) var peakRSSKiB = 0
    /// What the runs read from the disk rather than the page cache, in 512-byte blocks, and the
    /// page faults they waited on the disk for: both 0 when the data stayed cached.
    private(set) var blocksRead = 0
    private(set) var majorFaults = 0

    /// Adds a finished run.
    mutating func append(_ result: ChildResult) {
        milliseconds.append(Double(result.wallNanoseconds) / 1e6)
        peakRSSKiB = max(peakRSSKiB, result.peakRSSKiB)
        blocksRead += result.blocksRead
        majorFaults += result.majorFaults
    }

    /// The median wall time (the mean of the middle two for an even count), or 0 with no runs.
    var median: Double { Self.median(of: milliseconds) }

    /// The median of run `i`'s time over `base`'s run `i`, for every run both have, or `nil` when
    /// they have none in common or a base run took no time.
    func pairedRatio(to base: Timings) -> Double? {
        let ratios = zip(milliseconds, base.milliseconds).map { $0 / $1 }
        guard !ratios.isEmpty, ratios.allSatisfy(\.isFinite) else { return nil }
        return Self.median(of: ratios)
    }

    private static func median(of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The fastest run, or 0 with no runs.
    var minimum: Double { milliseconds.min() ?? 0 }

    /// The slowest run, or 0 with no runs.
    var maximum: Double { milliseconds.max() ?? 0 }

    /// The peak resident set size in MiB.
    var peakRSSMiB: Double { Double(peakRSSKiB) / 1024 }
}
