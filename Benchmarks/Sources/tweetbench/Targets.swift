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

    /// Issue 11's targets for the ten-million-tweet data set (`--huge`).
    enum Huge {
        /// A command's median at most this many times the floor's, and the peer's same query's.
        static let floorRatio = 2.0
        static let peerRatio = 2.0
        /// Its median at the huge data set at most this many times its median at the large one.
        static let growth = 1.2
        /// Seeding it in at most this many seconds, within this much memory (MiB).
        static let seedSeconds = 600.0
        static let seedPeakRSSMiB = 256.0
        /// `export` and `import` of it at this many documents a second at least.
        static let documentsPerSecond = 100_000.0
    }

    /// "PASS", or "MISS" followed by the names of the targets missed.
    static func verdict(_ checks: [(name: String, met: Bool)]) -> String {
        let missed = checks.filter { !$0.met }.map(\.name)
        return missed.isEmpty ? "PASS" : "MISS " + missed.joined(separator: ", ")
    }
}
