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
    /// A command's median at most this many times the floor's median, where the engine has one.
    let floorRatio: Double?
    /// A command's median at most this many times the peer's same query's, where the engine has one.
    let peerRatio: Double?
    /// Seeding the large data set in at most this many seconds.
    let seedSeconds: Double
    /// The store at most this many times the size of the plain JSON array, when there is a target.
    let sizeRatio: Double?
    /// The third data set's (`--huge`).
    let huge: Huge

    /// The targets for the ten-million-tweet data set (`--huge`).
    struct Huge: Equatable {
        /// The issue that set them.
        let issue: Int
        /// A command's median at most this many times the floor's, where the engine has one.
        let floorRatio: Double?
        /// A command's median at most this many times the peer's same query's.
        let peerRatio: Double
        /// Its median at the huge data set at most this many times its median at the large one.
        let growth: Double
        /// Seeding it in at most this many seconds, within this much memory (MiB).
        let seedSeconds: Double
        let seedPeakRSSMiB: Double
        /// `export` and `import` of it at this many documents a second at least, where there is a target.
        let documentsPerSecond: Double?
    }

    /// "PASS", or "MISS" followed by the names of the targets missed.
    static func verdict(_ checks: [(name: String, met: Bool)]) -> String {
        let missed = checks.filter { !$0.met }.map(\.name)
        return missed.isEmpty ? "PASS" : "MISS " + missed.joined(separator: ", ")
    }
}
