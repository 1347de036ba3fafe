import FoundationEssentials
import TweetStore
import TwitterText

#if canImport(Glibc)
    import Glibc
#endif

/// What one user keeps out of sight, kept in `user-filters/{uid}`: the accounts they block, the
/// accounts that block them (written by the blocker, so that every check reads one document, the
/// viewer's own), and the accounts, words and hashtags they mute, each mute for good or until a
/// time. Read once per command; a user with none has no document, and reading that costs a lookup.
public struct ViewerFilters: Sendable, Equatable {
    /// A muted account or term: since when, until when (`nil`: until unmuted), and for a term, the
    /// words as the user wrote them.
    public struct Mute: Sendable, Equatable, FilterEntry {
        public var since: Date
        public var until: Date?
        public var text: String?

        public init(since: Date, until: Date?, text: String? = nil) {
            self.since = since
            self.until = until
            self.text = text
        }

        /// Whether the mute holds at `now`.
        public func isActive(at now: Date) -> Bool { until.map { now < $0 } ?? true }

        init?(json: JSONValue) {
            guard case .object(let mute) = json,
                let since = mute["since"]?.stringValue.flatMap(Timestamp.date(from:))
            else { return nil }
            let until = mute["until"]?.stringValue.flatMap(Timestamp.date(from:))
            if mute["until"].map({ $0 != .null }) == true, until == nil { return nil }
            self.init(since: since, until: until, text: mute["text"]?.stringValue)
        }

        var json: JSONValue {
            var fields: JSONObject = [
                "since": .string(Timestamp.string(from: since)),
                "until": until.map { .string(Timestamp.string(from: $0)) } ?? .null,
            ]
            if let text { fields["text"] = .string(text) }
            return .object(fields)
        }
    }

    /// Accounts this user blocks, with when.
    var blocking = FilterEntries<Date>()
    /// Accounts that block this user, with when.
    var blockedBy = FilterEntries<Date>()
    /// Muted accounts, by uid.
    var mutedUsers = FilterEntries<Mute>()
    /// Muted words and hashtags, by their folded search terms joined with spaces (`#swiftui`,
    /// `cat`, `new york`): a tweet is hidden when it has every term of one of them. Read whole,
    /// since every row is checked against them all, and there are few.
    public var mutedTerms: [String: Mute] = [:]

    public init() {}

    /// The most accounts one user may block, and mute; and the most words and hashtags they may
    /// mute. Every command reads the lists whole, so they are bounded.
    public static let maximumAccounts = 5_000
    public static let maximumTerms = 500

    /// Whether any filter applies at all: most users have none, and their listings skip every check.
    public var isEmpty: Bool { blocking.isEmpty && blockedBy.isEmpty && mutedUsers.isEmpty && mutedTerms.isEmpty }

    /// Whether rows by `uid` are kept from this user: blocked either way.
    public func isBlocked(_ uid: String) -> Bool { blocking.contains(uid) || blockedBy.contains(uid) }

    /// What a block between this user and `uid` (named `username`) refuses, as one sentence: the
    /// blocker is told to unblock; the blocked one only that they are blocked.
    func blockError(_ uid: String, username: String) -> SafetyError {
        blocking.contains(uid) ? .youBlocked(username: username) : .blockedYou(username: username)
    }

    /// Whether `uid`'s tweets are hidden from feeds, searches, threads and notifications at `now`.
    public func hidesAuthor(_ uid: String, at now: Date) -> Bool {
        isBlocked(uid) || mutedUsers[uid]?.isActive(at: now) == true
    }

    /// The term lists of the mutes active at `now`, each as ``SearchTerms`` makes a query's terms,
    /// in no order: every command of a user who mutes words asks, and only for membership.
    func activeTermLists(at now: Date) -> [[String]] {
        mutedTerms.compactMap { key, mute in mute.isActive(at: now) ? key.split(separator: " ").map(String.init) : nil }
    }

    // MARK: The document

    static func path(of uid: String) -> DocumentPath {
        DocumentPath(collection: Collections.userFilters, documentID: uid)
    }

    /// The filters a document holds. The accounts' entries are read one at a time, as rows ask
    /// about them (see ``FilterEntries``); the terms' whole. Entries that are not as this type
    /// writes them are left out: the store is not trusted, and a damaged entry must not hide or
    /// show more than it says.
    init(fields: JSONObject?) {
        guard let fields else { return }
        blocking = FilterEntries(fields["blocking"])
        blockedBy = FilterEntries(fields["blockedBy"])
        mutedUsers = FilterEntries(fields["mutedUsers"])
        for (key, value) in fields["mutedTerms"]?.objectValue ?? [:] {
            if let mute = Mute(json: value) { mutedTerms[key] = mute } else { droppedTerms += 1 }
        }
    }

    /// The muted terms the document has that do not read as one.
    private(set) var droppedTerms = 0

    /// The entries of the document that were left out as not written by this type.
    var droppedEntries: Int { blocking.dropped + blockedBy.dropped + mutedUsers.dropped + droppedTerms }

    /// The document's fields, without any damaged entry read; `nil` when nothing is left, so the
    /// document is deleted.
    var fields: JSONObject? {
        guard !isEmpty else { return nil }
        return [
            "blocking": blocking.written, "blockedBy": blockedBy.written, "mutedUsers": mutedUsers.written,
            "mutedTerms": .object(JSONObject(mutedTerms.mapValues(\.json))),
        ]
    }
}

/// A value one of a user's filters keeps for an account: as a line of the filters document (its
/// times after the uid, separated by spaces) and, as versions before the lines wrote it, as JSON.
protocol FilterEntry: Sendable, Equatable {
    init?(json: JSONValue)
    /// The entry from the fields after a line's uid.
    init?(times: [Substring])
    /// The fields written after the uid.
    var times: [String] { get }
}

extension Date: FilterEntry {
    init?(json: JSONValue) {
        guard let date = json.stringValue.flatMap(Timestamp.date(from:)) else { return nil }
        self = date
    }

    init?(times: [Substring]) {
        guard times.count == 1, let date = Timestamp.date(from: String(times[0])) else { return nil }
        self = date
    }

    var times: [String] { [Timestamp.string(from: self)] }
}

extension ViewerFilters.Mute {
    init?(times: [Substring]) {
        guard (1...2).contains(times.count), let since = Timestamp.date(from: String(times[0])) else { return nil }
        var until: Date?
        if times.count == 2 {
            guard let date = Timestamp.date(from: String(times[1])) else { return nil }
            until = date
        }
        self.init(since: since, until: until)
    }

    var times: [String] { [Timestamp.string(from: since)] + (until.map { [Timestamp.string(from: $0)] } ?? []) }
}

/// A filter's accounts, as the filters document keeps them: one string of entries separated by
/// `/` (which no uid holds, being a document ID), each `UID TIME` (a mute's `UID SINCE [UNTIL]`),
/// sorted by the uids' bytes, each uid once. The entries are called lines below.
///
/// One string, not an object of a thousand entries: every command of a user reads their filters,
/// and a string with nothing to unescape is read in one piece, where an object's keys and values
/// were each a string made and freed. An account is then found by halves in the string's bytes,
/// and only its own line is read into an entry. Lines the document has out of order, twice, or
/// not as a line is written are left out when it is read (`dropped` counts them): the store is
/// not trusted, and a damaged entry must not hide or show more than it says.
struct FilterEntries<Entry: FilterEntry>: Sendable, Equatable {
    private var text = ""
    /// Where each line's uid starts and ends in `text`, in pairs: found once by the walk that
    /// checks the order, so that a lookup (every row of a listing asks several) compares uids
    /// only, by halves, rather than looking for the lines' bounds byte by byte each time.
    private var bounds: [Int32] = []
    /// The lines or entries of the document's value that were left out.
    private(set) var dropped = 0

    init() {}

    /// The entries of the document's value: its lines, or an object of entries by uid (as
    /// versions before the lines wrote it).
    init(_ value: JSONValue?) {
        switch value {
        case .string(let text)?:
            if let bounds = Self.bounds(ofLinesInOrder: text) {
                self.init()
                (self.text, self.bounds) = (text, bounds)
                return
            }
            let lines = text.split(separator: "/", omittingEmptySubsequences: false)
            self.init(lines: lines.compactMap { Self.entry(ofLine: $0) })
            dropped = lines.count - count
        case .object(let object)?:
            self.init(lines: object.compactMap { uid, value in Entry(json: value).map { (uid, $0) } })
            dropped = object.count - count
        case .none, .null?:
            self.init()
        default:
            // A value of any other type has no entry to read.
            self.init()
            dropped = 1
        }
    }

    /// The entries given, written as lines; the first of a uid given twice.
    private init(lines entries: [(String, Entry)]) {
        var seen: Set<String> = []
        let unique = entries.filter { Self.isUID($0.0) && seen.insert($0.0).inserted }
        text = unique.sorted { ByteOrder.precedes($0.0, $1.0) }
            .map { ([$0.0] + $0.1.times).joined(separator: " ") }
            .joined(separator: "/")
        // Sorted, unique, with no space or `/` in a uid: the walk finds every line in order.
        bounds = Self.bounds(ofLinesInOrder: text) ?? []
    }

    /// A uid as a line can hold it: not empty, without a space or a `/`.
    private static func isUID(_ uid: some StringProtocol) -> Bool {
        !uid.isEmpty && !uid.utf8.contains(where: { $0 == 0x20 || $0 == 0x2F })
    }

    /// A line's uid and entry; `nil` for a line that is not one.
    private static func entry(ofLine line: Substring) -> (String, Entry)? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard let uid = fields.first, isUID(uid), let entry = Entry(times: Array(fields.dropFirst())) else {
            return nil
        }
        return (String(uid), entry)
    }

    /// Where each line's uid starts and ends, in pairs, when each line of `text` has a uid of its
    /// own that sorts after the one before, and something after it; `nil` otherwise. A walk over
    /// the bytes with `memchr`, comparing each uid with the last.
    private static func bounds(ofLinesInOrder text: String) -> [Int32]? {
        var text = text
        return text.withUTF8 { bytes -> [Int32]? in
            guard let base = bytes.baseAddress, bytes.count < Int(Int32.max) else { return bytes.isEmpty ? [] : nil }
            func find(_ byte: UInt8, from start: Int, to end: Int) -> Int {
                guard start < end, let found = memchr(base + start, Int32(byte), end - start) else { return end }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            var bounds: [Int32] = []
            var previous: Range<Int>?
            var start = 0
            while start < bytes.count {
                let end = find(0x2F, from: start, to: bytes.count)
                let uidEnd = find(0x20, from: start, to: end)
                guard uidEnd > start, uidEnd < end else { return nil }  // no uid, or nothing after it
                let uid = start..<uidEnd
                if let previous, compare(bytes, previous, uid) != .orderedAscending { return nil }
                previous = uid
                bounds += [Int32(start), Int32(uidEnd)]
                if end == bytes.count - 1 { return nil }  // a separator ends the text
                start = end + 1
            }
            return bounds
        }
    }

    private static func compare(_ bytes: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>)
        -> ComparisonResult
    {
        ByteOrder.compare(UnsafeBufferPointer(rebasing: bytes[a]), UnsafeBufferPointer(rebasing: bytes[b]))
    }

    /// The position among the lines of `uid`'s line, found by halves over the uids' bounds.
    private func index(of uid: String) -> Int? {
        var text = text
        var target = uid
        return text.withUTF8 { bytes in
            target.withUTF8 { wanted in
                var (low, high) = (0, bounds.count / 2)
                while low < high {
                    let middle = (low + high) / 2
                    let uid = Int(bounds[2 * middle])..<Int(bounds[2 * middle + 1])
                    switch ByteOrder.compare(UnsafeBufferPointer(rebasing: bytes[uid]), wanted) {
                    case .orderedSame: return middle
                    case .orderedAscending: low = middle + 1
                    case .orderedDescending: high = middle
                    }
                }
                return nil
            }
        }
    }

    /// The line of `uid`, if it has one.
    private func line(of uid: String) -> String? {
        guard let index = index(of: uid) else { return nil }
        let utf8 = text.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: Int(bounds[2 * index]))
        let end =
            2 * index + 2 < bounds.count
            ? utf8.index(utf8.startIndex, offsetBy: Int(bounds[2 * index + 2]) - 1) : utf8.endIndex
        return String(text[start..<end])
    }

    /// Whether `uid` has a line, without reading its entry.
    func contains(_ uid: String) -> Bool { index(of: uid) != nil }

    subscript(uid: String) -> Entry? {
        get { line(of: uid).flatMap { Self.entry(ofLine: Substring($0))?.1 } }
        set {
            var entries = all.filter { $0.key != uid }.map { ($0.key, $0.value) }
            if let newValue { entries.append((uid, newValue)) }
            self = FilterEntries(lines: entries)
        }
    }

    @discardableResult
    mutating func removeValue(forKey uid: String) -> Entry? {
        guard let old = self[uid] else { return nil }
        self[uid] = nil
        return old
    }

    /// How many accounts there are.
    var count: Int { bounds.count / 2 }
    var isEmpty: Bool { text.isEmpty }
    /// The uids with an entry that reads.
    var keys: [String] { Array(all.keys) }

    /// Every entry that reads, for a listing of them all.
    var all: [String: Entry] {
        guard !text.isEmpty else { return [:] }
        var result: [String: Entry] = [:]
        for line in text.split(separator: "/") {
            if let (uid, entry) = Self.entry(ofLine: line) { result[uid] = entry }
        }
        return result
    }

    /// The value to write back: every entry that reads, as lines.
    var written: JSONValue { .string(FilterEntries(lines: all.map { ($0.key, $0.value) }).text) }
}

/// Which rows of a listing a viewer's filters keep, read from the documents themselves before any
/// join, so that a page hides rows and reads on in place of them.
struct RowFilter: Sendable {
    let filters: ViewerFilters
    let now: Date
    /// Whether muted accounts and terms apply (feeds, searches, threads, notifications), or only
    /// blocks (a profile's tabs, bookmarks).
    let appliesMutes: Bool
    private let termLists: [[String]]
    /// The muted words of one term each, looked up for each of a row's terms; the lists of several
    /// terms are checked against the row's whole set.
    private let singleTerms: Set<String>
    private let multiTermLists: [[String]]

    /// Whether a listing shows nothing differently with this filter: worked out once, since
    /// listings ask for every row.
    let isEmpty: Bool

    init(_ filters: ViewerFilters, now: Date, appliesMutes: Bool) {
        self.filters = filters
        self.now = now
        self.appliesMutes = appliesMutes
        let termLists = appliesMutes ? filters.activeTermLists(at: now) : []
        self.termLists = termLists
        singleTerms = Set(termLists.filter { $0.count == 1 }.map { $0[0] })
        multiTermLists = termLists.filter { $0.count > 1 }
        // A mute that has ended but is still kept makes the checks run, and hides nothing.
        let mutesAnyone = appliesMutes && (!termLists.isEmpty || !filters.mutedUsers.isEmpty)
        isEmpty = filters.blocking.isEmpty && filters.blockedBy.isEmpty && !mutesAnyone
    }

    /// Whether a row by `uid` is hidden.
    func hidesAuthor(_ uid: String?) -> Bool {
        guard let uid else { return false }
        return appliesMutes ? filters.hidesAuthor(uid, at: now) : filters.isBlocked(uid)
    }

    /// Whether a tweet document is hidden: by its author, or by a muted term its caption, hashtags
    /// or mentions have (matched as search matches them).
    func hides(tweet snapshot: DocumentSnapshot) -> Bool {
        if hidesAuthor(snapshot.data["uid"]?.stringValue) { return true }
        guard !termLists.isEmpty, let caption = snapshot.data["caption"]?.stringValue else { return false }
        // Only the hashtags and mentions are read, not the whole tweet: every row of a listing is
        // asked. Entities that are not lists of strings are none (the join names a damaged tweet).
        let entities = snapshot.data["entities"]?.objectValue
        func strings(_ key: String) -> [String] { entities?[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        return hasMutedTerm(
            caption: caption, entities: TweetEntities(mentions: strings("mentions"), hashtags: strings("hashtags")))
    }

    /// ``hides(tweet:)`` for a tweet already read.
    func hides(_ tweet: Tweet) -> Bool {
        hidesAuthor(tweet.uid) || hasMutedTerm(caption: tweet.caption, entities: tweet.entities ?? TweetEntities())
    }

    /// Whether the tweet has a muted term. A muted word is looked for in the caption without
    /// making all its terms (every row a listing reads is asked), and so past the cap on the terms
    /// a tweet is indexed by: a muted word hides a tweet wherever it is in it. Muted phrases need
    /// the whole set.
    private func hasMutedTerm(caption: String, entities: TweetEntities) -> Bool {
        guard !termLists.isEmpty else { return false }
        if !singleTerms.isEmpty {
            for tag in entities.hashtags where singleTerms.contains("#" + SearchTerms.fold(tag)) { return true }
            for name in entities.mentions where singleTerms.contains("@" + name.lowercased()) { return true }
            if SearchTerms.anyTerm(in: caption, singleTerms.contains) { return true }
        }
        guard !multiTermLists.isEmpty else { return false }
        let all = Set(SearchTerms.terms(caption: caption, entities: entities))
        return multiTermLists.contains { list in list.allSatisfy(all.contains) }
    }
}
