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

    /// The targets of the issue that set them: issue 3 for the local engine, issue 10 for PostgreSQL.
    var targets: Targets {
        switch self {
        case .local:
            return Targets(issue: 3, floorRatio: 2.0, seedSeconds: 60, sizeRatio: 1.5)
        case .postgresql:
            // A server round trip and libpq's loading are part of every command: issue 10 allows 3×.
            return Targets(issue: 10, floorRatio: 3.0, seedSeconds: 120, sizeRatio: nil)
        }
    }
}
