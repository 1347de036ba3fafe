/// Who and what the operations on one data set act on, picked deterministically.
struct Subjects: Equatable {
    /// The signed-in user: the first one `tweetcli explore` lists.
    let uid: String
    /// That user's username.
    let username: String
    /// The tweet liked and unliked: the newest in the user's feed that they do not like yet.
    let tweetID: String
    /// What `explore` searches for.
    let query: String
    /// A tweet with replies in the user's feed (or the first one), for `thread`.
    let threadTweetID: String
    /// A word few tweets have, for `search`.
    let rareWord: String
    /// The second signed-in account, who blocks and mutes accounts and mutes words (issue 43).
    var filtered = FilteredViewer()
}

/// The account that reads through filters: blocked and muted accounts, and muted words.
struct FilteredViewer: Equatable {
    var uid = ""
    var username = ""
    /// The accounts it blocks, then those it mutes.
    var blocked: [String] = []
    var muted: [String] = []
    var words: [String] = []
}
