/// The tables and indexes tweetcli's data is exported into, for the SQL side of each figure: the
/// same tables in SQLite and in PostgreSQL, with each engine's own way to index words and hashtags.
enum PeerSchema {
    /// A table: its name and its columns, in the order rows are written.
    struct Table: Equatable {
        let name: String
        let columns: [String]
    }

    /// `tweets/{id}`.
    static let tweets = Table(
        name: "tweets",
        columns: [
            "id", "uid", "caption", "likes", "timestamp", "replyToId", "replyCount", "retweets", "quotes", "quoteId",
            "entities",
        ])
    /// `users/{uid}`.
    static let users = Table(
        name: "users",
        columns: ["id", "username", "fullname", "email", "bio", "location", "website", "profileImageUrl"])
    /// `users/{uid}/user-likes/{tweetId}`.
    static let likes = Table(name: "likes", columns: ["uid", "tweetId", "timestamp"])
    /// `following/{uid}/user-following/{otherUid}` (the `followers` mirror is not exported twice).
    static let follows = Table(name: "follows", columns: ["follower", "followee"])

    /// `retweets/rt_{id}`.
    static let retweets = Table(name: "retweets", columns: ["uid", "tweetId", "timestamp"])
    /// `users/{uid}/bookmarks/{tweetId}`.
    static let bookmarks = Table(name: "bookmarks", columns: ["uid", "tweetId", "timestamp"])
    /// `users/{uid}/notifications/{key}`.
    static let notifications = Table(
        name: "notifications", columns: ["recipient", "id", "type", "fromUid", "tweetId", "timestamp"])

    /// Every table, in the order they are created.
    static let tables = [tweets, users, likes, follows, retweets, bookmarks, notifications]

    /// The tables, as both SQLite and PostgreSQL take them.
    private static let tableDefinitions = """
        CREATE TABLE tweets (id TEXT PRIMARY KEY, uid TEXT NOT NULL, caption TEXT NOT NULL, likes INTEGER NOT NULL,
            timestamp TEXT NOT NULL, replyToId TEXT, replyCount INTEGER, retweets INTEGER, quotes INTEGER,
            quoteId TEXT, entities TEXT);
        CREATE TABLE users (id TEXT PRIMARY KEY, username TEXT NOT NULL, fullname TEXT NOT NULL, email TEXT,
            bio TEXT, location TEXT, website TEXT, profileImageUrl TEXT);
        CREATE TABLE likes (uid TEXT NOT NULL, tweetId TEXT NOT NULL, timestamp TEXT NOT NULL,
            PRIMARY KEY (uid, tweetId));
        CREATE TABLE follows (follower TEXT NOT NULL, followee TEXT NOT NULL, PRIMARY KEY (follower, followee));
        CREATE TABLE retweets (uid TEXT NOT NULL, tweetId TEXT NOT NULL, timestamp TEXT NOT NULL,
            PRIMARY KEY (uid, tweetId));
        CREATE TABLE bookmarks (uid TEXT NOT NULL, tweetId TEXT NOT NULL, timestamp TEXT NOT NULL,
            PRIMARY KEY (uid, tweetId));
        CREATE TABLE notifications (recipient TEXT NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL,
            fromUid TEXT NOT NULL, tweetId TEXT, timestamp TEXT NOT NULL, PRIMARY KEY (recipient, id));

        """

    /// The indexes both engines build once over all rows (faster than row by row).
    /// `follows(followee)` lets a profile count followers without a scan, as tweetcli's
    /// `followers/{uid}` collection does.
    private static let indexes = """
        CREATE INDEX tweets_timestamp ON tweets (timestamp);
        CREATE INDEX tweets_uid_timestamp ON tweets (uid, timestamp);
        CREATE INDEX likes_uid_timestamp ON likes (uid, timestamp);
        CREATE INDEX follows_followee ON follows (followee);
        CREATE INDEX tweets_replyToId ON tweets (replyToId);
        CREATE INDEX retweets_uid_timestamp ON retweets (uid, timestamp);
        CREATE INDEX retweets_tweetId ON retweets (tweetId);
        CREATE INDEX bookmarks_uid_timestamp ON bookmarks (uid, timestamp);
        CREATE INDEX notifications_recipient_timestamp ON notifications (recipient, timestamp);

        """

    /// Statements that open a bulk load: in SQLite no rollback journal and no fsync, in PostgreSQL
    /// no wait for the log on commit; then one transaction and the tables.
    static func loadPrologue(_ engine: Engine) -> String {
        switch engine {
        case .local:
            return "PRAGMA journal_mode = MEMORY;\nPRAGMA synchronous = OFF;\nBEGIN;\n" + tableDefinitions
        case .postgresql:
            return "SET synchronous_commit = off;\nBEGIN;\n" + tableDefinitions
        }
    }

    /// Statements that close a bulk load: the indexes, hashtag and mention tables made from the
    /// entities, a full-text index of captions, the commit, and statistics for the query planner,
    /// as a real deployment would have. PostgreSQL also vacuums, so that autovacuum's first pass
    /// over the new tables does not run during the timings.
    static func loadEpilogue(_ engine: Engine) -> String {
        switch engine {
        case .local:
            return indexes + """
                CREATE TABLE hashtags AS
                    SELECT t.id AS tweetId, lower(j.value) AS tag, t.timestamp AS timestamp
                    FROM tweets t, json_each(t.entities, '$.hashtags') j;
                CREATE INDEX hashtags_tag_timestamp ON hashtags (tag, timestamp);
                CREATE INDEX hashtags_timestamp ON hashtags (timestamp);
                CREATE TABLE mentions AS
                    SELECT t.id AS tweetId, lower(j.value) AS username, t.timestamp AS timestamp
                    FROM tweets t, json_each(t.entities, '$.mentions') j;
                CREATE INDEX mentions_username_timestamp ON mentions (username, timestamp);
                CREATE VIRTUAL TABLE tweet_words USING fts5(caption, content='tweets', tokenize='unicode61 remove_diacritics 2');
                INSERT INTO tweet_words (tweet_words) VALUES ('rebuild');
                COMMIT;
                ANALYZE;

                """
        case .postgresql:
            return indexes + """
                CREATE TABLE hashtags AS
                    SELECT t.id AS tweetId, lower(j.value) AS tag, t.timestamp AS timestamp
                    FROM tweets t, json_array_elements_text(t.entities::json -> 'hashtags') AS j(value);
                CREATE INDEX hashtags_tag_timestamp ON hashtags (tag, timestamp);
                CREATE INDEX hashtags_timestamp ON hashtags (timestamp);
                CREATE TABLE mentions AS
                    SELECT t.id AS tweetId, lower(j.value) AS username, t.timestamp AS timestamp
                    FROM tweets t, json_array_elements_text(t.entities::json -> 'mentions') AS j(value);
                CREATE INDEX mentions_username_timestamp ON mentions (username, timestamp);
                CREATE INDEX tweets_words ON tweets USING gin (to_tsvector('simple', caption));
                COMMIT;
                VACUUM ANALYZE;

                """
        }
    }
}
