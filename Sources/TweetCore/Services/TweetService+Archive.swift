import FoundationEssentials
import Synchronization
import TweetImages
import TweetStore
import TweetSystem
import TwitterArchive
import TwitterText

/// What importing a Twitter archive did.
public struct ArchiveImportReport: Codable, Equatable, Sendable {
    /// The tweets added, replies among them.
    public var tweets = 0
    public var replies = 0
    /// Tweets longer than 280 weighted characters, added whole.
    public var overLimit = 0
    /// Tweets whose control characters (which tweetcli never stores) were replaced.
    public var cleaned = 0
    /// Likes added.
    public var likes = 0
    /// What was left out, and why.
    public var skipped = Skipped()
    /// Accounts followed and followers, which the archive names by ID only: counted, not imported.
    public var following = 0
    public var followers = 0
    /// Photos from `tweets_media/` kept with their tweets, and files there that are not photos
    /// tweetcli keeps (a video, a file over 5 MB, a damaged one).
    public var photos = 0
    public var photosRefused = 0
    /// The profile fields filled from the archive; those already set here, which differ from the
    /// archive's and were kept; and those it had that tweetcli refused, with why.
    public var profile: [String] = []
    public var profileKept: [String] = []
    public var profileRefused: [String: String] = [:]

    public struct Skipped: Codable, Equatable, Sendable {
        /// Tweets this account imported before.
        public var alreadyImported = 0
        /// Tweets whose ID another account's import holds.
        public var importedByAnother = 0
        /// Tweets with no text, or more than tweetcli stores.
        public var unstorable = 0
        /// Likes already in the store, and likes of tweets that are not.
        public var likesAlreadyThere = 0
        public var likedTweetsNotHere = 0

        public var total: Int {
            alreadyImported + importedByAnother + unstorable + likesAlreadyThere + likedTweetsNotHere
        }
    }
}

extension TweetService {
    /// The most bytes an imported caption may have: a Twitter note of 25,000 characters, with room.
    public static let maximumImportedCaptionBytes = TwitterArchive.ArchivedTweet.maximumCaptionBytes

    /// Tries of an archive import that finds, at its commit, that another process wrote where it
    /// writes meanwhile.
    static let archiveAttempts = 3

    /// The ID an archived tweet gets: its time, then its Twitter ID. The time is the one its
    /// Twitter ID holds, to the millisecond, when that agrees with `created` (Twitter writes
    /// created_at from it, to the second); else `created`, so that the tweet's place among the
    /// IDs is its place in time, as every list and the search index need.
    static func importedID(twitterID: UInt64, created: Date?) -> String? {
        if let time = TwitterArchive.snowflakeTime(twitterID),
            created.map({ abs($0.timeIntervalSince1970 - Double(time) / 1000) <= 2 }) ?? true
        {
            return IDGenerator.imported(twitterID: twitterID, at: time)
        }
        guard let created else { return nil }
        let milliseconds = UInt64(max(0, created.timeIntervalSince1970 * 1000))
        return IDGenerator.imported(twitterID: twitterID, at: milliseconds)
    }

    /// Imports `archive`'s tweets and likes as the signed-in user, in one bulk write (see
    /// ``DocumentStore/bulkWrite(produce:finish:)``): the store is read to learn what is there,
    /// the tweets are read from the archive again and written with their search terms and trend
    /// counts, and the counters of tweets already in the store change at the commit. Every
    /// tweet's ID comes from its Twitter ID, so a rerun (of an import that stopped, or of the same
    /// archive later) adds only what is missing, never a tweet twice. Replies to tweets in the
    /// store become replies (and count on them); timestamps are the archive's; nobody is notified
    /// of history. `progress` hears tweets and likes done, of all.
    /// - Throws: ``AuthError/notSignedIn``, ``ArchiveError``, or the store's errors; nothing is
    ///   written then.
    public func importArchive(
        _ archive: TwitterArchive, progress: @escaping @Sendable (_ done: Int, _ of: Int) -> Void = { _, _ in }
    ) async throws -> ArchiveImportReport {
        let me = try await auth.requireUid()
        // The photos first, each kept before any tweet names it, once however often the tweets'
        // write is tried again.
        let photos = try await ArchivePhotos.keep(archive, in: store)
        var attempt = 1
        while true {
            do {
                return try await ArchiveImport.run(archive, as: me, store: store, photos: photos, progress: progress)
            } catch ArchiveImport.Conflict.storeChanged {
                guard attempt < Self.archiveAttempts else { throw ArchiveError.storeKeptChanging }
                attempt += 1
            }
        }
    }
}

/// The photos of an archive's `tweets_media/`, each checked as `post --image` checks one and kept
/// (with its thumbnail) before any tweet names it: at most 4 for a tweet, in the files' order.
/// A file that is not a photo tweetcli keeps (a video's, one over 5 MB, a damaged one) is counted,
/// not kept; the tweet comes without it.
struct ArchivePhotos: Sendable {
    var images: [UInt64: [TweetImage]] = [:]
    var refused = 0

    static func keep(_ archive: TwitterArchive, in store: any DocumentStore) async throws -> ArchivePhotos {
        var photos = ArchivePhotos()
        let files = try archive.photos()
        // One photo's bytes in memory at a time.
        for (id, name) in files.names {
            guard photos.images[id, default: []].count < TweetImage.maximumPerTweet else { continue }
            let bytes = try files.bytes(of: name)
            let image: CheckedImage
            do throws(ImageError) {
                image = try ImageIntake.check(bytes, file: name)
            } catch {
                // Without the image libraries no photo can be kept: that is the build's problem,
                // and the import says so rather than dropping every photo.
                if case .libraryMissing = error { throw error }
                photos.refused += 1
                continue
            }
            try await store.putBlob(image.bytes, address: image.sha256)
            if let thumbnail = image.thumbnail, let address = image.thumbnailSHA256 {
                try await store.putBlob(thumbnail, address: address)
            }
            photos.images[id, default: []].append(TweetImage(image, alt: nil))
        }
        return photos
    }
}

/// A value shared between an import's steps, which the store may run on other threads.
private final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    func get() -> Value { value.withLock { $0 } }

    func update(_ change: (inout Value) -> Void) {
        value.withLock { change(&$0) }
    }
}

/// One try at importing an archive: what each tweet and like becomes, worked out from reads of
/// the store, then the documents, written in one bulk write whose commit checks those reads.
private struct ArchiveImport: Sendable {
    enum Conflict: Error {
        /// Another process wrote, while the import ran, where it writes.
        case storeChanged
    }

    /// What becomes of an archived tweet.
    enum Fate: UInt8, Sendable {
        case added, alreadyImported, importedByAnother, unstorable
    }

    let store: any DocumentStore
    let archive: TwitterArchive
    let me: String
    /// For each of the archive's summaries.
    var fates: [Fate]
    var replyCounts: [Int32]
    var likeCounts: [Int32]
    /// Replies (by summary) to tweets outside the import that are in the store: the tweet and its author.
    var answered: [Int: (id: String, owner: String?)] = [:]
    var report = ArchiveImportReport()
    /// The photos kept for each Twitter ID (``ArchivePhotos``).
    var photos: [UInt64: [TweetImage]] = [:]
    let plan: Shared<CommitPlan>
    /// Reads of the store a batch at a time.
    static let batch = 2048

    /// What the commit needs from the rest of the import.
    struct CommitPlan: Sendable {
        var me = ""
        var tweets = 0
        var isProtected = false
        /// Tweets outside the import that get replies, and that get likes.
        var replyCounts: [String: Int64] = [:]
        var likeCounts: [String: Int64] = [:]
        /// The likes written (the tweets' IDs).
        var likeMarks: [String] = []
        /// What became of each of the archive's tweets: the IDs of those written, again.
        var archive: TwitterArchive?
        var fates: [Fate] = []
        /// The newest tweet written.
        var newest = ""
        var terms = TermChecks()
        /// The trend hours written, with their documents as read.
        var hours: [(hour: String, read: Int)] = []
        /// Buckets whose IDs a rewritten bucket holds now.
        var replacedBuckets: [DocumentPath] = []
    }

    init(store: any DocumentStore, archive: TwitterArchive, me: String, plan: Shared<CommitPlan>) {
        self.store = store
        self.archive = archive
        self.me = me
        self.plan = plan
        fates = Array(repeating: .added, count: archive.summaries.count)
        replyCounts = Array(repeating: 0, count: archive.summaries.count)
        likeCounts = Array(repeating: 0, count: archive.summaries.count)
    }

    /// The ID the tweet of summary `position` gets.
    func id(_ position: Int) -> String {
        let summary = archive.summaries[position]
        // Never nil: the archive gives every tweet its time.
        return TweetService.importedID(twitterID: summary.twitterID, created: summary.created) ?? ""
    }

    /// The tweet added with it that the tweet of summary `position` answers: one older than it
    /// (so that no import makes a reply its own ancestor).
    func insideParent(of position: Int) -> Int? {
        guard let parent = archive.summaries[position].replyTo, let inside = archive.summary(of: parent),
            fates[inside] == .added, ByteOrder.precedes(id(inside), id(position))
        else { return nil }
        return inside
    }

    /// The ID a tweet with Twitter ID `twitterID` would have: the archive's own, or the one its
    /// Twitter ID holds; `nil` for an old one that holds no time.
    func id(ofTwitterID twitterID: UInt64) -> String? {
        archive.summary(of: twitterID).map(id) ?? TweetService.importedID(twitterID: twitterID, created: nil)
    }

    /// One try: reads, then the bulk write.
    static func run(
        _ archive: TwitterArchive, as me: String, store: any DocumentStore, photos: ArchivePhotos,
        progress: @escaping @Sendable (_ done: Int, _ of: Int) -> Void
    ) async throws -> ArchiveImportReport {
        let plan = Shared(CommitPlan())
        let total = archive.summaries.count + archive.likes.count
        let result = Shared(ArchiveImportReport())
        try await store.bulkWrite { bulk in
            // Every read the writes rely on comes after the bulk write has noted the store's
            // version, so that its commit knows whether any of them may be out of date.
            var writer = ArchiveImport(store: store, archive: archive, me: me, plan: plan)
            writer.photos = photos.images
            writer.report.following = archive.following
            writer.report.followers = archive.followers
            writer.report.photosRefused = photos.refused
            let isProtected = try await store.getDocument(UserService.userPath(me))?.data["protected"] == .bool(true)
            try await writer.findTweetsThere()
            try await writer.findReplies()
            let likeMarks = try await writer.findLikes()
            plan.update { plan in
                plan.me = me
                plan.isProtected = isProtected
                plan.likeMarks = likeMarks
            }
            try writer.writeTweets(bulk, isProtected: isProtected, likeMarks: likeMarks) { progress($0, total) }
            try await writer.writeIndex(bulk)
            let report = writer.report
            result.update { $0 = report }
        } finish: { transaction, changed in
            try await commit(plan.get(), in: transaction, changed: changed, store: store)
        }
        progress(total, total)
        return result.get()
    }

    // MARK: Reading what is there

    /// Which of the archive's tweets the store has already, and which cannot be stored.
    private mutating func findTweetsThere() async throws {
        let tweets = store.collection(Collections.tweets)
        var start = 0
        while start < fates.count {
            let range = start..<min(start + Self.batch, fates.count)
            start = range.upperBound
            var paths: [DocumentPath] = []
            for position in range {
                if archive.summaries[position].storable {
                    paths.append(tweets.document(id(position)))
                } else {
                    fates[position] = .unstorable
                }
            }
            let found = try await store.getDocuments(paths)
            guard !found.isEmpty else { continue }
            let owners = Dictionary(found.map { ($0.documentID, $0.data["uid"]?.stringValue) }) { first, _ in first }
            for position in range where fates[position] == .added {
                guard let owner = owners[id(position)] else { continue }
                fates[position] = owner == me ? .alreadyImported : .importedByAnother
            }
        }
        report.skipped.unstorable = fates.count(where: { $0 == .unstorable })
        report.skipped.alreadyImported = fates.count(where: { $0 == .alreadyImported })
        report.skipped.importedByAnother = fates.count(where: { $0 == .importedByAnother })
    }

    /// The tweets each added reply answers: one added with it, or one in the store whose source
    /// says it is the one.
    private mutating func findReplies() async throws {
        var outside: [(reply: Int, parent: UInt64, id: String)] = []
        for position in fates.indices where fates[position] == .added {
            guard let parent = archive.summaries[position].replyTo else { continue }
            if let inside = insideParent(of: position) {
                replyCounts[inside] += 1
            } else if let parentID = id(ofTwitterID: parent) {
                outside.append((position, parent, parentID))
            }
        }
        let tweets = store.collection(Collections.tweets)
        var counts: [String: Int64] = [:]
        for chunk in stride(from: 0, to: outside.count, by: Self.batch) {
            let part = outside[chunk..<min(chunk + Self.batch, outside.count)]
            let found = try await store.getDocuments(part.map { tweets.document($0.id) })
            let byID = Dictionary(found.map { ($0.documentID, $0.data) }) { first, _ in first }
            for reply in part {
                guard let parent = byID[reply.id],
                    parent["source"]?.objectValue?["twitter"]?.stringValue == String(reply.parent)
                else { continue }
                answered[reply.reply] = (reply.id, parent["uid"]?.stringValue)
                counts[reply.id, default: 0] += 1
            }
        }
        plan.update { $0.replyCounts = counts }
    }

    /// Which likes to add: of added tweets, or of tweets in the store whose source says they are
    /// the ones, and not liked yet.
    /// - Returns: the liked tweets' IDs.
    private mutating func findLikes() async throws -> [String] {
        var inside: [(position: Int, id: String)] = []
        var outside: [(twitterID: UInt64, id: String)] = []
        for twitterID in archive.likes {
            if let position = archive.summary(of: twitterID), fates[position] == .added {
                inside.append((position, id(position)))
            } else if let id = id(ofTwitterID: twitterID) {
                outside.append((twitterID, id))
            } else {
                report.skipped.likedTweetsNotHere += 1
            }
        }
        let tweets = store.collection(Collections.tweets)
        let likes = store.collection(Collections.likes(of: me))
        var marks: [String] = []
        var counts: [String: Int64] = [:]
        for chunk in stride(from: 0, to: inside.count, by: Self.batch) {
            let part = inside[chunk..<min(chunk + Self.batch, inside.count)]
            let liked = Set(try await store.getDocuments(part.map { likes.document($0.id) }).map(\.documentID))
            for like in part {
                if liked.contains(like.id) {
                    report.skipped.likesAlreadyThere += 1
                } else {
                    likeCounts[like.position] += 1
                    marks.append(like.id)
                }
            }
        }
        for chunk in stride(from: 0, to: outside.count, by: Self.batch) {
            let part = outside[chunk..<min(chunk + Self.batch, outside.count)]
            let found = try await store.getDocuments(part.map { tweets.document($0.id) })
            let sources = Dictionary(found.map { ($0.documentID, $0.data["source"]?.objectValue?["twitter"]) }) {
                first, _ in first
            }
            let liked = Set(try await store.getDocuments(part.map { likes.document($0.id) }).map(\.documentID))
            for like in part {
                guard case .string(let source)?? = sources[like.id], source == String(like.twitterID) else {
                    report.skipped.likedTweetsNotHere += 1
                    continue
                }
                if liked.contains(like.id) {
                    report.skipped.likesAlreadyThere += 1
                } else {
                    counts[like.id, default: 0] += 1
                    marks.append(like.id)
                }
            }
        }
        report.likes = marks.count
        plan.update { $0.likeCounts = counts }
        return marks
    }

    // MARK: Writing

    /// Reads the archive's tweets again and hands the added ones to `bulk`, with their likes, and
    /// their search terms and hashtags sorted aside for ``writeIndex(_:)``.
    private mutating func writeTweets(
        _ bulk: BulkWrite, isProtected: Bool, likeMarks: [String], progress: (Int) -> Void
    ) throws {
        let tweets = store.collection(Collections.tweets)
        var newest = ""
        var done = 0
        try archive.forEachTweet { position, tweet, stored in
            done += 1
            if done % 1024 == 0 { progress(done) }
            guard fates[position] == .added, let (caption, cleaned) = stored else { return }
            let id = id(position)
            let entities = TweetText.entities(in: caption)
            let overLimit = TweetText.parse(caption).weightedLength > TweetService.maximumCaptionLength
            var source = TweetSource(
                twitter: String(tweet.twitterID), favorites: tweet.favorites, retweets: tweet.retweets,
                overLimit: overLimit ? true : nil)
            var replyTo: String?
            var owner: String?
            if let parent = tweet.replyTo {
                if let inside = insideParent(of: position) {
                    (replyTo, owner) = (self.id(inside), me)
                } else if let outside = answered[position] {
                    (replyTo, owner) = outside
                } else {
                    source.inReplyTo = String(parent)
                }
            }
            let record = TweetRecord(
                id: id, uid: me, caption: caption, likes: Int(likeCounts[position]), timestamp: tweet.created,
                replyToId: replyTo, entities: entities, replyCount: Int(replyCounts[position]), source: source)
            var fields = record.fields
            if let owner { fields["replyToUid"] = .string(owner) }
            if isProtected { fields["untrended"] = .bool(true) }
            if let images = photos[tweet.twitterID] {
                fields["images"] = .array(images.map { .object($0.fields) })
                report.photos += images.count
            }
            try bulk.setData(fields, at: tweets.document(id))
            for term in SearchTerms.terms(caption: caption, entities: entities) {
                try bulk.addRecord(key: IndexRecord.posting(term: term, id: id), value: [])
            }
            if !isProtected {
                var counted: Set<String> = []
                let hour = SearchIndex.hour(tweet.created)
                for tag in entities.hashtags where counted.insert(SearchTerms.fold(tag)).inserted {
                    try bulk.addRecord(
                        key: IndexRecord.hashtag(hour: hour, folded: SearchTerms.fold(tag), id: id),
                        value: Array(tag.utf8))
                }
            }
            if ByteOrder.precedes(newest, id) { newest = id }
            report.tweets += 1
            if replyTo != nil { report.replies += 1 }
            if overLimit { report.overLimit += 1 }
            if cleaned { report.cleaned += 1 }
        }
        let likes = store.collection(Collections.likes(of: me))
        let time = Timestamp.string(from: Date())
        for id in likeMarks {
            try bulk.setData(["timestamp": .string(time), "tweetId": .string(id)], at: likes.document(id))
        }
        let (tweetCount, whole, written) = (report.tweets, archive, fates)
        plan.update { plan in
            plan.tweets = tweetCount
            plan.archive = whole
            plan.fates = written
            plan.newest = newest
        }
    }

    /// Writes the search terms' buckets and the hours' hashtag counts from the records
    /// ``writeTweets(_:isProtected:likeMarks:progress:)`` sorted aside, merged with what the store has.
    private mutating func writeIndex(_ bulk: BulkWrite) async throws {
        let records = try bulk.sortedRecords()
        var terms = PendingTerms()
        var hours: [(hour: String, counts: [String: (hashtag: String, tweets: Int64)])] = []
        var checks = TermChecks()
        var hourChecks: [(hour: String, read: Int)] = []
        var replaced: [DocumentPath] = []
        while let (key, value) = try records.next() {
            switch IndexRecord(key) {
            case .posting(let term, let id):
                if terms.isFull, !terms.endsWith(term) {
                    try await writeTerms(&terms, bulk, checks: &checks, replaced: &replaced)
                }
                terms.add(term: term, id: id)
            case .hashtag(let hour, let folded):
                let tag = String(decoding: value, as: UTF8.self)
                if hours.last?.hour != hour {
                    if hours.count >= Self.batch {
                        try await writeHours(hours, bulk, checks: &hourChecks)
                        hours.removeAll(keepingCapacity: true)
                    }
                    hours.append((hour, [:]))
                }
                let counted = hours[hours.count - 1].counts[folded]
                hours[hours.count - 1].counts[folded] = (counted?.hashtag ?? tag, (counted?.tweets ?? 0) + 1)
            case nil:
                throw StoreError.io(path: "an archive import", reason: "a sorted record was damaged")
            }
        }
        try await writeTerms(&terms, bulk, checks: &checks, replaced: &replaced)
        try await writeHours(hours, bulk, checks: &hourChecks)
        plan.update { plan in
            plan.terms = checks
            plan.hours = hourChecks
            plan.replacedBuckets = replaced
        }
    }

    /// The buckets and documents of the terms gathered, then none gathered.
    private mutating func writeTerms(
        _ terms: inout PendingTerms, _ bulk: BulkWrite, checks: inout TermChecks, replaced: inout [DocumentPath]
    ) async throws {
        guard terms.count > 0 else { return }
        let names = (0..<terms.count).map { terms.term($0) }
        let found = try await store.getDocuments(names.map(SearchIndex.termPath))
        let existing = Dictionary(found.map { ($0.path, $0.data) }) { first, _ in first }
        for (position, term) in names.enumerated() {
            let path = SearchIndex.termPath(term)
            let read = existing[path]
            if let read {
                let ids = terms.ids(position)
                guard
                    let merge = try await SearchIndex.mergeMissing(
                        ids, term: term, existing: read, store: store,
                        document: { try await store.getDocument($0)?.data },
                        query: { try await store.runQuery($0) })
                else { continue }
                for (bucket, fields) in merge.buckets { try bulk.setData(fields, at: bucket) }
                try bulk.setData(merge.fields, at: path)
                replaced += merge.replaced
                checks.append(
                    term: term, read: ArchiveImport.hash(read), added: merge.added,
                    flags: (merge.rewrote ? TermChecks.rewrote : 0)
                        | (merge.movedOpen ? TermChecks.movedOpen : 0))
            } else {
                // A term the store does not have yet: its buckets straight from the IDs, a bucket's
                // worth of strings at a time (a common word of a million tweets has most of them).
                let buckets = SearchIndex.bucketsCollection(term)
                var newest: [String] = []
                let count = terms.idCount(position)
                for chunk in stride(from: 0, to: count, by: SearchIndex.seedBucketSize) {
                    newest = terms.ids(position, chunk..<min(chunk + SearchIndex.seedBucketSize, count))
                    try bulk.setData(
                        SearchIndex.bucket(newest), at: DocumentPath(collection: buckets, documentID: newest[0]))
                }
                try bulk.setData(
                    [
                        "tweets": .integer(Int64(count)), "open": .string(newest[0]),
                        "openSize": .integer(Int64(newest.count)),
                    ], at: path)
                checks.append(term: term, read: 0, added: count, flags: TermChecks.fresh)
            }
        }
        terms = PendingTerms()
    }

    /// The hours' hashtag counts added to what the store has.
    private mutating func writeHours(
        _ hours: [(hour: String, counts: [String: (hashtag: String, tweets: Int64)])], _ bulk: BulkWrite,
        checks: inout [(hour: String, read: Int)]
    ) async throws {
        guard !hours.isEmpty else { return }
        let found = try await store.getDocuments(hours.map { SearchIndex.trendPath($0.hour) })
        let existing = Dictionary(found.map { ($0.path, $0.data) }) { first, _ in first }
        for (hour, added) in hours {
            let path = SearchIndex.trendPath(hour)
            let read = existing[path]
            var counts = SearchIndex.trendCounts(read)
            for (key, tag) in added {
                let (sum, overflow) = (counts[key]?.tweets ?? 0).addingReportingOverflow(tag.tweets)
                counts[key] = (counts[key]?.hashtag ?? tag.hashtag, overflow ? .max : sum)
            }
            try bulk.setData(SearchIndex.trendFields(counts), at: path)
            checks.append((hour, ArchiveImport.hash(read)))
        }
    }

    // MARK: Committing

    /// A document's fingerprint as read: 0 for none.
    static func hash(_ fields: JSONObject?) -> Int {
        guard let fields else { return 0 }
        var hasher = Hasher()
        hasher.combine(fields)
        return hasher.finalize() | 1
    }

    /// Under the store's lock: the counters of tweets outside the import and of the user, and,
    /// when anything was committed since the import read the store, a check that nothing it wrote
    /// is there now and nothing it merged with changed, except what another's newer tweets add
    /// to a term, which is merged again.
    /// - Throws: ``Conflict/storeChanged`` when something else changed.
    static func commit(
        _ plan: CommitPlan, in transaction: Transaction, changed: Bool, store: any DocumentStore
    ) async throws {
        let tweets = Collections.tweets
        if changed {
            let isProtected =
                try await transaction.getDocument(UserService.userPath(plan.me))?.data["protected"] == .bool(true)
            guard isProtected == plan.isProtected else { throw Conflict.storeChanged }
            if let archive = plan.archive {
                for position in plan.fates.indices where plan.fates[position] == .added {
                    let summary = archive.summaries[position]
                    let id = TweetService.importedID(twitterID: summary.twitterID, created: summary.created) ?? ""
                    if try await transaction.getDocument(DocumentPath(collection: tweets, documentID: id)) != nil {
                        throw Conflict.storeChanged
                    }
                }
            }
            let likes = Collections.likes(of: plan.me)
            for id in plan.likeMarks
            where try await transaction.getDocument(DocumentPath(collection: likes, documentID: id)) != nil {
                throw Conflict.storeChanged
            }
            for (hour, read) in plan.hours
            where hash(try await transaction.getDocument(SearchIndex.trendPath(hour))?.data) != read {
                throw Conflict.storeChanged
            }
            for position in 0..<plan.terms.count {
                let path = SearchIndex.termPath(plan.terms.term(position))
                let current = try await transaction.getDocument(path)?.data
                guard hash(current) != plan.terms.reads[position] else { continue }
                // Only another's tweets, newer than every one imported, may have come: they are
                // in buckets of their own, and the term's count adds both.
                let flags = plan.terms.flags[position]
                guard var fields = current,
                    flags & (TermChecks.rewrote | TermChecks.movedOpen) == 0 || flags == TermChecks.fresh,
                    let open = fields["open"]?.stringValue, ByteOrder.precedes(plan.newest, open)
                else { throw Conflict.storeChanged }
                let (sum, overflow) = (fields["tweets"]?.integerValue ?? 0).addingReportingOverflow(
                    Int64(plan.terms.added[position]))
                fields["tweets"] = .integer(overflow ? .max : sum)
                transaction.setData(fields, at: path)
            }
        }
        for bucket in plan.replacedBuckets { transaction.deleteDocument(bucket) }
        for (counts, field) in [(plan.replyCounts, "replyCount"), (plan.likeCounts, "likes")] {
            for (id, count) in counts {
                let path = DocumentPath(collection: tweets, documentID: id)
                if changed, try await transaction.getDocument(path) == nil { throw Conflict.storeChanged }
                transaction.updateData([field: .incrementCount(count)], at: path)
            }
        }
        if plan.tweets > 0 {
            try await StatsCounter.add(plan.tweets, to: \.tweets, of: plan.me, in: transaction, store: store)
        }
    }
}

/// The keys of the records an archive import sorts aside: a search term's posting, `0`, the
/// term's length (4 bytes, big-endian), the term and the tweet's ID; or a hashtag, `1`, the hour
/// (10 bytes), the folded hashtag, `0` and the tweet's ID, with the hashtag as written for value.
/// Sorted, a term's IDs come together in ID order, and an hour's hashtags together, oldest first.
private enum IndexRecord {
    case posting(term: ArraySlice<UInt8>, id: ArraySlice<UInt8>)
    case hashtag(hour: String, folded: String)

    static func posting(term: String, id: String) -> [UInt8] {
        let count = UInt32(term.utf8.count)
        var key: [UInt8] = [
            0, UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF),
        ]
        key += term.utf8
        key += id.utf8
        return key
    }

    static func hashtag(hour: String, folded: String, id: String) -> [UInt8] {
        var key: [UInt8] = [1]
        key += hour.utf8
        key += folded.utf8
        key.append(0)
        key += id.utf8
        return key
    }

    /// The record `key` is; `nil` for one no import writes.
    init?(_ key: [UInt8]) {
        guard let kind = key.first else { return nil }
        if kind == 0, key.count >= 5 {
            let count = key[1..<5].reduce(0) { $0 << 8 | Int($1) }
            guard 5 + count <= key.count else { return nil }
            self = .posting(term: key[5..<(5 + count)], id: key[(5 + count)...])
        } else if kind == 1, key.count > 11, let end = key[11...].firstIndex(of: 0) {
            self = .hashtag(
                hour: String(decoding: key[1..<11], as: UTF8.self),
                folded: String(decoding: key[11..<end], as: UTF8.self))
        } else {
            return nil
        }
    }
}

/// Terms gathered with their IDs (sorted, each once), to read their documents together: as bytes,
/// since a million tweets' terms as strings would take far more memory.
private struct PendingTerms {
    private var termBytes: [UInt8] = []
    private var termEnds: [Int] = []
    private var idBytes: [UInt8] = []
    /// Where each term's IDs end in `idBytes`, and each ID.
    private var idEnds: [Int] = []
    private var termIDEnds: [Int] = []

    var count: Int { termEnds.count }
    /// Whether enough is gathered to read.
    var isFull: Bool { termEnds.count >= 1024 || idBytes.count >= 1 << 20 }

    /// Whether `term` is the last term gathered (a term's IDs are never split between reads).
    func endsWith(_ term: ArraySlice<UInt8>) -> Bool {
        guard let end = termEnds.last else { return false }
        return termBytes[(termEnds.count > 1 ? termEnds[termEnds.count - 2] : 0)..<end].elementsEqual(term)
    }

    /// Adds `id` to `term`: the last term gathered, or a new one after it (the records are sorted).
    mutating func add(term: ArraySlice<UInt8>, id: ArraySlice<UInt8>) {
        if !endsWith(term) {
            termIDEnds.append(idEnds.count)
            termBytes += term
            termEnds.append(termBytes.count)
        }
        idBytes += id
        idEnds.append(idBytes.count)
    }

    func term(_ position: Int) -> String {
        String(decoding: termBytes[(position == 0 ? 0 : termEnds[position - 1])..<termEnds[position]], as: UTF8.self)
    }

    /// How many IDs term `position` has.
    func idCount(_ position: Int) -> Int {
        (position + 1 < termIDEnds.count ? termIDEnds[position + 1] : idEnds.count) - termIDEnds[position]
    }

    /// The IDs of term `position`, in order: all, or those at `range` among them.
    func ids(_ position: Int, _ range: Range<Int>? = nil) -> [String] {
        let first = termIDEnds[position]
        let range = range ?? 0..<idCount(position)
        return range.map { offset in
            let index = first + offset
            return String(decoding: idBytes[(index == 0 ? 0 : idEnds[index - 1])..<idEnds[index]], as: UTF8.self)
        }
    }
}

/// The terms an import wrote, with how it found each, for its commit to check: as bytes, since a
/// million tweets' terms as strings would take far more memory.
struct TermChecks: Sendable {
    /// The term was not in the store: its buckets and document are all new.
    static let fresh: UInt8 = 1
    /// Buckets the store had were written again, with the new IDs among theirs.
    static let rewrote: UInt8 = 2
    /// The term's open bucket is now one of the import's.
    static let movedOpen: UInt8 = 4

    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    private(set) var reads: [Int] = []
    private(set) var added: [Int32] = []
    private(set) var flags: [UInt8] = []

    var count: Int { ends.count }

    mutating func append(term: String, read: Int, added count: Int, flags: UInt8) {
        bytes += term.utf8
        ends.append(bytes.count)
        reads.append(read)
        added.append(Int32(clamping: count))
        self.flags.append(flags)
    }

    func term(_ position: Int) -> String {
        String(decoding: bytes[(position == 0 ? 0 : ends[position - 1])..<ends[position]], as: UTF8.self)
    }
}
