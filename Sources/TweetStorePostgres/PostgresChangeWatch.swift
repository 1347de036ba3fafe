import TweetStore

/// The PostgreSQL engine's ``StoreChangeWatch``: a connection of its own that `LISTEN`s on
/// ``channel``, on which every write transaction's clock update calls `pg_notify` with its schema
/// (so the notification goes out when, and only if, the transaction commits). A notification
/// from another store in the same database (another schema) is not a change of this one.
final class PostgresChangeWatch: StoreChangeWatch {
    /// The channel every tweetcli store in a database notifies on.
    static let channel = "tweetcli_changes"

    private let connection: PostgresConnection
    /// The schema this store's tables are in, as the writers' `current_schema()` names it.
    private let schema: String

    init(location: PostgresLocation) throws {
        connection = try PostgresConnection(location)
        // A pooler in transaction mode hands the server connection that listened to other clients:
        // notifications would be lost, or reach someone else.
        guard !connection.isPooled else {
            throw PostgresError.unreachable(
                location.displayName,
                reason: "it is reached through a pooler (such as PgBouncer), which passes no notifications on; "
                    + "watch with --store naming the PostgreSQL server itself")
        }
        schema = try connection.execute("SELECT coalesce(current_schema(), '')").first?.first.flatMap { $0 } ?? ""
        try connection.execute("LISTEN " + Self.channel)
    }

    var fileDescriptor: Int32 { connection.socket }

    func drain() throws -> Bool {
        try connection.notifications().contains(schema)
    }
}
