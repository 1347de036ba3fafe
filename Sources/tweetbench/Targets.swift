/// Issue 3's targets, and the check of one figure against them.
enum Targets {
    /// The data set size the targets are set for.
    static let referenceTweets = 1_000_000
    /// A command's median at most this many times the floor's median.
    static let floorRatio = 2.0
    /// A command's median at the large data set at most this many times its median at the small one.
    static let growth = 1.3
    /// A command's peak resident set size at most this, in MiB.
    static let peakRSSMiB = 64.0
    /// Seeding the large data set in at most this many seconds.
    static let seedSeconds = 60.0
    /// The store at most this many times the size of the plain JSON array.
    static let sizeRatio = 1.5

    /// "PASS", or "MISS" followed by the names of the targets missed.
    static func verdict(_ checks: [(name: String, met: Bool)]) -> String {
        let missed = checks.filter { !$0.met }.map(\.name)
        return missed.isEmpty ? "PASS" : "MISS " + missed.joined(separator: ", ")
    }
}
