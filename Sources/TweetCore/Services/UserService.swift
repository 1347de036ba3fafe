import FoundationEssentials
import TweetStore
import TweetSystem
import TwitterText

/// Users, profiles and follows (the course's `UserService`).
public final class UserService: Sendable {
    let store: any DocumentStore
    let auth: AuthService

    public init(store: any DocumentStore, auth: AuthService) {
        self.store = store
        self.auth = auth
    }

    private var users: CollectionReference { store.collection(Collections.users) }

    /// The user a snapshot holds, with the email only when it is the signed-in user's own: every
    /// user this service returns goes through here.
    private func user(from snapshot: DocumentSnapshot, signedIn me: String?) throws -> User {
        var user = try snapshot.data(as: User.self)
        if user.id != me { user.email = nil }
        return user
    }

    private func user(from snapshot: DocumentSnapshot) async throws -> User {
        try user(from: snapshot, signedIn: try await auth.currentUid())
    }

    /// The user with `uid`.
    /// - Throws: ``UserError/notFound(_:)`` when there is none.
    public func fetchUser(withUid uid: String) async throws -> User {
        guard let snapshot = try await store.getDocument(users.document(uid)) else { throw UserError.notFound(uid) }
        return try await user(from: snapshot)
    }

    /// The user with `username` (with or without "@", any case).
    /// - Throws: ``UserError/notFound(_:)`` when there is none.
    public func fetchUser(withUsername username: String) async throws -> User {
        let name = Self.lookUpName(username)
        guard let snapshot = try await usernameLookUp(name).getDocuments().first else {
            throw UserError.notFound("@\(name)")
        }
        return try await user(from: snapshot)
    }

    /// A username as the lookup reads it: without "@", in lower case.
    private static func lookUpName(_ username: String) -> String {
        (username.hasPrefix("@") ? String(username.dropFirst()) : username).lowercased()
    }

    /// The query that finds the account named `name` (see ``lookUpName(_:)``).
    private func usernameLookUp(_ name: String) -> Query {
        users.whereField("username", isEqualTo: .string(name)).limit(to: 1)
    }

    /// Says that ``fetchUser(matching:)`` of `reference` comes next: on a server, an `@username`'s
    /// lookup goes in the round trip of the next read (the session check).
    public func prefetchUser(matching reference: String) async {
        guard store.readsAreRoundTrips, reference.hasPrefix("@") else { return }
        await store.prefetch(usernameLookUp(Self.lookUpName(reference)))
    }

    /// ``prefetchUser(matching:)``, and what `reads` asks for the account the lookup finds, given
    /// a stand-in for its uid: on a server, all of it goes in the round trip of the next read, the
    /// uid found there.
    func prefetchUser(matching reference: String, andThen reads: @Sendable (String) async -> Void) async {
        guard store.readsAreRoundTrips, reference.hasPrefix("@") else { return }
        let lookup = usernameLookUp(Self.lookUpName(reference))
        await store.prefetch(lookup)
        await store.prefetch(dependingOnFirstIDOf: lookup, reads)
    }

    /// A user named either way: `@username`, else a uid, else a bare username.
    public func fetchUser(matching reference: String) async throws -> User {
        if reference.hasPrefix("@") { return try await fetchUser(withUsername: reference) }
        if let snapshot = try await store.getDocument(users.document(reference)) {
            return try await user(from: snapshot)
        }
        do {
            return try await fetchUser(withUsername: reference)
        } catch UserError.notFound {
            throw UserError.notFound(reference)
        }
    }

    /// Several users in one batched read, by uid; uids with no user are left out.
    public func fetchUsers(withUids uids: some Sequence<String>) async throws -> [String: User] {
        try await fetchUsers(withUids: uids, alongside: []).users
    }

    /// ``fetchUsers(withUids:)`` and the documents at `paths`, in the same batched read: one round
    /// trip to a server instead of one per kind. Returns the users and which of `paths` exist.
    func fetchUsers(withUids uids: some Sequence<String>, alongside paths: [DocumentPath]) async throws -> (
        users: [String: User], existing: Set<DocumentPath>
    ) {
        let found = try await fetchUsers(withUids: uids, alongside: paths, shortening: [])
        return (found.users, found.existing)
    }

    /// ``fetchUsers(withUids:alongside:)``, with the short lengths of the tweet IDs `ids` in the
    /// same round trip (``DocumentStore/getDocuments(_:uniquePrefixLengthsIn:of:minimum:)``).
    func fetchUsers(withUids uids: some Sequence<String>, alongside paths: [DocumentPath], shortening ids: [String])
        async throws -> (users: [String: User], existing: Set<DocumentPath>, lengths: [Int])
    {
        let userPaths = Set(uids).map { users.document($0) }
        guard !userPaths.isEmpty || !paths.isEmpty else { return ([:], [], []) }
        var result: [String: User] = [:]
        var existing: Set<DocumentPath> = []
        let me = try await auth.currentUid()
        let (snapshots, lengths) =
            ids.isEmpty
            ? (try await store.getDocuments(userPaths + paths), [])
            : try await store.getDocuments(
                userPaths + paths, uniquePrefixLengthsIn: Collections.tweets, of: ids,
                minimum: TweetService.minimumShortIDLength)
        for snapshot in snapshots {
            if snapshot.path.collection == Collections.users {
                result[snapshot.documentID] = try user(from: snapshot, signedIn: me)
            } else {
                existing.insert(snapshot.path)
            }
        }
        return (result, existing, lengths)
    }

    /// All users, by username (the course's `fetchUsers`).
    public func fetchUsers(limit: Int? = nil) async throws -> [User] {
        var query = users.order(by: "username")
        if let limit { query = query.limit(to: limit) }
        let me = try await auth.currentUid()
        return try await query.getDocuments().map { try user(from: $0, signedIn: me) }
    }

    /// The usernames that start with `prefix` (without "@", any case), in username order, at most
    /// `limit`: shell completion runs it at every Tab, so it reads one range of the username index
    /// rather than every user.
    public func usernames(startingWith prefix: String, limit: Int) async throws -> [String] {
        let start = prefix.lowercased()
        var query = users.order(by: "username").select(["username"]).limit(to: limit)
        if !start.isEmpty {
            query = query.whereField("username", isGreaterThanOrEqualTo: .string(start))
                .whereField("username", isLessThan: .string(Query.successor(ofPrefix: start)))
        }
        return try await query.getDocuments().compactMap { $0.data["username"]?.stringValue }
    }

    /// Users whose username or full name contains `text`, ignoring case, by username.
    public func searchUsers(matching text: String, limit: Int? = nil) async throws -> [User] {
        var needle = text.trimmedSpaces().lowercased()
        if needle.hasPrefix("@") { needle.removeFirst() }
        guard !needle.isEmpty else { return try await fetchUsers(limit: limit) }
        // The local engine reads users in username order (its index) until the page is full,
        // skipping those whose stored line cannot contain the text without decoding them: a page
        // of a common text reads a page's worth of users, not all of them. (PostgreSQL sends the
        // users whose names may contain ASCII text, and Swift decides.) The sort is the same
        // bytes' order, kept for engines that answer in another.
        var query = users.order(by: "username").whereAny(["username", "fullname"], containsText: needle)
        if let limit { query = query.limit(to: limit) }
        var matches = try await query.getDocuments()
        matches.sort {
            ByteOrder.precedes($0.data["username"]?.stringValue ?? "", $1.data["username"]?.stringValue ?? "")
        }
        let me = try await auth.currentUid()
        return try matches.prefix(limit ?? matches.count).map { try user(from: $0, signedIn: me) }
    }

    /// The profile's optional fields and the most characters each may have.
    static let profileFieldLimits = [
        ("bio", 160), ("location", 30), ("website", 100), ("profileImageUrl", 500), ("twtxtUrl", 500),
    ]

    /// Checks a full name, trimmed, as `register` and `edit-profile` take it.
    /// - Throws: ``UserError/invalidProfile(_:)``, or `TextError` for a forbidden character.
    static func checkFullname(_ fullname: String) throws {
        guard (1...50).contains(fullname.count) else {
            throw UserError.invalidProfile("the full name must have 1 to 50 characters")
        }
        if let problem = User.problem(withFullname: fullname) { throw UserError.invalidProfile(problem) }
        try TextRules.check(fullname, field: "full name", multiline: false, maximumBytes: 256)
    }

    /// Checks one of the profile's optional fields (``profileFieldLimits``), trimmed and not empty
    /// or empty, as `edit-profile` takes it.
    /// - Throws: ``UserError/invalidProfile(_:)``, or `TextError` for a forbidden character.
    static func checkProfileField(_ field: String, _ value: String, limit: Int) throws {
        guard value.count <= limit else {
            throw UserError.invalidProfile("the \(field) must have at most \(limit) characters")
        }
        // Bytes at most eight per character of the limit: room for any script, none for a flood.
        try TextRules.check(
            value,
            field: field == "profileImageUrl" ? "avatar" : field == "twtxtUrl" ? "twtxt address" : field,
            multiline: field == "bio",
            maximumBytes: limit * 8)
        if ["website", "profileImageUrl", "twtxtUrl"].contains(field) && !value.isEmpty {
            guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased()),
                url.host != nil
            else {
                throw UserError.invalidProfile(
                    "\"\(value)\" is not a web address; it should start with https:// or http://")
            }
        }
    }

    /// Changes the signed-in user's profile and returns it.
    /// - Throws: ``UserError/invalidProfile(_:)`` for an empty full name or a website that is not http(s).
    public func updateProfile(_ changes: ProfileChanges) async throws -> User {
        let uid = try await auth.requireUid()
        var updates: [String: FieldValue] = [:]
        if let fullname = changes.fullname?.trimmed() {
            try Self.checkFullname(fullname)
            updates["fullname"] = .value(.string(fullname))
        }
        for (field, limit) in Self.profileFieldLimits {
            let change: String?
            switch field {
            case "bio": change = changes.bio
            case "location": change = changes.location
            case "website": change = changes.website
            case "profileImageUrl": change = changes.profileImageUrl
            default: change = changes.twtxtUrl
            }
            guard let value = change?.replacingEvery("\r\n", with: "\n").trimmed() else { continue }
            try Self.checkProfileField(field, value, limit: limit)
            updates[field] = value.isEmpty ? .value(.null) : .value(.string(value))
            // An avatar given as an address replaces a kept picture; cleared, both go.
            if field == "profileImageUrl" { updates["avatar"] = .delete }
        }
        let path = users.document(uid)
        if !updates.isEmpty {
            let updates = updates
            try await store.runTransaction { transaction in
                guard try await transaction.getDocument(path) != nil else { throw UserError.notFound(uid) }
                transaction.updateData(updates, at: path)
            }
        }
        if let isProtected = changes.isProtected { try await setProtected(isProtected) }
        return try await fetchUser(withUid: uid)
    }

    /// Makes `png` (a square PNG, named by `address`, its SHA-256) the signed-in user's picture:
    /// kept as a blob first, durable before the profile names it.
    public func setAvatar(png: [UInt8], address: String) async throws -> User {
        let uid = try await auth.requireUid()
        try await store.putBlob(png, address: address)
        let path = users.document(uid)
        try await store.runTransaction { transaction in
            guard try await transaction.getDocument(path) != nil else { throw UserError.notFound(uid) }
            transaction.updateData(["avatar": .value(.string(address))], at: path)
        }
        return try await fetchUser(withUid: uid)
    }

    /// Whether the signed-in user follows `uid` (false when signed out).
    public func isFollowing(uid: String) async throws -> Bool {
        guard let me = try await auth.currentUid() else { return false }
        return try await store.getDocument(store.collection(Collections.following(of: me)).document(uid)) != nil
    }

    /// A profile's header: the user `reference` names (as ``fetchUser(matching:)`` reads it; `nil`
    /// for the signed-in user), their counters and where the signed-in user stands with them. A
    /// uid is read in one batch with its counters, the follow and a request to follow: one round
    /// trip to a server.
    /// - Throws: ``UserError/notFound(_:)``, or ``SafetyError`` when a block keeps the two apart.
    public func fetchProfile(
        matching reference: String?, prefetching: @Sendable (String) async throws -> Void = { _ in }
    ) async throws -> (user: User, stats: UserStats, status: FollowStatus) {
        let profile = try await lookUpProfile(matching: reference, prefetching: prefetching)
        if let me = try await auth.currentUid(), me != profile.user.id {
            let fields: JSONObject?
            if let checked = auth.checkedFilters(of: me) {
                fields = checked
            } else {
                fields = try await store.getDocument(ViewerFilters.path(of: me))?.data
            }
            let filters = ViewerFilters(fields: fields)
            if filters.isBlocked(profile.user.id) {
                throw filters.blockError(profile.user.id, username: profile.user.username)
            }
        }
        return profile
    }

    /// What a profile reads of account `uid` for `viewer`, in one batch: the account, its counters,
    /// and the viewer's follow of it and request to follow it.
    private static func profilePaths(of uid: String, viewer: String?) -> [DocumentPath] {
        [userPath(uid), StatsCounter.path(of: uid)]
            + [viewer.map { followingPath(of: $0, uid) }, viewer.map { requestPath(to: uid, from: $0) }].compactMap {
                $0
            }
    }

    /// Says that ``fetchProfile(matching:prefetching:)`` of account `uid` comes next, for
    /// `viewer`: on a server, what it reads of the account goes ahead with the next read.
    func prefetchProfile(of uid: String, viewer: String?) async {
        guard store.readsAreRoundTrips else { return }
        await store.prefetch(documentsAt: Self.profilePaths(of: uid, viewer: viewer))
    }

    private func lookUpProfile(matching reference: String?, prefetching: @Sendable (String) async throws -> Void)
        async throws -> (user: User, stats: UserStats, status: FollowStatus)
    {
        let me = try await auth.currentUid()
        let candidate: String
        if let reference { candidate = reference } else { candidate = try await auth.requireUid() }
        var found: User?
        var counters: JSONObject?
        var status = FollowStatus.none
        if !candidate.hasPrefix("@") {
            let userPath = users.document(candidate)
            let statsPath = StatsCounter.path(of: candidate)
            let followPath = me.map { Self.followingPath(of: $0, candidate) }
            // Only for what can be a uid: a username is shorter, and is looked up first.
            if candidate.utf8.count == IDGenerator.length { try await prefetching(candidate) }
            for snapshot in try await store.getDocuments(Self.profilePaths(of: candidate, viewer: me)) {
                if snapshot.path == userPath {
                    found = try user(from: snapshot, signedIn: me)
                } else if snapshot.path == statsPath {
                    counters = snapshot.data
                } else if snapshot.path == followPath {
                    status = .following
                } else if status == .none {
                    status = .requested
                }
            }
        }
        guard let found else {
            // Not a uid: a username, then its account, counters and follow in one batch, as for a
            // uid (once: an account gone in between is not looked up again).
            let user = try await fetchUser(matching: candidate)
            guard user.id == candidate else {
                return try await lookUpProfile(matching: user.id, prefetching: prefetching)
            }
            return (user, try await fetchStats(forUid: user.id), try await followStatus(of: user.id))
        }
        let stats: UserStats
        if let kept = counters.flatMap(StatsCounter.stats(from:)) {
            stats = kept
        } else {
            // A store written before counters existed: counted.
            stats = try await StatsCounter.count(found.id, store: store) { try await $0.count() }
        }
        return (found, stats, found.id != me ? status : .none)
    }

    /// The uids `uid` follows, in byte order: their ``FollowingList`` and counters in one batched
    /// read, or the collection when the list is not kept or does not agree with the counters.
    public func followingUids(of uid: String) async throws -> [String] {
        let (statsPath, listPath) = (StatsCounter.path(of: uid), FollowingList.path(of: uid))
        var (stats, list): (JSONObject?, JSONObject?) = (nil, nil)
        // As the session check read them (``prefetchFollowingUids()``), while this process has
        // written nothing since; otherwise read now.
        var known = false
        if let checkedStats = auth.checkedSinceNoWrite(statsPath, of: uid),
            let checkedList = auth.checkedSinceNoWrite(listPath, of: uid)
        {
            (stats, list, known) = (checkedStats, checkedList, true)
        }
        for snapshot in known ? [] : try await store.getDocuments([statsPath, listPath]) {
            if snapshot.path == statsPath {
                stats = snapshot.data
            } else if snapshot.path == listPath {
                list = snapshot.data
            }
        }
        if let uids = FollowingList.uids(list: list, stats: stats) { return uids }
        // Their IDs are the uids: nothing of the documents themselves is decoded.
        return try await store.collection(Collections.following(of: uid)).query.select([]).getDocuments()
            .map(\.documentID)
    }

    /// Says that the signed-in account's ``followingUids(of:)`` comes next: on a server, what it
    /// reads goes with the session check, in the same round trip.
    public func prefetchFollowingUids() {
        guard store.readsAreRoundTrips else { return }
        auth.readWithNextCheck { uid in [StatsCounter.path(of: uid), FollowingList.path(of: uid)] }
    }

    /// Following, followers and tweets of `uid`: one read of its counters (counted, for a store
    /// written before counters existed).
    public func fetchStats(forUid uid: String) async throws -> UserStats {
        if let snapshot = try await store.getDocument(StatsCounter.path(of: uid)),
            let stats = StatsCounter.stats(from: snapshot.data)
        {
            return stats
        }
        return try await StatsCounter.count(uid, store: store) { try await $0.count() }
    }

    /// Ends the follows between `uid` and `other`, either way, inside `transaction`: their
    /// documents, the following lists, each user's counters in one write, and the follows'
    /// notifications, and the requests to follow either way. A block does this.
    static func endFollows(
        between uid: String, and other: String, in transaction: Transaction, store: any DocumentStore
    )
        async throws
    {
        func marker(_ follower: String, _ followed: String) -> DocumentPath {
            DocumentPath(collection: Collections.following(of: follower), documentID: followed)
        }
        for (owner, requester) in [(uid, other), (other, uid)] {
            _ = try await removeRequest(to: owner, from: requester, in: transaction, store: store)
        }
        let follows = try await transaction.getDocument(marker(uid, other)) != nil
        let followed = try await transaction.getDocument(marker(other, uid)) != nil
        guard follows || followed else { return }
        var notifications = NotificationBatch()
        for (user, peer, isFollowing, isFollowed) in [(uid, other, follows, followed), (other, uid, followed, follows)]
        {
            let stats = try await StatsCounter.add(
                [(isFollowing ? -1 : 0, \.following), (isFollowed ? -1 : 0, \.followers)], of: user, in: transaction,
                store: store)
            guard isFollowing else { continue }
            transaction.deleteDocument(marker(user, peer))
            transaction.deleteDocument(followerPath(of: peer, by: user))
            try await FollowingList.record(user, follows: peer, false, stats: stats, in: transaction, store: store)
            notifications.withdraw(peer, .follow, from: user, tweetID: nil)
        }
        try await notifications.apply(in: transaction, store: store)
    }

    /// `followers/{uid}/user-followers/{follower}`: the follow as the user followed keeps it.
    static func followerPath(of uid: String, by follower: String) -> DocumentPath {
        DocumentPath(collection: Collections.followers(of: uid), documentID: follower)
    }
}
