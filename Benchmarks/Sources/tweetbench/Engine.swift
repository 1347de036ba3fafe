/// Which of tweetcli's store engines the benchmark times, and the SQL database it is compared
/// with: a local store against the `sqlite3` shell on the same data in SQLite, a PostgreSQL store
/// against `psql` on the same data in relational tables of the same server.
enum Engine: String, CaseIterable, Equatable {
    case local
    case postgresql

    /// The peer's command-line shell, as the report names it.
    var peerName: String {
        switch self {
        case .local: return "sqlite3"
        case .postgresql: return "psql"
        }
    }

    /// The targets of the issues that set them: issues 3 and 11 for the local engine; for
    /// PostgreSQL, issue 10's seed and issue 46's speed against psql running the same SQL (a fresh
    /// process that talks to a server cannot come near a floor that only starts).
    var targets: Targets {
        switch self {
        case .local:
            return Targets(
                issue: 3, floorRatio: 2.0, peerRatio: nil, seedSeconds: 60, sizeRatio: 1.5,
                huge: .init(
                    issue: 11, floorRatio: 2.0, peerRatio: 2.0, growth: 1.2, seedSeconds: 600, seedPeakRSSMiB: 256,
                    documentsPerSecond: 100_000))
        case .postgresql:
            return Targets(
                issue: 46, floorRatio: nil, peerRatio: 1.3, seedSeconds: 120, sizeRatio: nil,
                huge: .init(
                    issue: 46, floorRatio: nil, peerRatio: 1.3, growth: 1.2, seedSeconds: 1_200, seedPeakRSSMiB: 256,
                    documentsPerSecond: nil))
        }
    }
}
