/// Everything one benchmark measured, ready for ``BenchmarkReport``.
struct BenchmarkResult {
    /// One operation's timings on every data set, tweetcli and the peer's shell side by side.
    struct OperationResult {
        /// How the report names it.
        let name: String
        /// Whether issue 3's per-command targets apply.
        let hasTargets: Bool
        /// Its own target over the floor, if its issue set one apart from the engine's.
        var floorTarget: Double? = nil
        /// tweetcli's (or the floor's) timings, one per data set, small first.
        var tweetcli: [Timings]
        /// The peer's timings of the same query (sqlite3 or psql), one per data set, small first.
        var peer: [Timings]
        /// The floor's runs made beside this operation's, one per data set (none for the floor
        /// itself): run `i` of the floor came in the same round as run `i` of the operation.
        var floor: [Timings]

        /// The median of the floor's runs beside this operation at data set `index`, if it had any.
        func floorMedian(at index: Int) -> Double? {
            floor.indices.contains(index) && !floor[index].milliseconds.isEmpty ? floor[index].median : nil
        }

        /// The operation's time over the floor's at data set `index`: the median of the ratios of
        /// runs made in the same round, or, without runs beside it, its median over `floorMedian`.
        func floorRatio(at index: Int, floorMedian: Double) -> Double {
            if floor.indices.contains(index), let paired = tweetcli[index].pairedRatio(to: floor[index]) {
                return paired
            }
            return floorMedian > 0 ? tweetcli[index].median / floorMedian : .infinity
        }
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
