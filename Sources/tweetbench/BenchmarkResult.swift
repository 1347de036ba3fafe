/// Everything one benchmark measured, ready for ``BenchmarkReport``.
struct BenchmarkResult {
    /// One operation's timings on every data set, tweetcli and sqlite3 side by side.
    struct OperationResult {
        /// How the report names it.
        let name: String
        /// Whether issue 3's per-command targets apply.
        let hasTargets: Bool
        /// tweetcli's (or the floor's) timings, one per data set, small first.
        var tweetcli: [Timings]
        /// sqlite3's timings of the same query, one per data set, small first.
        var sqlite: [Timings]
    }

    let options: BenchmarkOptions
    let machine: Machine
    /// What `sqlite3 --version` says, shortened to its version number and date.
    let sqliteVersion: String
    /// The data sets, small first.
    let datasets: [Dataset]
    /// Who and what the operations acted on, per data set.
    let subjects: [Subjects]
    /// Every operation, the floor first.
    let operations: [OperationResult]
}
