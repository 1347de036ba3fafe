/// One thing the benchmark times: a `tweetcli` command (or the floor) and the same query through
/// the peer database's shell, `sqlite3` or `psql`.
struct Operation {
    /// The program timed on the tweetcli side.
    enum Program: Equatable {
        /// The `floor` binary: the cost of starting any Swift command-line tool.
        case floor
        /// `tweetcli --store DIR` followed by ``Operation/arguments``.
        case tweetcli
    }

    /// How the report names it.
    let name: String
    let program: Program
    /// tweetcli's arguments after `--store DIR`, for a run number (0 is the warm-up).
    let arguments: (Subjects, Int) -> [String]
    /// What the peer's shell runs for the same answer, for a run number.
    let sql: (Subjects, Int) -> String
    /// Its own target over the floor, where its issue set one (issue 44's photo rows: 3×).
    var floorTarget: Double? = nil

    /// Whether the per-command targets apply (every operation but the floor).
    var hasTargets: Bool { program == .tweetcli }

    /// Every operation in the order they run, in groups whose operations alternate run by run:
    /// like, unlike, like, … so that every run really changes the store.
    static func catalog(query: String, peer: PeerQueries) -> [[Operation]] {
        let limit = ["--limit", "\(PeerQueries.pageSize)"]
        func profile(_ tab: String) -> Operation {
            Operation(
                name: "profile UID --tab \(tab)", program: .tweetcli,
                arguments: { subjects, _ in ["profile", subjects.uid, "--tab", tab] + limit },
                sql: { subjects, _ in peer.profile(subjects, tab: tab) })
        }
        func filtered(_ name: String, _ arguments: [String], _ sql: @escaping (Subjects) -> String) -> Operation {
            Operation(
                name: name + " (filtered)", program: .tweetcli,
                arguments: { subjects, _ in ["--as", "@" + subjects.filtered.username] + arguments + limit },
                sql: { subjects, _ in sql(subjects) })
        }
        return [
            [
                Operation(
                    name: "floor", program: .floor, arguments: { _, _ in [] }, sql: { _, _ in peer.floor })
            ],
            [
                Operation(
                    name: "feed", program: .tweetcli, arguments: { _, _ in ["feed"] + limit },
                    sql: { subjects, _ in peer.feed(subjects) })
            ],
            [
                Operation(
                    name: "feed --following", program: .tweetcli,
                    arguments: { _, _ in ["feed", "--following"] + limit },
                    sql: { subjects, _ in peer.followingFeed(subjects) })
            ],
            [profile("tweets")],
            [profile("replies")],
            [profile("likes")],
            // Issue 44: photos drawn as block mosaics (the seed gives half of the first page one),
            // and the Media tab's grid. The peer has no photos: its column is the same page of
            // tweets, for scale only.
            [
                Operation(
                    name: "feed (photos as blocks)", program: .tweetcli,
                    arguments: { _, _ in ["--color", "always", "--images", "blocks", "feed"] + limit },
                    sql: { subjects, _ in peer.feed(subjects) }, floorTarget: 3)
            ],
            [
                Operation(
                    name: "profile UID --tab media (blocks)", program: .tweetcli,
                    arguments: { subjects, _ in
                        ["--color", "always", "--images", "blocks", "profile", subjects.uid, "--tab", "media"] + limit
                    },
                    sql: { subjects, _ in peer.profile(subjects, tab: "tweets") }, floorTarget: 3)
            ],
            [
                Operation(
                    name: "post", program: .tweetcli, arguments: { _, run in ["post", "benchmark tweet \(run)"] },
                    sql: { subjects, run in peer.post(subjects, run: run) })
            ],
            [
                Operation(
                    name: "like", program: .tweetcli, arguments: { subjects, _ in ["like", subjects.tweetID] },
                    sql: { subjects, _ in peer.like(subjects) }),
                Operation(
                    name: "unlike", program: .tweetcli, arguments: { subjects, _ in ["unlike", subjects.tweetID] },
                    sql: { subjects, _ in peer.unlike(subjects) }),
            ],
            [
                // The same tweet named by a start of its ID, as rows show it: one range read of the
                // tweets' IDs more than a whole ID costs.
                Operation(
                    name: "like PREFIX", program: .tweetcli,
                    arguments: { subjects, _ in ["like", String(subjects.tweetID.prefix(10))] },
                    sql: { subjects, _ in peer.likeByPrefix(subjects, prefix: String(subjects.tweetID.prefix(10))) }),
                Operation(
                    name: "unlike PREFIX", program: .tweetcli,
                    arguments: { subjects, _ in ["unlike", String(subjects.tweetID.prefix(10))] },
                    sql: { subjects, _ in peer.unlikeByPrefix(subjects, prefix: String(subjects.tweetID.prefix(10))) }),
            ],
            [
                Operation(
                    name: "explore \(query)", program: .tweetcli,
                    arguments: { subjects, _ in ["explore", subjects.query] },
                    sql: { subjects, _ in peer.explore(subjects) })
            ],
            [
                Operation(
                    name: "notifications", program: .tweetcli, arguments: { _, _ in ["notifications"] + limit },
                    sql: { subjects, _ in peer.notifications(subjects) })
            ],
            [
                Operation(
                    name: "thread TWEET_ID", program: .tweetcli,
                    arguments: { subjects, _ in ["thread", subjects.threadTweetID] + limit },
                    sql: { subjects, _ in peer.thread(subjects) })
            ],
            [
                Operation(
                    name: "retweet", program: .tweetcli, arguments: { subjects, _ in ["retweet", subjects.tweetID] },
                    sql: { subjects, _ in peer.retweet(subjects) }),
                Operation(
                    name: "unretweet", program: .tweetcli,
                    arguments: { subjects, _ in ["unretweet", subjects.tweetID] },
                    sql: { subjects, _ in peer.unretweet(subjects) }),
            ],
            [
                Operation(
                    name: "bookmark", program: .tweetcli, arguments: { subjects, _ in ["bookmark", subjects.tweetID] },
                    sql: { subjects, _ in peer.bookmark(subjects) }),
                Operation(
                    name: "unbookmark", program: .tweetcli,
                    arguments: { subjects, _ in ["unbookmark", subjects.tweetID] },
                    sql: { subjects, _ in peer.unbookmark(subjects) }),
            ],
            [
                Operation(
                    name: "bookmarks", program: .tweetcli, arguments: { _, _ in ["bookmarks"] + limit },
                    sql: { subjects, _ in peer.bookmarks(subjects) })
            ],
            [
                Operation(
                    name: "search #swiftui", program: .tweetcli, arguments: { _, _ in ["search", "#swiftui"] + limit },
                    sql: { subjects, _ in peer.searchHashtag(subjects, "swiftui") })
            ],
            [
                Operation(
                    name: "search @USERNAME", program: .tweetcli,
                    arguments: { subjects, _ in ["search", "@" + subjects.username] + limit },
                    sql: { subjects, _ in peer.searchMention(subjects) })
            ],
            [
                Operation(
                    name: "search the (common)", program: .tweetcli, arguments: { _, _ in ["search", "the"] + limit },
                    sql: { subjects, _ in peer.searchWord(subjects, "the") })
            ],
            [
                Operation(
                    name: "search RARE (rare word)", program: .tweetcli,
                    arguments: { subjects, _ in ["search", subjects.rareWord] + limit },
                    sql: { subjects, _ in peer.searchWord(subjects, subjects.rareWord) })
            ],
            [
                Operation(
                    name: "search 東京", program: .tweetcli, arguments: { _, _ in ["search", "東京"] + limit },
                    sql: { subjects, _ in peer.searchText(subjects, "東京") })
            ],
            [
                // One character, found through its own term: 京 is in the seeded captions' 東京, 北京 and 东京.
                Operation(
                    name: "search 京 (one character)", program: .tweetcli,
                    arguments: { _, _ in ["search", "京"] + limit },
                    sql: { subjects, _ in peer.searchText(subjects, "京") })
            ],
            [
                Operation(
                    name: "trends", program: .tweetcli, arguments: { _, _ in ["trends"] },
                    sql: { _, _ in peer.trends })
            ],
            // Issue 43: the same listings read by an account that blocks and mutes accounts and
            // mutes words (see Benchmark.setUpFilteredViewer).
            [filtered("feed", ["feed"], peer.filteredFeed)],
            [filtered("feed --following", ["feed", "--following"], peer.filteredFollowingFeed)],
            [filtered("search the", ["search", "the"], { peer.filteredSearchWord($0, "the") })],
            [filtered("notifications", ["notifications"], peer.filteredNotifications)],
        ]
    }
}
