/// The targets an engine is held to, and the check of one figure against them.
struct Targets: Equatable {
    /// The data set size the targets are set for.
    static let referenceTweets = 1_000_000
    /// A command's median at the large data set at most this many times its median at the small one.
    static let growth = 1.3
    /// A command's peak resident set size at most this, in MiB.
    static let peakRSSMiB = 64.0

    /// The issue that set them, as the report cites it.
    let issue: Int
    /// A command's median at most this many times the floor's median.
    let floorRatio: Double
    /// Seeding the large data set in at most this many seconds.
    let seedSeconds: Double
    /// The store at most this many times the size of the plain JSON array, when there is a target.
    let sizeRatio: Double?

    /// "PASS", or "MISS" followed by the names of the targets missed.
    static func verdict(_ checks: [(name: String, met: Bool)]) -> String {
        let missed = checks.filter { !$0.met }.map(\.name)
        return missed.isEmpty ? "PASS" : "MISS " + missed.joined(separator: ", ")
    }
}
