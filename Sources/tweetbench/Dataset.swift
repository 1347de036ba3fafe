/// One seeded data set: where its tweetcli store and its SQLite copy are, and what building them
/// cost.
struct Dataset {
    /// How many tweets were seeded (likes are as many).
    let tweets: Int
    /// The tweetcli store directory.
    let storeDirectory: String
    /// The SQLite database holding the same data.
    let databasePath: String
    /// The `tweetcli seed` process that made the store.
    let seed: ChildResult
    /// The sum of the sizes of the files in the store directory, in bytes.
    let storeBytes: Int
    /// The same documents written as one plain JSON array, in bytes.
    let jsonArrayBytes: Int
    /// How many documents the export held.
    let documents: Int
    /// Wall time of `tweetcli export` piped through the converter into `sqlite3`, in seconds.
    let sqliteLoadSeconds: Double
    /// The SQLite database's size after the load, in bytes.
    let databaseBytes: Int
    /// A word few tweets have (the least frequent lowercase word found at least 3 times), for search.
    let rareWord: String

    /// The store's size over the plain JSON array's.
    var sizeRatio: Double { Double(storeBytes) / Double(max(jsonArrayBytes, 1)) }
}
