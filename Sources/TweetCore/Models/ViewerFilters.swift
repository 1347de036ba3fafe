import FoundationEssentials
import TweetStore
import TwitterText

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
    public func isBlocked(_ uid: String) -> Bool { blocking[uid] != nil || blockedBy[uid] != nil }

    /// What a block between this user and `uid` (named `username`) refuses, as one sentence: the
    /// blocker is told to unblock; the blocked one only that they are blocked.
    func blockError(_ uid: String, username: String) -> SafetyError {
        blocking[uid] != nil ? .youBlocked(username: username) : .blockedYou(username: username)
    }

    /// Whether `uid`'s tweets are hidden from feeds, searches, threads and notifications at `now`.
    public func hidesAuthor(_ uid: String, at now: Date) -> Bool {
        isBlocked(uid) || mutedUsers[uid]?.isActive(at: now) == true
    }

    /// The term lists of the mutes active at `now`, each as ``SearchTerms`` makes a query's terms.
    func activeTermLists(at now: Date) -> [[String]] {
        mutedTerms.filter { $0.value.isActive(at: now) }.keys.sorted().map { $0.split(separator: " ").map(String.init) }
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
        func entries<Entry>(_ key: String) -> FilterEntries<Entry> {
            guard case .object(let object)? = fields[key] else { return FilterEntries() }
            return FilterEntries(object)
        }
        blocking = entries("blocking")
        blockedBy = entries("blockedBy")
        mutedUsers = entries("mutedUsers")
        mutedTerms = FilterEntries<Mute>(fields["mutedTerms"]?.objectValue ?? [:]).all
    }

    /// The document's fields, without any damaged entry read; `nil` when nothing is left, so the
    /// document is deleted.
    var fields: JSONObject? {
        let fields: JSONObject = [
            "blocking": .object(blocking.written), "blockedBy": .object(blockedBy.written),
            "mutedUsers": .object(mutedUsers.written),
            "mutedTerms": .object(JSONObject(mutedTerms.mapValues(\.json))),
        ]
        return fields.allSatisfy({ $0.value.objectValue?.isEmpty == true }) ? nil : fields
    }
}

/// A value one of a user's filters keeps for an account or a term, as the filters document holds it.
protocol FilterEntry: Sendable, Equatable {
    init?(json: JSONValue)
    var json: JSONValue { get }
}

extension Date: FilterEntry {
    init?(json: JSONValue) {
        guard let date = json.stringValue.flatMap(Timestamp.date(from:)) else { return nil }
        self = date
    }

    var json: JSONValue { .string(Timestamp.string(from: self)) }
}

/// A filter's entries by uid, kept as the document's object and each read when asked for: a
/// listing asks about a few dozen accounts of the thousands a user may block, and reading every
/// entry into a dictionary cost more than the listing. An entry that does not read as `Entry`
/// is none.
struct FilterEntries<Entry: FilterEntry>: Sendable, Equatable {
    private var object: JSONObject

    init(_ object: JSONObject = [:]) {
        self.object = object
    }

    subscript(uid: String) -> Entry? {
        get { object[uid].flatMap(Entry.init(json:)) }
        set { object[uid] = newValue?.json }
    }

    @discardableResult
    mutating func removeValue(forKey uid: String) -> Entry? {
        object.removeValue(forKey: uid).flatMap(Entry.init(json:))
    }

    /// How many entries there are, damaged ones included: for the limits, which count what is kept.
    var count: Int { object.count }
    var isEmpty: Bool { object.isEmpty }
    /// The uids with an entry that reads.
    var keys: [String] { object.compactMap { Entry(json: $0.value) == nil ? nil : $0.key } }

    /// Every entry that reads, for a listing of them all.
    var all: [String: Entry] {
        var result: [String: Entry] = [:]
        for (uid, value) in object {
            if let entry = Entry(json: value) { result[uid] = entry }
        }
        return result
    }

    /// The entries to write back: those as this type writes them, and no other.
    var written: JSONObject {
        object.filter { Entry(json: $0.value)?.json == $0.value }
    }
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

    private func hasMutedTerm(caption: String, entities: TweetEntities) -> Bool {
        guard !termLists.isEmpty else { return false }
        let terms = SearchTerms.terms(caption: caption, entities: entities)
        if terms.contains(where: singleTerms.contains) { return true }
        guard !multiTermLists.isEmpty else { return false }
        let all = Set(terms)
        return multiTermLists.contains { list in list.allSatisfy(all.contains) }
    }
}
