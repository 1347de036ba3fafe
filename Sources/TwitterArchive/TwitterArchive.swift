import FoundationEssentials
import TweetStore
import TweetSystem
import TwitterText

/// What tweetcli takes from the archive Twitter lets a user download: the account, the profile,
/// the tweets, the likes, and how many accounts they follow and are followed by (the archive
/// names those by ID only). Checked whole before anything is written. The tweets are not held:
/// ``read(path:progress:)`` keeps a summary of each, and ``forEachTweet(_:)`` reads them again,
/// so that an archive of millions of tweets takes the memory of its summaries.
public struct TwitterArchive: Sendable {
    public struct Account: Equatable, Sendable {
        public var username: String
        public var displayName: String
        public var email: String?
    }

    public struct Profile: Equatable, Sendable {
        public var bio: String?
        public var website: String?
        public var location: String?
        /// The last part of the avatar's address (`avatarMediaUrl`), which its file in
        /// `profile_media/` ends with.
        public var avatarFile: String?

        public init(bio: String? = nil, website: String? = nil, location: String? = nil, avatarFile: String? = nil) {
            self.bio = bio
            self.website = website
            self.location = location
            self.avatarFile = avatarFile
        }
    }

    /// One tweet as tweetcli will store it: HTML entities undone, t.co links expanded.
    public struct ArchivedTweet: Equatable, Sendable {
        /// Twitter's ID (`id_str`).
        public var twitterID: UInt64
        public var created: Date
        public var text: String
        /// The Twitter ID of the tweet it replies to, if any.
        public var replyTo: UInt64?
        public var favorites: Int
        public var retweets: Int
    }

    /// What an import needs of a tweet before it reads the tweet again: who it is, when, what it
    /// answers, and whether its text can be stored. Three words, for a million of them.
    public struct TweetSummary: Equatable, Sendable {
        public let twitterID: UInt64
        /// The Twitter ID it answers, 0 for none (Twitter's IDs start at 1).
        private let reply: UInt64
        /// Its time in seconds (signed, above bit 23), whether it is storable (bit 22) and its
        /// place among the archive's tweets (below).
        private let packed: UInt64

        init(twitterID: UInt64, created: Date, replyTo: UInt64?, storable: Bool, ordinal: Int) {
            self.twitterID = twitterID
            reply = replyTo ?? 0
            let seconds = Int64(max(-1e12, min(1e12, created.timeIntervalSince1970.rounded(.down))))
            packed = UInt64(bitPattern: seconds << 23) | (storable ? 1 << 22 : 0) | UInt64(ordinal & 0x3F_FFFF)
        }

        /// To the second, as the archive gives it.
        public var created: Date { Date(timeIntervalSince1970: Double(Int64(bitPattern: packed) >> 23)) }
        public var replyTo: UInt64? { reply == 0 ? nil : reply }
        /// Whether ``ArchivedTweet/storedCaption`` is not `nil`.
        public var storable: Bool { packed >> 22 & 1 == 1 }
        /// Its place among the archive's tweets, in file order (0 for the first).
        public var ordinal: Int { Int(packed & 0x3F_FFFF) }

        /// Whether `tweet`, whose ``ArchivedTweet/storedCaption`` is `caption`, is the one summarized.
        func describes(_ tweet: ArchivedTweet, caption: (text: String, cleaned: Bool)?) -> Bool {
            self
                == TweetSummary(
                    twitterID: tweet.twitterID, created: tweet.created, replyTo: tweet.replyTo,
                    storable: caption != nil, ordinal: ordinal)
        }
    }

    public var account: Account?
    public var profile: Profile?
    /// One for each tweet, sorted by Twitter ID; of a Twitter ID given twice, the first.
    public var summaries: [TweetSummary] = []
    /// The Twitter IDs of the liked tweets, each once, in the archive's order.
    public var likes: [UInt64] = []
    public var following = 0
    public var followers = 0
    /// Where the archive is, and its files of tweets, in order: for ``forEachTweet(_:)``.
    private var path = ""
    private var tweetFiles: [String] = []

    /// The time a Twitter ID holds, in milliseconds since 1970: IDs since November 2010
    /// ("snowflakes") begin with it; `nil` for an older ID, which is a plain count.
    package static func snowflakeTime(_ id: UInt64) -> UInt64? {
        id >= 1 << 42 ? (id >> 22) + 1_288_834_974_657 : nil
    }

    // MARK: Reading

    /// The data types tweetcli reads, by the manifest's name and the file names older archives use
    /// without one (`tweet.js`, then `tweets.js` with `tweets-part1.js` and so on).
    private static let kinds: [(manifest: [String], file: [String])] = [
        (["account"], ["account"]), (["profile"], ["profile"]), (["tweets", "tweet"], ["tweets", "tweet"]),
        (["like"], ["like"]), (["following"], ["following"]), (["follower"], ["follower"]),
    ]

    /// The most tweets (and likes) an archive may have, and the most bytes of tweet text: bounds
    /// on what an import holds in memory at once. A tweet's place fits in 22 bits.
    static let maximumTweets = 4_000_000
    static let maximumTextBytes = 1 << 30

    /// Reads the archive at `path` (the downloaded `.zip`, or the folder it unpacks to).
    /// `progress` hears how many tweets have been read so far, now and then.
    /// - Throws: ``ArchiveError``: a file that cannot be read, or one that is malformed, named
    ///   with the place.
    public static func read(path: String, progress: (Int) -> Void = { _ in }) throws -> TwitterArchive {
        let files = try ArchiveFiles(path: path)
        let parts = try partsByKind(files)
        var archive = TwitterArchive()
        var likes: Set<UInt64> = []
        for name in parts["account"] ?? [] {
            try ArchiveScript.read(name, in: files) { index, value in
                let fields = try wrapped(value, "account", file: name, index: index)
                guard let username = fields["username"]?.stringValue else {
                    throw ArchiveError.malformed(file: name, place: "item \(index + 1)", reason: "it has no username")
                }
                archive.account = Account(
                    username: username, displayName: fields["accountDisplayName"]?.stringValue ?? username,
                    email: fields["email"]?.stringValue)
            }
        }
        for name in parts["profile"] ?? [] {
            try ArchiveScript.read(name, in: files) { index, value in
                let fields = try wrapped(value, "profile", file: name, index: index)
                let description = fields["description"]?.objectValue ?? [:]
                let avatar = fields["avatarMediaUrl"]?.stringValue?.split(separator: "/").last.map(String.init)
                archive.profile = Profile(
                    bio: description["bio"]?.stringValue, website: description["website"]?.stringValue,
                    location: description["location"]?.stringValue, avatarFile: avatar)
            }
        }
        archive.path = path
        archive.tweetFiles = parts["tweets"] ?? []
        var textBytes = 0
        try forEachTweet(in: files, names: archive.tweetFiles) { ordinal, tweet in
            textBytes += tweet.text.utf8.count
            guard ordinal < maximumTweets, textBytes <= maximumTextBytes else {
                throw ArchiveError.unreadable(
                    path,
                    reason: "it has more tweets than tweetcli imports at once (\(maximumTweets), "
                        + "or \(maximumTextBytes >> 20) MiB of text)")
            }
            archive.summaries.append(
                TweetSummary(
                    twitterID: tweet.twitterID, created: tweet.created, replyTo: tweet.replyTo,
                    storable: tweet.storedCaption != nil, ordinal: ordinal))
            if archive.summaries.count % 5000 == 0 { progress(archive.summaries.count) }
        }
        for name in parts["like"] ?? [] {
            try ArchiveScript.read(name, in: files) { index, value in
                let fields = try wrapped(value, "like", file: name, index: index)
                guard let id = fields["tweetId"]?.stringValue.flatMap(UInt64.init) else {
                    throw ArchiveError.malformed(
                        file: name, place: "item \(index + 1)", reason: "its tweetId is not a tweet's ID")
                }
                guard likes.insert(id).inserted else { return }
                guard archive.likes.count < maximumTweets else {
                    throw ArchiveError.unreadable(
                        path, reason: "it has more likes than tweetcli imports at once (\(maximumTweets))")
                }
                archive.likes.append(id)
            }
        }
        for (kind, count) in [("following", \TwitterArchive.following), ("follower", \.followers)] {
            for name in parts[kind] ?? [] {
                try ArchiveScript.read(name, in: files) { index, value in
                    _ = try wrapped(value, kind, file: name, index: index)
                    archive[keyPath: count] += 1
                }
            }
        }
        // In place, for a million of them: sorted, then each Twitter ID's first kept.
        archive.summaries.sort { ($0.twitterID, $0.ordinal) < ($1.twitterID, $1.ordinal) }
        var kept = 0
        for position in archive.summaries.indices
        where kept == 0 || archive.summaries[kept - 1].twitterID != archive.summaries[position].twitterID {
            archive.summaries[kept] = archive.summaries[position]
            kept += 1
        }
        archive.summaries.removeLast(archive.summaries.count - kept)
        return archive
    }

    /// The most bytes of a photo file read: one byte more than a photo may have, so that a larger
    /// one is known to be larger without reading it all.
    public static let maximumPhotoBytes = 5 * 1024 * 1024 + 1

    /// The archive's photos, read one at a time.
    public func photos() throws -> Photos { Photos(files: try ArchiveFiles(path: path)) }

    /// The files of `tweets_media/`, named `<tweet ID>-<name>`, and their bytes.
    public struct Photos {
        let files: ArchiveFiles

        /// Each file's tweet and name, in name order; files named otherwise are passed over.
        public var names: [(twitterID: UInt64, name: String)] {
            files.files(in: "tweets_media").compactMap { path in
                let file = path.dropFirst("data/tweets_media/".count)
                guard let dash = file.firstIndex(of: "-"), let id = UInt64(file[..<dash]) else { return nil }
                return (id, String(file))
            }
        }

        /// The bytes of the file `name`, at most ``TwitterArchive/maximumPhotoBytes`` (a larger one
        /// comes cut, and its check refuses it).
        public func bytes(of name: String) throws -> [UInt8] {
            try TwitterArchive.bytes(of: "data/tweets_media/" + name, in: files)
        }
    }

    /// The bytes of the profile's avatar in `profile_media/` (at most ``maximumPhotoBytes``), if
    /// the profile names one and it is there.
    public func avatarPhoto() throws -> [UInt8]? {
        guard let avatar = profile?.avatarFile, !avatar.isEmpty else { return nil }
        let files = try ArchiveFiles(path: path)
        guard let name = files.files(in: "profile_media").first(where: { $0.hasSuffix("-" + avatar) }) else {
            return nil
        }
        return try Self.bytes(of: name, in: files)
    }

    private static func bytes(of name: String, in files: ArchiveFiles) throws -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            try files.read(name) { piece in
                bytes += piece.prefix(maximumPhotoBytes - bytes.count)
                if bytes.count >= maximumPhotoBytes { throw PhotoTooLarge() }
            }
        } catch is PhotoTooLarge {}
        return bytes
    }

    /// Stops reading a photo once it is larger than any may be.
    private struct PhotoTooLarge: Error {}

    /// Reads the archive's tweets again, in file order, and hands each to `body` with the
    /// position of its ``summaries`` entry and its ``ArchivedTweet/storedCaption``; of a Twitter
    /// ID given twice, only the first. A tweet that is not the one summarized there (the archive
    /// was changed since it was read) ends the reading with an error.
    /// - Throws: ``ArchiveError``, or what `body` throws.
    public func forEachTweet(
        _ body: (_ summary: Int, _ tweet: ArchivedTweet, _ caption: (text: String, cleaned: Bool)?) throws -> Void
    ) throws {
        let files = try ArchiveFiles(path: path)
        var handed = 0
        try Self.forEachTweet(in: files, names: tweetFiles) { ordinal, tweet in
            guard let position = summary(of: tweet.twitterID),
                case let summary = summaries[position], summary.ordinal <= ordinal
            else {
                throw ArchiveError.unreadable(path, reason: "it changed while it was imported")
            }
            guard summary.ordinal == ordinal else { return }  // A repeat of a Twitter ID.
            let caption = tweet.storedCaption
            guard summary.describes(tweet, caption: caption) else {
                throw ArchiveError.unreadable(path, reason: "it changed while it was imported")
            }
            try body(position, tweet, caption)
            handed += 1
        }
        // A tweet cut from the file since, or replaced by a repeat, would never be handed over.
        guard handed == summaries.count else {
            throw ArchiveError.unreadable(path, reason: "it changed while it was imported")
        }
    }

    /// The position in ``summaries`` of the tweet with Twitter ID `twitterID`, if the archive has it.
    public func summary(of twitterID: UInt64) -> Int? {
        var low = 0
        var high = summaries.count
        while low < high {
            let middle = (low + high) / 2
            if summaries[middle].twitterID < twitterID { low = middle + 1 } else { high = middle }
        }
        return low < summaries.count && summaries[low].twitterID == twitterID ? low : nil
    }

    /// Every tweet, each Twitter ID once, oldest first (by time, then by ID): for archives small
    /// enough to hold.
    public func readTweets() throws -> [ArchivedTweet] {
        var tweets: [ArchivedTweet] = []
        try forEachTweet { _, tweet, _ in tweets.append(tweet) }
        return tweets.sorted { ($0.created, $0.twitterID) < ($1.created, $1.twitterID) }
    }

    /// The tweets of the files `names`, in order, checked, each with its place among them all.
    private static func forEachTweet(
        in files: ArchiveFiles, names: [String], _ body: (Int, ArchivedTweet) throws -> Void
    ) throws {
        var ordinal = 0
        for name in names {
            try ArchiveScript.readItems(name, in: files) { index, item, notJSON in
                let fields: JSONObject
                do {
                    fields = try tweetFields(item, file: name, index: index)
                } catch let error as JSONParseError {
                    throw notJSON(error)
                }
                try body(ordinal, try ArchivedTweet(fields, file: name, index: index))
                ordinal += 1
            }
        }
    }

    /// The files of each kind, in part order: from `data/manifest.js` when there is one, else by
    /// their names.
    private static func partsByKind(_ files: ArchiveFiles) throws -> [String: [String]] {
        var parts: [String: [String]] = [:]
        if files.names.contains("data/manifest.js") {
            var types: JSONObject = [:]
            try ArchiveScript.read("data/manifest.js", in: files) { _, value in
                types = value.objectValue?["dataTypes"]?.objectValue ?? [:]
            }
            // Each file is read once, as one kind: listed twice, it is still one file.
            var listed: [String: String] = [:]
            for kind in kinds {
                guard let type = kind.manifest.lazy.compactMap({ types[$0]?.objectValue }).first else { continue }
                var names: [String] = []
                for name in (type["files"]?.arrayValue ?? []).compactMap({ $0.objectValue?["fileName"]?.stringValue }) {
                    let place = "dataTypes.\(kind.manifest[0])"
                    guard files.names.contains(name) else {
                        throw ArchiveError.malformed(
                            file: "data/manifest.js", place: place,
                            reason: "it lists \(name), which the archive does not have")
                    }
                    if let other = listed[name], other != kind.manifest[0] {
                        throw ArchiveError.malformed(
                            file: "data/manifest.js", place: place,
                            reason: "it lists \(name) as \(other) too")
                    }
                    if listed.updateValue(kind.manifest[0], forKey: name) == nil { names.append(name) }
                }
                parts[kind.manifest[0]] = names
            }
            return parts
        }
        for kind in kinds {
            // tweets.js or tweet.js, then their numbered parts in number order.
            var found: [(Int, String)] = []
            for name in files.names {
                let file = name.dropFirst(5).dropLast(3)
                for base in kind.file {
                    if file == base {
                        found.append((0, name))
                    } else if file.hasPrefix(base + "-part"), let number = Int(file.dropFirst(base.count + 5)) {
                        found.append((number, name))
                    }
                }
            }
            if !found.isEmpty { parts[kind.manifest[0]] = found.sorted { $0 < $1 }.map(\.1) }
        }
        return parts
    }

    /// The keys of a tweet object tweetcli reads: the rest of an item is walked (and checked) unbuilt.
    private static let tweetKeys = [
        "id_str", "full_text", "text", "created_at", "in_reply_to_status_id_str", "favorite_count", "retweet_count",
        "entities", "extended_entities",
    ].map { Array($0.utf8) }

    /// The fields of the tweet in an item `{"tweet": {…}}` (or, in the oldest archives, the tweet
    /// object itself) that tweetcli reads, as ``wrapped(_:_:file:index:bare:)`` finds them in the
    /// whole item, without building the rest: a tweet's item is mostly fields it leaves.
    private static func tweetFields(_ item: UnsafeBufferPointer<UInt8>, file: String, index: Int) throws -> JSONObject {
        var cursor = JSONCursor(item)
        guard cursor.peek() == UInt8(ascii: "{") else {
            _ = try cursor.readValue()
            try cursor.finish()
            throw ArchiveError.malformed(file: file, place: "item \(index + 1)", reason: "it is not an object")
        }
        try cursor.enterObject()
        var outer = JSONObject()
        var tweet: JSONValue?
        var hasID = false
        let keys = [Array("tweet".utf8)] + tweetKeys
        while let key = try cursor.nextKey(among: keys) {
            if key == 0 {
                tweet =
                    cursor.peek() == UInt8(ascii: "{")
                    ? try cursor.readValue(keepingFields: tweetKeys) : try cursor.readValue()
            } else if key < keys.count {
                outer[String(decoding: keys[key], as: UTF8.self)] = try cursor.readValue()
                hasID = hasID || key == 1
            } else {
                try cursor.skipValue()
            }
        }
        try cursor.finish()
        if let inner = tweet?.objectValue { return inner }
        guard hasID else {
            throw ArchiveError.malformed(file: file, place: "item \(index + 1)", reason: "it has no \"tweet\" object")
        }
        return outer
    }

    /// The object inside an item `{"kind": {…}}`; `bare`, an item that is the object itself too
    /// (the oldest archives' tweets).
    private static func wrapped(_ value: JSONValue, _ kind: String, file: String, index: Int, bare: Bool = false)
        throws -> JSONObject
    {
        guard let item = value.objectValue else {
            throw ArchiveError.malformed(file: file, place: "item \(index + 1)", reason: "it is not an object")
        }
        if let inner = item[kind]?.objectValue { return inner }
        if bare, item["id_str"] != nil { return item }
        throw ArchiveError.malformed(file: file, place: "item \(index + 1)", reason: "it has no \"\(kind)\" object")
    }
}

extension TwitterArchive.ArchivedTweet {
    /// The most bytes a stored caption may have: a Twitter note of 25,000 characters, with room.
    public static let maximumCaptionBytes = 128 << 10

    /// The text as tweetcli stores it: line breaks as `\n`, trimmed, and what the composer refuses
    /// (controls, bidirectional overrides) replaced, which `cleaned` says; `nil` when nothing is
    /// left, or more than ``maximumCaptionBytes``.
    public var storedCaption: (text: String, cleaned: Bool)? {
        var caption = text.replacingEvery("\r\n", with: "\n").trimmed()
        var cleaned = false
        if TextRules.forbiddenCharacter(in: caption, multiline: true) != nil {
            var scalars = String.UnicodeScalarView()
            for scalar in caption.unicodeScalars {
                let forbidden = TextRules.forbiddenCharacter(in: String(scalar), multiline: true) != nil
                scalars.append(forbidden ? (scalar == "\u{2028}" || scalar == "\u{2029}" ? "\n" : "\u{FFFD}") : scalar)
            }
            caption = String(scalars)
            cleaned = true
        }
        guard !caption.isEmpty, caption.utf8.count <= Self.maximumCaptionBytes else { return nil }
        return (caption, cleaned)
    }
}

extension TwitterArchive.ArchivedTweet {
    /// A tweet from its archived fields, checked.
    init(_ fields: JSONObject, file: String, index: Int) throws {
        func bad(_ reason: String) -> ArchiveError {
            .malformed(file: file, place: "item \(index + 1)", reason: reason)
        }
        guard let id = fields["id_str"]?.stringValue.flatMap(UInt64.init) else {
            throw bad("its id_str is not a tweet's ID")
        }
        guard let text = fields["full_text"]?.stringValue ?? fields["text"]?.stringValue else {
            throw bad("it has no full_text")
        }
        guard let stamp = fields["created_at"]?.stringValue, let created = TwitterTime.date(stamp) else {
            throw bad("its created_at is not a time such as \"Sat Aug 12 16:10:37 +0000 2023\"")
        }
        // Nothing Twitter wrote is from the future: such a tweet would stay on top of every feed.
        let latest = Date().addingTimeInterval(86_400)
        guard created <= latest else { throw bad("its created_at is later than today") }
        if let time = TwitterArchive.snowflakeTime(id), time > UInt64(latest.timeIntervalSince1970 * 1000) {
            throw bad("its id_str is a tweet's ID from later than today")
        }
        var replyTo: UInt64?
        if let parent = fields["in_reply_to_status_id_str"], parent != .null {
            // Twitter's IDs start at 1.
            guard let number = parent.stringValue.flatMap(UInt64.init), number > 0 else {
                throw bad("its in_reply_to_status_id_str is not a tweet's ID")
            }
            replyTo = number
        }
        // t.co links back to what they stand for: links, and the media links of photos and videos.
        var links: [(String, String)] = []
        for group in [fields["entities"]?.objectValue, fields["extended_entities"]?.objectValue] {
            for key in ["urls", "media"] {
                for entity in group?[key]?.arrayValue ?? [] {
                    guard let short = entity.objectValue?["url"]?.stringValue, !short.isEmpty,
                        let long = entity.objectValue?["expanded_url"]?.stringValue, !long.isEmpty
                    else { continue }
                    links.append((short, long))
                }
            }
        }
        func count(_ key: String) -> Int {
            let value = fields[key]
            return Int(value?.integerValue ?? value?.stringValue.flatMap(Int64.init) ?? 0)
        }
        self.init(
            twitterID: id, created: created, text: TwitterText.expand(TwitterText.unescaped(text), links: links),
            replyTo: replyTo, favorites: max(0, count("favorite_count")), retweets: max(0, count("retweet_count")))
    }
}

/// Twitter's own text conventions.
enum TwitterText {
    /// `full_text` as written: the archive escapes `&`, `<` and `>` as HTML does (`&amp;`,
    /// `&lt;`, `&gt;`), and only those; anything else, `&quot;` included, is the user's own text.
    static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let tail = rest[amp...]
            if let (entity, character) = [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">")].first(where: {
                tail.hasPrefix($0.0)
            }) {
                result += character
                rest = tail.dropFirst(entity.count)
            } else {
                result += "&"
                rest = tail.dropFirst()
            }
        }
        return result + rest
    }

    /// The most bytes a caption grows to by expanding its links: past it, the rest stay t.co links.
    static let maximumExpandedBytes = 128 << 10

    /// `text` with each t.co link (`https://t.co/…`, or `http://`) that `links` names replaced by
    /// what it expands to. One pass over the text, each link in place, so that no expansion is
    /// read again and the work is the text's length; growth stops at ``maximumExpandedBytes``.
    /// Links to anything but t.co are left as they are: an archive cannot rewrite its own text.
    static func expand(_ text: String, links: [(String, String)]) -> String {
        // By the code after t.co/, which is what tells links apart (the scheme and host are any case).
        var expansions: [[UInt8]: [UInt8]] = [:]
        for (short, long) in links {
            let bytes = Array(short.utf8)
            guard let link = tcoLink(bytes, at: 0), link.end == bytes.count else { continue }
            let code = Array(bytes[link.code...])
            if expansions[code] == nil { expansions[code] = Array(long.utf8) }
        }
        guard !expansions.isEmpty else { return text }
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var budget = maximumExpandedBytes - min(maximumExpandedBytes, bytes.count)
        var index = 0
        var copied = 0
        // One pass over the bytes: a link starts at an h or H, and only there is one looked for.
        while index < bytes.count {
            guard bytes[index] | 0x20 == 0x68, let link = tcoLink(bytes, at: index),
                let long = expansions[Array(bytes[link.code..<link.end])],
                long.count - (link.end - index) <= budget
            else {
                index += 1
                continue
            }
            budget -= max(0, long.count - (link.end - index))
            result += bytes[copied..<index]
            result += long
            index = link.end
            copied = index
        }
        result += bytes[copied...]
        return String(decoding: result, as: UTF8.self)
    }

    /// The t.co link at `start` of `bytes` (`http://t.co/` or `https://t.co/`, in any case, and
    /// the letters and digits after it): where its code starts and where it ends; `nil` when
    /// there is none.
    private static func tcoLink(_ bytes: [UInt8], at start: Int) -> (code: Int, end: Int)? {
        for prefix in ["https://t.co/", "http://t.co/"] {
            let prefix = prefix.utf8
            guard bytes.count - start > prefix.count,
                zip(bytes[start...], prefix).allSatisfy({ lowercased($0) == $1 })
            else { continue }
            let code = start + prefix.count
            var end = code
            while end < bytes.count, isLetterOrDigit(bytes[end]) { end += 1 }
            return end > code ? (code, end) : nil
        }
        return nil
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}

/// Twitter's `created_at`: `Sat Aug 12 16:10:37 +0000 2023`.
enum TwitterTime {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func date(_ text: String) -> Date? {
        if let fields = fixedFields(text) {
            return date(
                year: fields.year, month: fields.month, day: fields.day, hour: fields.hour, minute: fields.minute,
                second: fields.second, zone: fields.zone)
        }
        let parts = text.split(separator: " ")
        guard parts.count == 6, let month = months.firstIndex(of: String(parts[1])), let day = Int(parts[2]),
            (1...31).contains(day), let year = Int(parts[5]), (1970...9999).contains(year)
        else { return nil }
        let clock = parts[3].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        // An offset is four digits, at most 14 hours either way (the widest any zone has used):
        // "+9999" would move a tweet by four days and land it where no clock ever was.
        let zone = parts[4]
        guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
            zone.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }),
            let hours = Int(zone.dropFirst().prefix(2)), let minutes = Int(zone.suffix(2)),
            (0...59).contains(minutes), hours * 60 + minutes <= 14 * 60
        else { return nil }
        return date(
            year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second,
            zone: (hours * 60 + minutes) * (sign == "+" ? 1 : -1))
    }

    /// The time from its checked fields; `zone` in minutes east of UTC.
    private static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, zone: Int)
        -> Date?
    {
        guard
            let utc = Timestamp.secondsSince1970(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(utc - zone * 60))
    }

    /// The fields of a time written as Twitter always writes it, `Sat Aug 12 16:10:37 +0000 2023`
    /// (30 bytes, each field in its place), checked as ``date(_:)`` checks them; `nil` for any
    /// other form, which the general reading takes: an archive has one time per tweet.
    private static func fixedFields(_ text: String) -> (
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, zone: Int
    )? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 30, bytes[3] == 0x20, bytes[7] == 0x20, bytes[10] == 0x20, bytes[13] == 0x3A,
                bytes[16] == 0x3A, bytes[19] == 0x20, bytes[25] == 0x20
            else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<(start + count) {
                    guard (0x30...0x39).contains(bytes[index]) else { return nil }
                    value = value * 10 + Int(bytes[index] - 0x30)
                }
                return value
            }
            let name = (bytes[4], bytes[5], bytes[6])
            guard let month = monthBytes.firstIndex(where: { $0 == name }),
                let day = number(8, 2), (1...31).contains(day), let hour = number(11, 2), (0...23).contains(hour),
                let minute = number(14, 2), (0...59).contains(minute), let second = number(17, 2),
                (0...60).contains(second), bytes[20] == 0x2B || bytes[20] == 0x2D, let hours = number(21, 2),
                let minutes = number(23, 2), (0...59).contains(minutes), hours * 60 + minutes <= 14 * 60,
                let year = number(26, 4), (1970...9999).contains(year)
            else { return nil }
            let zone = (hours * 60 + minutes) * (bytes[20] == 0x2B ? 1 : -1)
            return (year, month + 1, day, hour, minute, second, zone)
        }
    }

    private static let monthBytes: [(UInt8, UInt8, UInt8)] = months.map { name in
        let bytes = Array(name.utf8)
        return (bytes[0], bytes[1], bytes[2])
    }
}

/// Why a Twitter archive cannot be imported. Nothing is written when reading finds one.
public enum ArchiveError: Error, Equatable, LocalizedError {
    /// The archive, or one of its files, cannot be read.
    case unreadable(String, reason: String)
    /// A file of the archive is not what Twitter writes: the file, the place in it, and why.
    case malformed(file: String, place: String, reason: String)
    /// Nobody is signed in and the archive has no account to create.
    case noAccount
    /// Each try found, when it came to commit, that another process had written where it writes.
    case storeKeptChanging

    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read the Twitter archive \(path): \(reason); nothing was imported"
        case .malformed(let file, let place, let reason):
            return "\(file) of the Twitter archive is malformed at \(place): \(reason); nothing was imported"
        case .noAccount:
            return "nobody is signed in and the archive has no account.js to create the account from"
        case .storeKeptChanging:
            return "other processes kept writing the tweets, likes or search terms this import writes, "
                + "so it stopped; nothing was imported; run it again"
        }
    }
}
