/// The tables and indexes tweetcli's data is exported into, for the `sqlite3` side of each figure.
enum SQLiteSchema {
    /// A table: its name and its columns, in the order rows are written.
    struct Table: Equatable {
        let name: String
        let columns: [String]
    }

    /// `tweets/{id}`.
    static let tweets = Table(name: "tweets", columns: ["id", "uid", "caption", "likes", "timestamp", "replyToId"])
    /// `users/{uid}`.
    static let users = Table(
        name: "users",
        columns: ["id", "username", "fullname", "email", "bio", "location", "website", "profileImageUrl"])
    /// `users/{uid}/user-likes/{tweetId}`.
    static let likes = Table(name: "likes", columns: ["uid", "tweetId", "timestamp"])
    /// `following/{uid}/user-following/{otherUid}` (the `followers` mirror is not exported twice).
    static let follows = Table(name: "follows", columns: ["follower", "followee"])

    /// Every table, in the order they are created.
    static let tables = [tweets, users, likes, follows]

    /// Statements that open a bulk load: no rollback journal, no fsync, one transaction.
    static let loadPrologue = """
        PRAGMA journal_mode = MEMORY;
        PRAGMA synchronous = OFF;
        BEGIN;
        CREATE TABLE tweets (id TEXT PRIMARY KEY, uid TEXT NOT NULL, caption TEXT NOT NULL, likes INTEGER NOT NULL,
            timestamp TEXT NOT NULL, replyToId TEXT);
        CREATE TABLE users (id TEXT PRIMARY KEY, username TEXT NOT NULL, fullname TEXT NOT NULL, email TEXT,
            bio TEXT, location TEXT, website TEXT, profileImageUrl TEXT);
        CREATE TABLE likes (uid TEXT NOT NULL, tweetId TEXT NOT NULL, timestamp TEXT NOT NULL,
            PRIMARY KEY (uid, tweetId));
        CREATE TABLE follows (follower TEXT NOT NULL, followee TEXT NOT NULL, PRIMARY KEY (follower, followee));

        """

    /// Statements that close a bulk load: indexes built once over all rows (faster than row by
    /// row), the commit, and statistics for the query planner, as a real deployment would have.
    /// `follows(followee)` lets a profile count followers without a scan, as tweetcli's
    /// `followers/{uid}` collection does.
    static let loadEpilogue = """
        CREATE INDEX tweets_timestamp ON tweets (timestamp);
        CREATE INDEX tweets_uid_timestamp ON tweets (uid, timestamp);
        CREATE INDEX likes_uid_timestamp ON likes (uid, timestamp);
        CREATE INDEX follows_followee ON follows (followee);
        COMMIT;
        ANALYZE;

        """
}
