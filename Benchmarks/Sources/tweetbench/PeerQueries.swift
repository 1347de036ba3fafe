/// The SQL that answers each benchmarked command from the exported peer database (SQLite or
/// PostgreSQL): the same page, joined with its authors and the signed-in user's likes, as tweetcli
/// shows it. Where the two dialects differ, each gets its own idiom.
struct PeerQueries {
    /// Whose SQL: the local engine's peer is SQLite, the PostgreSQL engine's is PostgreSQL.
    let engine: Engine

    /// The page size every listing uses.
    static let pageSize = 20

    /// The tweet columns with their author's and whether the viewer likes each one; `t` is the
    /// tweet, `u` its author, `v` the viewer's like.
    private static let tweetColumns = """
        t.id, t.uid, t.caption, t.likes, t.replyCount, t.retweets, t.quotes, t.timestamp, t.replyToId, t.quoteId, \
        u.username, u.fullname, u.bio, u.location, u.website, u.profileImageUrl, v.tweetId IS NOT NULL AS didLike
        """

    private func joins(viewer: String) -> String {
        "JOIN users u ON u.id = t.uid LEFT JOIN likes v ON v.uid = \(SQL.literal(viewer)) AND v.tweetId = t.id"
    }

    /// The process's start-up cost: a query that touches no table.
    let floor = "SELECT 1;"

    /// `feed`: everyone's newest tweets.
    func feed(_ subjects: Subjects) -> String {
        """
        SELECT \(Self.tweetColumns) FROM tweets t \(joins(viewer: subjects.uid))
        ORDER BY t.timestamp DESC LIMIT \(Self.pageSize);
        """
    }

    /// `feed --following`: the newest tweets of the people the user follows, and their own.
    ///
    /// Left to itself, SQLite reads every tweet of every followee through `tweets(uid, timestamp)`
    /// and sorts them, which grows with the data set; `+t.uid` (SQLite's documented way to rule an
    /// index out) makes it walk `tweets(timestamp)` from the newest and stop after a page, as an
    /// application tuned for this feed would.
    /// With retweets: the newest page of each, merged, each tweet once at its newest row.
    func followingFeed(_ subjects: Subjects) -> String {
        let uid = SQL.literal(subjects.uid)
        // SQLite's planner hint; PostgreSQL, asked the same, walks the timestamp index by itself.
        let author = engine == .local ? "+uid" : "uid"
        return """
            WITH people(uid) AS (SELECT followee FROM follows WHERE follower = \(uid) UNION ALL SELECT \(uid)),
            rows(tweetId, at) AS (
                SELECT * FROM (SELECT id, timestamp FROM tweets WHERE \(author) IN (SELECT uid FROM people)
                    ORDER BY timestamp DESC LIMIT \(Self.pageSize)) AS own
                UNION ALL
                SELECT * FROM (SELECT tweetId, timestamp FROM retweets WHERE uid IN (SELECT uid FROM people)
                    ORDER BY timestamp DESC LIMIT \(Self.pageSize)) AS shared),
            newest AS (SELECT tweetId, max(at) AS at FROM rows GROUP BY tweetId)
            SELECT \(Self.tweetColumns), n.at FROM newest n JOIN tweets t ON t.id = n.tweetId \(joins(viewer: subjects.uid))
            ORDER BY n.at DESC LIMIT \(Self.pageSize);
            """
    }

    /// `notifications`: the newest page, with who did it and the tweet.
    func notifications(_ subjects: Subjects) -> String {
        """
        SELECT n.id, n.type, n.timestamp, u.username, u.fullname, t.caption FROM notifications n
        LEFT JOIN users u ON u.id = n.fromUid LEFT JOIN tweets t ON t.id = n.tweetId
        WHERE n.recipient = \(SQL.literal(subjects.uid)) ORDER BY n.timestamp DESC LIMIT \(Self.pageSize);
        """
    }

    /// `thread T`: the chain up to the root, then the replies depth first.
    func thread(_ subjects: Subjects) -> String {
        let tweet = SQL.literal(subjects.threadTweetID)
        return """
            WITH RECURSIVE up(id, depth) AS (
                SELECT replyToId, 1 FROM tweets WHERE id = \(tweet) AND replyToId IS NOT NULL
                UNION ALL SELECT t.replyToId, up.depth + 1 FROM tweets t JOIN up ON t.id = up.id
                WHERE t.replyToId IS NOT NULL AND up.depth < 100)
            SELECT \(Self.tweetColumns) FROM tweets t \(joins(viewer: subjects.uid))
            WHERE t.id IN (SELECT id FROM up) OR t.id = \(tweet) ORDER BY t.timestamp;
            WITH RECURSIVE down(id, depth, path) AS (
                SELECT id, 1, timestamp || id FROM tweets WHERE replyToId = \(tweet)
                UNION ALL SELECT t.id, down.depth + 1, down.path || '/' || t.timestamp || t.id
                FROM tweets t JOIN down ON t.replyToId = down.id)
            SELECT \(Self.tweetColumns), d.depth FROM down d JOIN tweets t ON t.id = d.id \(joins(viewer: subjects.uid))
            ORDER BY d.path LIMIT \(Self.pageSize);
            """
    }

    /// `retweet T`: the retweet, the counter and the author's notification, in one transaction.
    func retweet(_ subjects: Subjects) -> String {
        let (uid, tweet) = (SQL.literal(subjects.uid), SQL.literal(subjects.tweetID))
        let notify = """
            INTO notifications (recipient, id, type, fromUid, tweetId, timestamp)
                SELECT uid, 'retweet-' || \(uid) || '-' || id, 'retweet', \(uid), id, \(now)
                FROM tweets WHERE id = \(tweet) AND uid != \(uid)
            """
        switch engine {
        case .local:
            return """
                BEGIN;
                INSERT OR IGNORE INTO retweets (uid, tweetId, timestamp) VALUES (\(uid), \(tweet), \(now));
                UPDATE tweets SET retweets = retweets + changes() WHERE id = \(tweet);
                INSERT OR IGNORE \(notify);
                COMMIT;
                """
        case .postgresql:
            return """
                BEGIN;
                WITH added AS (INSERT INTO retweets (uid, tweetId, timestamp) VALUES (\(uid), \(tweet), \(now))
                    ON CONFLICT DO NOTHING RETURNING 1)
                UPDATE tweets SET retweets = retweets + (SELECT count(*) FROM added) WHERE id = \(tweet);
                INSERT \(notify) ON CONFLICT DO NOTHING;
                COMMIT;
                """
        }
    }

    /// `unretweet T`.
    func unretweet(_ subjects: Subjects) -> String {
        let (uid, tweet) = (SQL.literal(subjects.uid), SQL.literal(subjects.tweetID))
        let removal: String
        switch engine {
        case .local:
            removal = """
                DELETE FROM retweets WHERE uid = \(uid) AND tweetId = \(tweet);
                UPDATE tweets SET retweets = max(0, retweets - changes()) WHERE id = \(tweet);
                """
        case .postgresql:
            removal = """
                WITH removed AS (DELETE FROM retweets WHERE uid = \(uid) AND tweetId = \(tweet) RETURNING 1)
                UPDATE tweets SET retweets = greatest(0, retweets - (SELECT count(*) FROM removed)) WHERE id = \(tweet);
                """
        }
        return """
            BEGIN;
            \(removal)
            DELETE FROM notifications WHERE id = 'retweet-' || \(uid) || '-' || \(tweet);
            COMMIT;
            """
    }

    /// `bookmark T`.
    func bookmark(_ subjects: Subjects) -> String {
        let row =
            "INTO bookmarks (uid, tweetId, timestamp) VALUES (\(SQL.literal(subjects.uid)), "
            + "\(SQL.literal(subjects.tweetID)), \(now))"
        switch engine {
        case .local: return "INSERT OR IGNORE \(row);"
        case .postgresql: return "INSERT \(row) ON CONFLICT DO NOTHING;"
        }
    }

    /// `unbookmark T`.
    func unbookmark(_ subjects: Subjects) -> String {
        """
        DELETE FROM bookmarks WHERE uid = \(SQL.literal(subjects.uid)) AND tweetId = \(SQL.literal(subjects.tweetID));
        """
    }

    /// `bookmarks`: the newest bookmarked first.
    func bookmarks(_ subjects: Subjects) -> String {
        """
        SELECT \(Self.tweetColumns) FROM bookmarks b JOIN tweets t ON t.id = b.tweetId \(joins(viewer: subjects.uid))
        WHERE b.uid = \(SQL.literal(subjects.uid)) ORDER BY b.timestamp DESC LIMIT \(Self.pageSize);
        """
    }

    /// `search #TAG`.
    func searchHashtag(_ subjects: Subjects, _ tag: String) -> String {
        """
        SELECT \(Self.tweetColumns) FROM hashtags h JOIN tweets t ON t.id = h.tweetId \(joins(viewer: subjects.uid))
        WHERE h.tag = \(SQL.literal(tag)) ORDER BY h.timestamp DESC LIMIT \(Self.pageSize);
        """
    }

    /// `search @USER`.
    func searchMention(_ subjects: Subjects) -> String {
        """
        SELECT \(Self.tweetColumns) FROM mentions m JOIN tweets t ON t.id = m.tweetId \(joins(viewer: subjects.uid))
        WHERE m.username = \(SQL.literal(subjects.username.lowercased())) ORDER BY m.timestamp DESC LIMIT \(Self.pageSize);
        """
    }

    /// `search WORD`: the full-text index of captions, newest first: FTS5 (unicode61, diacritics
    /// removed) in SQLite, a GIN index of `to_tsvector('simple', caption)` in PostgreSQL.
    func searchWord(_ subjects: Subjects, _ word: String) -> String {
        let matches: String
        switch engine {
        case .local:
            matches =
                "t.rowid IN (SELECT rowid FROM tweet_words WHERE tweet_words MATCH "
                + "\(SQL.literal("\"" + word + "\"")))"
        case .postgresql:
            matches = "to_tsvector('simple', t.caption) @@ plainto_tsquery('simple', \(SQL.literal(word)))"
        }
        return """
            SELECT \(Self.tweetColumns) FROM tweets t \(joins(viewer: subjects.uid))
            WHERE \(matches) ORDER BY t.timestamp DESC LIMIT \(Self.pageSize);
            """
    }

    /// `search 東京`, `search 京`: text FTS5's unicode61 tokenizer cannot split, by substring, newest
    /// first.
    func searchText(_ subjects: Subjects, _ text: String) -> String {
        """
        SELECT \(Self.tweetColumns) FROM tweets t \(joins(viewer: subjects.uid))
        WHERE t.caption LIKE \(SQL.containsPattern(text)) ESCAPE '\\' ORDER BY t.timestamp DESC LIMIT \(Self.pageSize);
        """
    }

    /// `trends`: hashtags of the 24 hours up to the newest tweet, most used first.
    var trends: String {
        let since: String
        switch engine {
        case .local:
            since = "strftime('%Y-%m-%dT%H:%M:%fZ', (SELECT max(timestamp) FROM tweets), '-24 hours')"
        case .postgresql:
            since = """
                to_char((SELECT max(timestamp) FROM tweets)::timestamptz AT TIME ZONE 'UTC' - interval '24 hours', \
                'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                """
        }
        return """
            SELECT tag, count(*) AS tweets FROM hashtags WHERE timestamp > \(since)
            GROUP BY tag ORDER BY tweets DESC, tag LIMIT 10;
            """
    }

    // MARK: Through a viewer's filters (issue 43)

    /// The filtered viewer's accounts are in a table `hidden` of the peer database; a muted word
    /// hides a caption that holds it, as `LIKE` finds it (tweetcli matches whole search terms,
    /// which only hides fewer).
    private func mutedWord(in caption: String, _ subjects: Subjects) -> String {
        let words = subjects.filtered.words.map { "lower(\(caption)) LIKE \(SQL.containsPattern($0)) ESCAPE '\\'" }
        return words.isEmpty ? "0 = 1" : "(" + words.joined(separator: " OR ") + ")"
    }

    /// Whether tweet `t` is shown to the filtered viewer.
    private func shown(_ t: String, _ subjects: Subjects) -> String {
        "\(t).uid NOT IN (SELECT uid FROM hidden) AND NOT \(mutedWord(in: t + ".caption", subjects))"
    }

    /// `feed` as the filtered viewer.
    func filteredFeed(_ subjects: Subjects) -> String {
        """
        SELECT \(Self.tweetColumns) FROM tweets t \(joins(viewer: subjects.filtered.uid))
        WHERE \(shown("t", subjects)) ORDER BY t.timestamp DESC LIMIT \(Self.pageSize);
        """
    }

    /// `feed --following` as the filtered viewer: ``followingFeed(_:)`` with hidden rows left out
    /// of both sides before each is cut to a page.
    func filteredFollowingFeed(_ subjects: Subjects) -> String {
        let uid = SQL.literal(subjects.filtered.uid)
        let author = engine == .local ? "+t.uid" : "t.uid"
        return """
            WITH people(uid) AS (SELECT followee FROM follows WHERE follower = \(uid) UNION ALL SELECT \(uid)),
            rows(tweetId, at) AS (
                SELECT * FROM (SELECT t.id, t.timestamp FROM tweets t WHERE \(author) IN (SELECT uid FROM people)
                    AND \(shown("t", subjects)) ORDER BY t.timestamp DESC LIMIT \(Self.pageSize)) AS own
                UNION ALL
                SELECT * FROM (SELECT r.tweetId, r.timestamp FROM retweets r JOIN tweets t ON t.id = r.tweetId
                    WHERE r.uid IN (SELECT uid FROM people) AND r.uid NOT IN (SELECT uid FROM hidden)
                    AND \(shown("t", subjects)) ORDER BY r.timestamp DESC LIMIT \(Self.pageSize)) AS shared),
            newest AS (SELECT tweetId, max(at) AS at FROM rows GROUP BY tweetId)
            SELECT \(Self.tweetColumns), n.at FROM newest n JOIN tweets t ON t.id = n.tweetId \(joins(viewer: subjects.filtered.uid))
            ORDER BY n.at DESC LIMIT \(Self.pageSize);
            """
    }

    /// `search WORD` as the filtered viewer.
    func filteredSearchWord(_ subjects: Subjects, _ word: String) -> String {
        let matches: String
        switch engine {
        case .local:
            matches =
                "t.rowid IN (SELECT rowid FROM tweet_words WHERE tweet_words MATCH "
                + "\(SQL.literal("\"" + word + "\"")))"
        case .postgresql:
            matches = "to_tsvector('simple', t.caption) @@ plainto_tsquery('simple', \(SQL.literal(word)))"
        }
        return """
            SELECT \(Self.tweetColumns) FROM tweets t \(joins(viewer: subjects.filtered.uid))
            WHERE \(matches) AND \(shown("t", subjects)) ORDER BY t.timestamp DESC LIMIT \(Self.pageSize);
            """
    }

    /// `notifications` as the filtered viewer: none from a hidden account, and no reply, quote or
    /// mention with a muted word.
    func filteredNotifications(_ subjects: Subjects) -> String {
        """
        SELECT n.id, n.type, n.timestamp, u.username, u.fullname, t.caption FROM notifications n
        LEFT JOIN users u ON u.id = n.fromUid LEFT JOIN tweets t ON t.id = n.tweetId
        WHERE n.recipient = \(SQL.literal(subjects.filtered.uid)) AND n.fromUid NOT IN (SELECT uid FROM hidden)
        AND (t.id IS NULL OR n.type IN ('like', 'retweet') OR NOT \(mutedWord(in: "t.caption", subjects)))
        ORDER BY n.timestamp DESC LIMIT \(Self.pageSize);
        """
    }

    /// The `hidden` table of the filtered viewer's blocked and muted accounts.
    static func hiddenTable(_ uids: [String]) -> String {
        "CREATE TABLE IF NOT EXISTS hidden (uid TEXT PRIMARY KEY); DELETE FROM hidden;"
            + (uids.isEmpty
                ? "" : " INSERT INTO hidden VALUES " + uids.map { "(\(SQL.literal($0)))" }.joined(separator: ",") + ";")
    }

    /// The current time as tweetcli writes timestamps: ISO 8601, UTC, milliseconds.
    private var now: String {
        switch engine {
        case .local: return "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        case .postgresql: return "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
        }
    }

    /// The larger of 0 and `expression`.
    private func atLeastZero(_ expression: String) -> String {
        engine == .local ? "max(0, \(expression))" : "greatest(0, \(expression))"
    }

    /// `profile UID --tab tweets|replies|likes`: the user, their counts and one tab's page.
    func profile(_ subjects: Subjects, tab: String) -> String {
        let uid = SQL.literal(subjects.uid)
        let page: String
        switch tab {
        case "likes":
            page = """
                SELECT \(Self.tweetColumns) FROM likes k JOIN tweets t ON t.id = k.tweetId \(joins(viewer: subjects.uid))
                WHERE k.uid = \(uid) ORDER BY k.timestamp DESC LIMIT \(Self.pageSize);
                """
        default:
            let replies = tab == "replies" ? "IS NOT NULL" : "IS NULL"
            page = """
                SELECT \(Self.tweetColumns) FROM tweets t \(joins(viewer: subjects.uid))
                WHERE t.uid = \(uid) AND t.replyToId \(replies) ORDER BY t.timestamp DESC LIMIT \(Self.pageSize);
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
    func post(_ subjects: Subjects, run: Int) -> String {
        """
        INSERT INTO tweets (id, uid, caption, likes, timestamp, replyToId)
        VALUES (\(SQL.literal("benchmark-\(run)")), \(SQL.literal(subjects.uid)), \
        \(SQL.literal("benchmark tweet \(run)")), 0, \(now), NULL);
        """
    }

    /// `like T`: the like row and the tweet's counter, in one transaction.
    func like(_ subjects: Subjects) -> String {
        let (uid, tweet) = (SQL.literal(subjects.uid), SQL.literal(subjects.tweetID))
        return """
            BEGIN;
            INSERT INTO likes (uid, tweetId, timestamp) VALUES (\(uid), \(tweet), \(now));
            UPDATE tweets SET likes = likes + 1 WHERE id = \(tweet);
            COMMIT;
            """
    }

    /// `like PREFIX`: the tweet found by a start of its ID (one range of the primary key, at most
    /// two rows, as tweetcli reads it), then the like as ``like(_:)`` writes it.
    func likeByPrefix(_ subjects: Subjects, prefix: String) -> String {
        let uid = SQL.literal(subjects.uid)
        return """
            BEGIN;
            \(named(prefix))
            INSERT INTO likes (uid, tweetId, timestamp) SELECT \(uid), id, \(now) FROM named;
            UPDATE tweets SET likes = likes + 1 WHERE id IN (SELECT id FROM named);
            COMMIT;
            """
    }

    /// `unlike PREFIX`: the tweet found as ``likeByPrefix(_:prefix:)`` finds it, then the unlike
    /// as ``unlike(_:)`` writes it.
    func unlikeByPrefix(_ subjects: Subjects, prefix: String) -> String {
        let uid = SQL.literal(subjects.uid)
        return """
            BEGIN;
            \(named(prefix))
            DELETE FROM likes WHERE uid = \(uid) AND tweetId IN (SELECT id FROM named);
            UPDATE tweets SET likes = \(atLeastZero("likes - 1")) WHERE id IN (SELECT id FROM named);
            COMMIT;
            """
    }

    /// A temporary table `named` with the one tweet whose ID starts with `prefix`, or none when
    /// no tweet's does or several do.
    private func named(_ prefix: String) -> String {
        let (start, end) = (SQL.literal(prefix), SQL.literal(prefix + "~"))
        return """
            CREATE TEMP TABLE IF NOT EXISTS named (id TEXT);
            DELETE FROM named;
            INSERT INTO named SELECT id FROM tweets WHERE id >= \(start) AND id < \(end) ORDER BY id LIMIT 2;
            DELETE FROM named WHERE (SELECT count(*) FROM named) > 1;
            """
    }

    /// `unlike T`: the like row gone and the tweet's counter down, in one transaction.
    func unlike(_ subjects: Subjects) -> String {
        let (uid, tweet) = (SQL.literal(subjects.uid), SQL.literal(subjects.tweetID))
        return """
            BEGIN;
            DELETE FROM likes WHERE uid = \(uid) AND tweetId = \(tweet);
            UPDATE tweets SET likes = \(atLeastZero("likes - 1")) WHERE id = \(tweet);
            COMMIT;
            """
    }

    /// `explore QUERY`: users whose username or full name contains the query, by username.
    func explore(_ subjects: Subjects) -> String {
        let pattern = SQL.containsPattern(subjects.query)
        return """
            SELECT * FROM users WHERE username LIKE \(pattern) ESCAPE '\\' OR fullname LIKE \(pattern) ESCAPE '\\'
            ORDER BY username LIMIT \(Self.pageSize);
            """
    }
}
