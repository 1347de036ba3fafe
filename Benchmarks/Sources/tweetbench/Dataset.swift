/// One seeded data set: where its tweetcli store and its peer copy (SQLite or PostgreSQL tables)
/// are, and what building them cost.
struct Dataset {
    /// How many tweets were seeded (likes are as many).
    let tweets: Int
    /// How many users.
    let users: Int
    /// The tweetcli store: a directory, or a PostgreSQL connection URI.
    let store: String
    /// The peer database holding the same data: an SQLite file, or a PostgreSQL connection URI.
    let peer: String
    /// The `tweetcli seed` process that made the store.
    let seed: ChildResult
    /// The store's size in bytes: the files in its directory, or the PostgreSQL database.
    let storeBytes: Int
    /// The same documents written as one plain JSON array, in bytes.
    let jsonArrayBytes: Int
    /// How many documents the export held.
    let documents: Int
    /// `tweetcli export` into a file.
    let export: ChildResult
    /// `tweetcli import` of that file into a new store (the local engine only; the store is removed).
    let importResult: ChildResult?
    /// Wall time of the exported file read through the converter into the peer's shell, in seconds.
    let peerLoadSeconds: Double
    /// The peer database's size after the load, in bytes.
    let peerBytes: Int
    /// A word few tweets have (the least frequent lowercase word found at least 3 times), for search.
    let rareWord: String
    /// The words the filtered viewer mutes: the least common lowercase words of the captions (see
    /// ``DatasetBuilder/mutedWordCount``).
    let mutedWords: [String]

    /// The store's size over the plain JSON array's.
    var sizeRatio: Double { Double(storeBytes) / Double(max(jsonArrayBytes, 1)) }

    /// Documents a second that `result` (the export or the import) handled.
    func documentsPerSecond(_ result: ChildResult) -> Double {
        Double(documents) / max(result.seconds, 1e-9)
    }
}
