import FoundationEssentials
import TweetStore
import TweetSystem
import TwitterText

#if canImport(Glibc)
    import Glibc
#endif

/// The rules a document read from outside the commands (a file given to `import`) must keep: the
/// ones the commands that write such a document keep, each through the services' own checks. One
/// value checks a whole file, a document at a time and in the file's order, holding only what
/// spans documents: the usernames, emails and uids of its accounts, and a fingerprint of each
/// counter (see ``CounterFingerprint``), so a file of any size is checked in a few megabytes.
///
/// `doctor` runs the same rules over a store's documents (``StoreAudit``), so a store damaged by
/// an older import is found.
package struct ImportRules {
    /// What to do with a document that keeps the rules.
    package enum Verdict: Equatable {
        /// Write it.
        case keep
        /// Leave it out without complaint: a session (never imported), or a password hash for an
        /// account the store has already (a merge does not replace who can sign in).
        case leaveOut
    }

    /// A broken rule: the sentence that says which, about the document it was found in.
    package struct Violation: Error, Equatable {
        package var reason: String
    }

    /// The accounts the store has already (a merge), which the file's must not collide with.
    package struct Existing: Sendable {
        /// The uids of the store's accounts that the file names, and the usernames and emails
        /// of the file's accounts that the store's accounts hold.
        package var uids: Set<String> = []
        package var usernames: Set<String> = []
        package var emails: Set<String> = []
        package init() {}
    }

    /// Whether the documents are a store's own (`doctor`): then sessions are checked against their
    /// accounts instead of left out.
    private let auditing: Bool
    private let existing: Existing
    /// The line of each username and email seen, and the uids of the file's accounts.
    private var usernames: [String: (line: Int, uid: String)] = [:]
    private var emails: [String: (line: Int, uid: String)] = [:]
    private var uids: Set<String> = []
    /// Password hashes by uid, with their lines: each must belong to an account of the file.
    private var credentials: [String: Int] = [:]
    /// Sessions' uids (auditing only), with the session's path: each needs a password hash.
    private var sessions: [(uid: String, path: String)] = []
    /// Each counter's claimed and counted fingerprints.
    private var counters = CounterFingerprint()
    /// The photos tweets name, with the first line naming each, and the photos the file holds:
    /// each named one must be among them.
    private var photosNamed: [String: Int] = [:]
    private var photosGiven: Set<String> = []

    /// The photos the documents name, in address order.
    package var namedPhotos: [String] { photosNamed.keys.sorted() }

    /// Notes a photo the file holds, checked by the caller (it is an image as post keeps it).
    package mutating func given(photo address: String) {
        photosGiven.insert(address)
    }

    /// Rules for a whole file, against a store that has `existing` (none for an import into an
    /// empty store); `auditing` for a store's own documents.
    /// `passwordsOnServer`: the server keeps the passwords (``AccountServer``), so a session needs
    /// only its account.
    package init(existing: Existing = Existing(), auditing: Bool = false, passwordsOnServer: Bool = false) {
        self.existing = existing
        self.auditing = auditing
        self.passwordsOnServer = passwordsOnServer
    }

    private let passwordsOnServer: Bool

    // MARK: One document

    /// Checks one document, with what the documents before it left.
    /// - Throws: ``Violation`` naming the first rule it breaks.
    package mutating func check(_ path: DocumentPath, _ data: JSONObject, line: Int) throws(Violation) -> Verdict {
        let id = path.documentID
        do {
            // Most documents are in a top-level collection: no split, no copies.
            guard path.collection.utf8.contains(UInt8(ascii: "/")) else {
                return try checkTopLevel(path.collection, id: id, data, line: line, path: path)
            }
            let parts = path.collection.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3 else {
                throw Self.violation("\(path.collection) is not a collection tweetcli keeps")
            }
            return try checkNested(parts, id: id, data, path: path)
        } catch let violation as Violation {
            throw violation
        } catch {
            throw Violation(reason: "\(path): \(error.sentence)")
        }
    }

    private static func violation(_ reason: String) -> Violation { Violation(reason: reason) }

    private mutating func checkTopLevel(
        _ collection: String, id: String, _ data: JSONObject, line: Int, path: DocumentPath
    ) throws -> Verdict {
        var fields = Fields(data, path: path)
        switch collection {
        case Collections.users:
            try fields.id(of: path)
            try checkUser(id: id, &fields, line: line)
        case Collections.credentials:
            try fields.id(of: path)
            let hash = try fields.string("passwordHash", maximumBytes: 256)
            guard hash.hasPrefix("$y$"), TextRules.forbiddenCharacter(in: hash, multiline: false) == nil else {
                throw fields.bad("passwordHash", "is not a yescrypt hash")
            }
            try fields.finish()
            if existing.uids.contains(id) { return .leaveOut }
            credentials[id] = line
        case Collections.sessions:
            guard auditing else { return .leaveOut }
            let uid = try fields.uid("uid")
            _ = try fields.optionalTimestamp("created")
            _ = try fields.optionalTimestamp("lastUsed")
            try fields.finish()
            sessions.append((uid, path.description))
        case Collections.tweets:
            try fields.id(of: path)
            try checkTweet(id: id, &fields, line: line)
        case Collections.retweets:
            guard id.hasPrefix(RetweetKey.prefix), Fields.isID(id.dropFirst(RetweetKey.prefix.utf8.count)) else {
                throw Self.violation("\(path): a retweet's ID is rt_ and a tweet's ID")
            }
            _ = try fields.uid("uid")
            counters.counted(.retweets, of: try fields.uid("tweetId"))
            _ = try fields.timestamp("timestamp")
        case Collections.notificationState:
            try fields.id(of: path)
            _ = try fields.counter("unread")
            _ = try fields.optionalTimestamp("seen")
        case SearchIndex.terms:
            try Self.checkTerm(id, path: path)
            counters.claimed(.termTweets, of: id, try fields.counter("tweets"))
            _ = try fields.optionalUid("open")
            _ = try fields.optionalCounter("openSize")
        case SearchIndex.trendHours:
            guard id.utf8.count == 10, id.utf8.allSatisfy({ (48...57).contains($0) }) else {
                throw Self.violation("\(path): an hour's ID is yyyyMMddHH")
            }
            guard case .object(let tags)? = fields.take("tags") else { throw fields.bad("tags", "is not an object") }
            for (tag, value) in tags {
                try Self.checkTerm(tag, path: path)
                guard case .array(let pair) = value, pair.count == 2, case .string(let spelling) = pair[0],
                    spelling.utf8.count <= 1024, case .integer(let count) = pair[1], count >= 0
                else { throw fields.bad("tags", "holds \(tag), which is not [spelling, count]") }
            }
        case Collections.userStats:
            try fields.id(of: path)
            counters.claimed(.following, of: id, try fields.optionalCounter("following") ?? 0)
            counters.claimed(.followers, of: id, try fields.optionalCounter("followers") ?? 0)
            counters.claimed(.tweets, of: id, try fields.optionalCounter("tweets") ?? 0)
            _ = try fields.optionalBool("followingListed")
        case Collections.userFilters:
            try fields.id(of: path)
            try checkFilters(&fields)
        case FollowingList.collection:
            try fields.id(of: path)
            guard case .array(let uids)? = fields.take("uids"), uids.count <= FollowingList.maximumCount,
                uids.allSatisfy({ $0.stringValue.map(Fields.isID) == true })
            else { throw fields.bad("uids", "is not a list of up to \(FollowingList.maximumCount) uids") }
        default:
            throw Self.violation("\(collection) is not a collection tweetcli keeps")
        }
        try fields.finish()
        return .keep
    }

    private mutating func checkNested(
        _ parts: [Substring], id: String, _ data: JSONObject, path: DocumentPath
    ) throws -> Verdict {
        var fields = Fields(data, path: path)
        let owner = String(parts[1])
        switch (String(parts[0]), String(parts[2])) {
        case (Collections.users, Collections.userLikes), (Collections.users, Collections.bookmarks):
            try fields.ids(owner, id)
            guard try fields.uid("tweetId") == id else { throw fields.bad("tweetId", "is not the document's ID") }
            _ = try fields.timestamp("timestamp")
            if parts[2] == Collections.userLikes { counters.counted(.likes, of: id) }
        case (Collections.users, "retweeted"):
            try fields.ids(owner, id)
            let retweet = try fields.string("retweetId", maximumBytes: 64)
            guard retweet.hasPrefix(RetweetKey.prefix), Fields.isID(retweet.dropFirst(RetweetKey.prefix.utf8.count))
            else {
                throw fields.bad("retweetId", "is not a retweet's ID")
            }
            _ = try fields.timestamp("timestamp")
        case (Collections.users, Collections.notifications):
            try fields.ids(owner, nil)
            guard id.utf8.count <= 128,
                id.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || Fields.isIDByte($0) })
            else { throw Self.violation("\(path): a notification's key is its kind and IDs") }
            let type = try fields.string("type", maximumBytes: 16)
            guard ActivityNotification.Kind(rawValue: type) != nil else { throw fields.bad("type", "is not a kind") }
            _ = try fields.uid("from")
            _ = try fields.optionalUid("tweetId")
            _ = try fields.timestamp("timestamp")
        case (Collections.users, "twtxt-following"):
            try fields.ids(owner, nil)
            let url = try fields.string("url", maximumBytes: 2000)
            // Only what `follow --twtxt` keeps of a web address: never a local file someone else named.
            guard TwtxtService.webAddress(url) == url else {
                throw fields.bad("url", "is not an http(s) address follow --twtxt would keep")
            }
            guard TwtxtService.key(url) == id else { throw Self.violation("\(path): the ID is not its address's key") }
            let nick = try fields.string("nick", maximumBytes: Twtxt.maximumNickLength * 4)
            guard !nick.isEmpty, Twtxt.nick(nick) == nick else { throw fields.bad("nick", "is not a nick") }
            _ = try fields.timestamp("followed")
        case (Collections.users, Collections.followRequests):
            // A request to follow `owner`, by the account its ID names.
            try fields.ids(owner, id)
            guard owner != id else { throw Self.violation("\(path): an account cannot ask to follow itself") }
            guard try fields.uid("uid") == id else { throw fields.bad("uid", "is not the document's ID") }
            _ = try fields.timestamp("timestamp")
        case ("following", "user-following"), ("followers", "user-followers"):
            try fields.ids(owner, id)
            _ = try fields.timestamp("timestamp")
            let following = parts[0] == "following"
            counters.counted(following ? .following : .followers, of: owner)
            // Each follow is kept both ways: the two sides count the same pairs.
            if following {
                counters.claimed(.pairs, of: owner + "/" + id, 1)
            } else {
                counters.counted(.pairs, of: id + "/" + owner)
            }
        case (SearchIndex.terms, SearchIndex.buckets):
            try Self.checkTerm(owner, path: path)
            guard Fields.isID(id[...]) else { throw Self.violation("\(path): a bucket's ID is a tweet's ID") }
            guard case .array(let ids)? = fields.take("ids"), (1...1024).contains(ids.count),
                ids.allSatisfy({ $0.stringValue.map(Fields.isID) == true })
            else { throw fields.bad("ids", "is not a list of 1 to 1024 tweet IDs") }
            guard try fields.uid("start") == id else { throw fields.bad("start", "is not the bucket's ID") }
            counters.counted(.termTweets, of: owner, times: ids.count)
        default:
            throw Self.violation("\(path.collection) is not a collection tweetcli keeps")
        }
        try fields.finish()
        return .keep
    }

    /// A user: the username and email as `register` keeps them, unique case-insensitively (as
    /// sign-in compares them) across the store and the file; the profile as `edit-profile` keeps it.
    private mutating func checkUser(id: String, _ fields: inout Fields, line: Int) throws {
        let username = try fields.string("username", maximumBytes: 64)
        // `try?`: a username sign-in would not find as written, and one that is no username at all,
        // are the one refusal below.
        guard (try? AuthService.normalizedUsername(username)) == username else {
            throw fields.bad("username", "is not a lowercase username of 1 to 15 letters, digits or _")
        }
        let email = try fields.optionalString("email", maximumBytes: 254)
        if let email {
            // `try?`: an email not as register keeps it (it would sign in as no one, or as another)
            // and one that is no email at all are the one refusal below.
            guard (try? AuthService.normalizedEmail(email)) == email else {
                throw fields.bad("email", "is not a lowercase email address")
            }
        }
        let fullname = try fields.string("fullname", maximumBytes: 256)
        try UserService.checkFullname(fullname)
        if let avatar = try fields.optionalString("avatar", maximumBytes: 64) {
            guard BlobAddress.isValid(avatar) else { throw fields.bad("avatar", "is not a picture's SHA-256") }
            if photosNamed[avatar] == nil { photosNamed[avatar] = line }
        }
        for (field, limit) in UserService.profileFieldLimits {
            guard let value = try fields.optionalString(field, maximumBytes: limit * 8) else { continue }
            try UserService.checkProfileField(field, value, limit: limit)
        }
        _ = try fields.optionalBool("protected")
        _ = try fields.optionalBool("leaving")
        // An account the store has already is not written again (a merge keeps the store's).
        if existing.uids.contains(id) { return }
        // An account even when its name is refused below: an audit goes on, and its sessions and
        // password are still its own.
        uids.insert(id)
        if existing.usernames.contains(username) {
            throw Self.violation("users/\(id): the username \(username) is taken in the store")
        }
        if let first = usernames[username] {
            throw Violation(
                reason: "users/\(id): the username \(username) is taken by users/\(first.uid) (line \(first.line))")
        }
        if let email {
            if existing.emails.contains(email) {
                throw Self.violation("users/\(id): the email \(email) is taken in the store")
            }
            if let first = emails[email] {
                throw Violation(
                    reason: "users/\(id): the email \(email) is taken by users/\(first.uid) (line \(first.line))")
            }
            emails[email] = (line, id)
        }
        usernames[username] = (line, id)
    }

    /// A tweet: its caption by `post`'s rules (an archive's tweet by the archive import's), its
    /// entities found in the caption, its counters whole numbers that its markers agree with.
    private mutating func checkTweet(id: String, _ fields: inout Fields, line: Int) throws {
        let uid = try fields.uid("uid")
        let caption = try fields.string("caption", maximumBytes: TweetService.maximumImportedCaptionBytes)
        var source: TweetSource?
        if let value = fields.take("source") {
            // `try?`: any reason a source is unreadable is the one refusal below.
            guard case .object(let object) = value,
                let read = try? DocumentSnapshot(path: fields.path, data: object).data(as: TweetSource.self),
                read.twitter.utf8.count <= 20, read.twitter.utf8.allSatisfy({ (48...57).contains($0) }),
                (read.favorites ?? 0) >= 0, (read.retweets ?? 0) >= 0,
                read.inReplyTo?.utf8.allSatisfy({ (48...57).contains($0) }) ?? true, read.fields == object
            else {
                throw fields.bad("source", "is not a Twitter archive's origin")
            }
            source = read
        }
        if source == nil {
            guard try TweetService.checkedCaption(caption) == caption else {
                throw fields.bad("caption", "is not as post keeps a caption (trimmed)")
            }
        } else {
            try TextRules.check(
                caption, field: "caption", multiline: true, maximumBytes: TweetService.maximumImportedCaptionBytes)
            guard !caption.isEmpty else { throw TweetError.emptyCaption }
        }
        _ = try fields.timestamp("timestamp")
        if let entities = fields.take("entities") {
            try Self.checkEntities(entities, caption: caption, fields: fields)
        }
        if let value = fields.take("images") {
            // As post keeps them: each image whole, once, in the form it writes.
            guard let images = TweetImage.list(value), JSONValue.array(images.map { .object($0.fields) }) == value
            else { throw fields.bad("images", "are not up to \(TweetImage.maximumPerTweet) photos as post keeps them") }
            for address in images.flatMap(\.blobs) where photosNamed[address] == nil { photosNamed[address] = line }
        }
        counters.counted(.tweets, of: uid)
        counters.claimed(.likes, of: id, try fields.optionalCounter("likes") ?? 0)
        counters.claimed(.retweets, of: id, try fields.optionalCounter("retweets") ?? 0)
        counters.claimed(.replies, of: id, try fields.optionalCounter("replyCount") ?? 0)
        counters.claimed(.quotes, of: id, try fields.optionalCounter("quotes") ?? 0)
        let deleted = try fields.optionalBool("replyToDeleted") ?? false
        _ = try fields.optionalBool("untrended")
        if let parent = try fields.optionalUid("replyToId"), !deleted { counters.counted(.replies, of: parent) }
        _ = try fields.optionalUid("replyToUid")
        let quotedIsDeleted = try fields.optionalBool("quoteDeleted") ?? false
        if let quoted = try fields.optionalUid("quoteId"), !quotedIsDeleted { counters.counted(.quotes, of: quoted) }
        _ = try fields.optionalUid("quoteUid")
    }

    /// Entities as `post` stores them: lists of strings, each found in the caption (ignoring case,
    /// as mentions and hashtags are matched).
    private static func checkEntities(_ value: JSONValue, caption: String, fields: Fields) throws {
        // `try?`: any reason the entities are unreadable is the one refusal below.
        guard case .object(let object) = value, object.count == 3,
            let read = try? DocumentSnapshot(path: fields.path, data: object).data(as: TweetEntities.self),
            read.mentions.count + read.hashtags.count + read.urls.count <= 1024
        else {
            throw fields.bad("entities", "is not mentions, hashtags and urls")
        }
        var lowered: String?
        for entity in read.mentions + read.hashtags + read.urls {
            if entity.isEmpty || Self.bytes(of: caption, contain: entity) { continue }
            lowered = lowered ?? caption.lowercased()
            guard lowered?.contains(entity.lowercased()) == true else {
                throw fields.bad("entities", "names \(entity.prefix(40)), which is not in the caption")
            }
        }
    }

    /// Whether `text`'s UTF-8 holds `part`'s, compared as bytes: what an entity written as the
    /// caption has it is, and far cheaper than a search by characters.
    private static func bytes(of text: String, contain part: String) -> Bool {
        var text = text
        var part = part
        return text.withUTF8 { haystack in
            part.withUTF8 { needle in
                guard let first = needle.first, needle.count <= haystack.count else { return needle.isEmpty }
                var start = 0
                while start + needle.count <= haystack.count {
                    if haystack[start] == first,
                        memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0
                    {
                        return true
                    }
                    start += 1
                }
                return false
            }
        }
    }

    /// A search term or hashtag as a document ID: a word of the caption, with no control character.
    private static func checkTerm(_ term: String, path: DocumentPath) throws {
        guard !term.isEmpty, term.utf8.count <= 1024, TextRules.forbiddenCharacter(in: term, multiline: false) == nil
        else { throw violation("\(path): a search term is a word of at most 1,024 bytes") }
    }

    /// Blocks and mutes as ``ViewerFilters`` reads them, nothing it would drop.
    private func checkFilters(_ fields: inout Fields) throws {
        var object: JSONObject = [:]
        for key in ["blocking", "blockedBy", "mutedUsers", "mutedTerms"] {
            guard let value = fields.take(key) else { continue }
            // The accounts as lines (see FilterEntries), or as an object by uid (as versions before the lines wrote them).
            let count: Int? =
                switch value {
                case .object(let entries): entries.count
                case .string(let lines) where key != "mutedTerms":
                    lines.isEmpty ? 0 : lines.utf8.count { $0 == 0x2F } + 1
                default: nil
                }
            let limit = key == "mutedTerms" ? ViewerFilters.maximumTerms : ViewerFilters.maximumAccounts
            guard let count, count <= limit else {
                throw fields.bad(key, "is not a list of at most \(limit) entries as blocks and mutes write them")
            }
            object[key] = value
        }
        let filters = ViewerFilters(fields: object)
        // Every entry reads, and lines are as a block or mute writes them.
        let written = filters.fields ?? [:]
        let asWritten = ["blocking", "blockedBy", "mutedUsers", "mutedTerms"].allSatisfy { key in
            guard let value = object[key], value.objectValue == nil || key == "mutedTerms" else { return true }
            return (written[key] ?? .string("")) == value
        }
        guard filters.droppedEntries == 0, asWritten else {
            throw fields.bad("blocking", "or another filter holds an entry blocks and mutes do not make")
        }
    }

    // MARK: The whole file

    /// Checks what spans documents, once every document is checked: each password hash belongs to
    /// an account of the file, each session (auditing) to an account with a password, and each
    /// counter agrees with what it counts.
    /// - Returns: the first problem, with the line of the document to blame when there is one.
    package func finish() -> (line: Int?, reason: String)? {
        for (uid, line) in credentials.sorted(by: { $0.value < $1.value }) where !uids.contains(uid) {
            return (line, "credentials/\(uid) is the password of no account it creates")
        }
        if let session = sessionsWithoutAccount.first { return (nil, "\(session) is a session of no account") }
        if !auditing,
            let (address, line) = photosNamed.filter({ !photosGiven.contains($0.key) }).min(by: { $0.value < $1.value })
        {
            return (line, "its tweet names the photo \(address), which the file does not hold")
        }
        if let counter = counters.disagreeing() { return (nil, counter.disagreement) }
        return nil
    }

    /// The sessions checked (auditing only) whose account is missing or has no password.
    package var sessionsWithoutAccount: [String] {
        sessions.filter { !uids.contains($0.uid) || (credentials[$0.uid] == nil && !passwordsOnServer) }.map(\.path)
    }

    /// The counters that disagree with what they count.
    package var disagreeingCounters: [CounterFingerprint.Counter] { counters.allDisagreeing() }
}

/// A document's fields, taken one at a time, so what is left at the end is what no rule knows.
private struct Fields {
    /// Read, never changed: a copy of every document would cost more than its checks.
    private let data: JSONObject
    let path: DocumentPath
    /// The keys a rule asked for, and how many of them the document has.
    private var asked: [String] = []
    private var found = 0

    init(_ data: JSONObject, path: DocumentPath) {
        self.data = data
        self.path = path
    }

    func bad(_ key: String, _ problem: String) -> ImportRules.Violation {
        ImportRules.Violation(reason: "\(path): its \(key) \(problem)")
    }

    mutating func take(_ key: String) -> JSONValue? {
        asked.append(key)
        let value = data[key]
        if value != nil { found += 1 }
        return value
    }

    /// No field is left that no rule asked for.
    func finish() throws(ImportRules.Violation) {
        guard found != data.count, let key = data.keys.filter({ !asked.contains($0) }).sorted().first else { return }
        throw ImportRules.Violation(reason: "\(path): \(key.prefix(64)) is not a field tweetcli writes there")
    }

    static func isIDByte(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    /// Made of the characters IDs are made of (a uid, a tweet's ID), of a sane length.
    static func isID(_ text: Substring) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy(isIDByte)
    }

    /// ``isID(_:)-(Substring)`` on a string's bytes in place: a file holds ten million of them.
    static func isID(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            (1...64).contains(bytes.count) && bytes.allSatisfy(isIDByte)
        } ?? isID(text[...])
    }

    /// The document's ID is an ID.
    func id(of path: DocumentPath) throws(ImportRules.Violation) {
        guard Self.isID(path.documentID) else {
            throw ImportRules.Violation(reason: "\(path): its ID is not made of letters and digits")
        }
    }

    /// The owner in the collection's path and, unless `nil`, the document's ID are IDs.
    func ids(_ owner: String, _ id: String?) throws(ImportRules.Violation) {
        guard Self.isID(owner), id.map(Self.isID) ?? true else {
            throw ImportRules.Violation(reason: "\(path): its path holds what is not an ID")
        }
    }

    mutating func string(_ key: String, maximumBytes: Int) throws(ImportRules.Violation) -> String {
        guard let value = try optionalString(key, maximumBytes: maximumBytes) else { throw bad(key, "is missing") }
        return value
    }

    mutating func optionalString(_ key: String, maximumBytes: Int) throws(ImportRules.Violation) -> String? {
        switch take(key) {
        case nil, .null?: return nil
        case .string(let value)?:
            guard value.utf8.count <= maximumBytes else { throw bad(key, "is over \(maximumBytes) bytes") }
            return value
        default: throw bad(key, "is not a string")
        }
    }

    mutating func uid(_ key: String) throws(ImportRules.Violation) -> String {
        guard let value = try optionalUid(key) else { throw bad(key, "is missing") }
        return value
    }

    mutating func optionalUid(_ key: String) throws(ImportRules.Violation) -> String? {
        guard let value = try optionalString(key, maximumBytes: 64) else { return nil }
        guard Self.isID(value) else { throw bad(key, "is not an ID") }
        return value
    }

    mutating func timestamp(_ key: String) throws(ImportRules.Violation) -> Date {
        guard let value = try optionalTimestamp(key) else { throw bad(key, "is missing") }
        return value
    }

    mutating func optionalTimestamp(_ key: String) throws(ImportRules.Violation) -> Date? {
        guard let text = try optionalString(key, maximumBytes: 64) else { return nil }
        guard let date = Timestamp.date(from: text) else { throw bad(key, "is not a time") }
        return date
    }

    mutating func counter(_ key: String) throws(ImportRules.Violation) -> Int64 {
        guard let value = try optionalCounter(key) else { throw bad(key, "is missing") }
        return value
    }

    /// A count: a whole number, never below 0.
    mutating func optionalCounter(_ key: String) throws(ImportRules.Violation) -> Int64? {
        switch take(key) {
        case nil, .null?: return nil
        case .integer(let value)?:
            guard value >= 0 else { throw bad(key, "is below 0") }
            return value
        default: throw bad(key, "is not a whole number")
        }
    }

    mutating func optionalBool(_ key: String) throws(ImportRules.Violation) -> Bool? {
        switch take(key) {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw bad(key, "is not true or false")
        }
    }
}
