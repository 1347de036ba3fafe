/// Everything one benchmark measured, ready for ``BenchmarkReport``.
struct BenchmarkResult {
    /// One operation's timings on every data set, tweetcli and the peer's shell side by side.
    struct OperationResult {
        /// How the report names it.
        let name: String
        /// Whether issue 3's per-command targets apply.
        let hasTargets: Bool
        /// tweetcli's (or the floor's) timings, one per data set, small first.
        var tweetcli: [Timings]
        /// The peer's timings of the same query (sqlite3 or psql), one per data set, small first.
        var peer: [Timings]
    }

    let options: BenchmarkOptions
    let machine: Machine
    /// How tweetcli and the floor were linked.
    let swiftRuntime: Executables.SwiftRuntime
    /// The peer's version: `sqlite3 --version` shortened to its version number and date, or
    /// "PostgreSQL" and the version `psql --version` prints.
    let peerVersion: String
    /// The data sets, small first.
    let datasets: [Dataset]
    /// Who and what the operations acted on, per data set.
    let subjects: [Subjects]
    /// Every operation, the floor first.
    let operations: [OperationResult]
}
