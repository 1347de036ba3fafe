/// The SQL that answers each benchmarked command from the exported SQLite database: the same
/// page, joined with its authors and the signed-in user's likes, as tweetcli shows it.
enum SQLiteQueries {
    /// The page size every listing uses.
    static let pageSize = 20

    /// The tweet columns with their author's and whether the viewer likes each one; `t` is the
    /// tweet, `u` its author, `v` the viewer's like.
    private static let tweetColumns = """
        t.id, t.uid, t.caption, t.likes, t.timestamp, t.replyToId, u.username, u.fullname, u.email, u.bio, \
        u.location, u.website, u.profileImageUrl, v.tweetId IS NOT NULL AS didLike
        """

    private static func joins(viewer: String) -> String {
        "JOIN users u ON u.id = t.uid LEFT JOIN likes v ON v.uid = \(SQL.literal(viewer)) AND v.tweetId = t.id"
    }

    /// The process's start-up cost: a query that touches no table.
    static let floor = "SELECT 1;"

    /// `feed`: everyone's newest tweets.
    static func feed(_ subjects: Subjects) -> String {
        """
        SELECT \(tweetColumns) FROM tweets t \(joins(viewer: subjects.uid))
        ORDER BY t.timestamp DESC LIMIT \(pageSize);
        """
    }

    /// `feed --following`: the newest tweets of the people the user follows, and their own.
    ///
    /// Left to itself, SQLite reads every tweet of every followee through `tweets(uid, timestamp)`
    /// and sorts them, which grows with the data set; `+t.uid` (SQLite's documented way to rule an
    /// index out) makes it walk `tweets(timestamp)` from the newest and stop after a page, as an
    /// application tuned for this feed would.
    static func followingFeed(_ subjects: Subjects) -> String {
        let uid = SQL.literal(subjects.uid)
        return """
            SELECT \(tweetColumns) FROM tweets t \(joins(viewer: subjects.uid))
            WHERE +t.uid IN (SELECT followee FROM follows WHERE follower = \(uid) UNION ALL SELECT \(uid))
            ORDER BY t.timestamp DESC LIMIT \(pageSize);
            """
    }

    /// `profile UID --tab tweets|replies|likes`: the user, their counts and one tab's page.
    static func profile(_ subjects: Subjects, tab: String) -> String {
        let uid = SQL.literal(subjects.uid)
        let page: String
        switch tab {
        case "likes":
            page = """
                SELECT \(tweetColumns) FROM likes k JOIN tweets t ON t.id = k.tweetId \(joins(viewer: subjects.uid))
                WHERE k.uid = \(uid) ORDER BY k.timestamp DESC LIMIT \(pageSize);
                """
        default:
            let replies = tab == "replies" ? "IS NOT NULL" : "IS NULL"
            page = """
                SELECT \(tweetColumns) FROM tweets t \(joins(viewer: subjects.uid))
                WHERE t.uid = \(uid) AND t.replyToId \(replies) ORDER BY t.timestamp DESC LIMIT \(pageSize);
                """
        }
        return """
            SELECT * FROM users WHERE id = \(uid);
            SELECT (SELECT count(*) FROM follows WHERE follower = \(uid)),
                (SELECT count(*) FROM follows WHERE followee = \(uid)),
                (SELECT count(*) FROM tweets WHERE uid = \(uid));
            \(page)
            """
    }

    /// `post CAPTION`: one new tweet.
    static func post(_ subjects: Subjects, run: Int) -> String {
        """
        INSERT INTO tweets (id, uid, caption, likes, timestamp, replyToId)
        VALUES (\(SQL.literal("benchmark-\(run)")), \(SQL.literal(subjects.uid)), \
        \(SQL.literal("benchmark tweet \(run)")), 0, \(SQL.now), NULL);
        """
    }

    /// `like T`: the like row and the tweet's counter, in one transaction.
    static func like(_ subjects: Subjects) -> String {
        let (uid, tweet) = (SQL.literal(subjects.uid), SQL.literal(subjects.tweetID))
        return """
            BEGIN;
            INSERT INTO likes (uid, tweetId, timestamp) VALUES (\(uid), \(tweet), \(SQL.now));
            UPDATE tweets SET likes = likes + 1 WHERE id = \(tweet);
            COMMIT;
            """
    }

    /// `unlike T`: the like row gone and the tweet's counter down, in one transaction.
    static func unlike(_ subjects: Subjects) -> String {
        let (uid, tweet) = (SQL.literal(subjects.uid), SQL.literal(subjects.tweetID))
        return """
            BEGIN;
            DELETE FROM likes WHERE uid = \(uid) AND tweetId = \(tweet);
            UPDATE tweets SET likes = max(0, likes - 1) WHERE id = \(tweet);
            COMMIT;
            """
    }

    /// `explore QUERY`: users whose username or full name contains the query, by username.
    static func explore(_ subjects: Subjects) -> String {
        let pattern = SQL.containsPattern(subjects.query)
        return """
            SELECT * FROM users WHERE username LIKE \(pattern) ESCAPE '\\' OR fullname LIKE \(pattern) ESCAPE '\\'
            ORDER BY username LIMIT \(pageSize);
            """
    }
}
