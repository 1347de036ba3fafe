import FoundationEssentials
import Observation
import Synchronization
import TweetStore

/// A profile: header, stats and one tab of tweets (the course's `ProfileViewModel`).
@MainActor @Observable
public final class ProfileViewModel: ErrorRecording {
    /// The profile's user; `nil` until ``load(limit:before:)`` resolves a reference.
    public var user: User? { state.user }
    public var stats: UserStats? { state.stats }
    public var tweets: [Tweet] { state.tweets }
    /// Whether the tab has older tweets than the page shows.
    public var hasMore: Bool { state.hasMore }
    public var isFollowed: Bool { state.followStatus == .following }
    /// Where the signed-in user stands with this profile: following, asked to, or neither.
    public var followStatus: FollowStatus { state.followStatus }
    /// Whether the tab is kept from the signed-in user: the account is protected, and they are not
    /// an approved follower. The header still shows.
    public var tweetsAreProtected: Bool { state.tweetsAreProtected }
    /// Whether the last follow or unfollow changed anything (following twice does not).
    public var didChangeFollow: Bool { state.didChangeFollow }
    /// Where the signed-in user stood before the last unfollow: it withdrew a follow or a request.
    public var previousFollowStatus: FollowStatus { state.previousFollowStatus }
    public var isCurrentUser: Bool { state.isCurrentUser }
    public package(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }
    public var selectedFilter: TweetFilter {
        get { state.selectedFilter }
        set { state.selectedFilter = newValue }
    }

    /// Everything the profile shows, observed as one value (one key path to make at its first
    /// use, not one for each type of value: see FeedViewModel).
    private var state = State()

    private struct State {
        var user: User?
        var stats: UserStats?
        var tweets: [Tweet] = []
        var hasMore = false
        var followStatus = FollowStatus.none
        var tweetsAreProtected = false
        var didChangeFollow = false
        var previousFollowStatus = FollowStatus.none
        var isCurrentUser = false
        var error: (any Error)?
        var selectedFilter: TweetFilter = .tweets
    }

    /// A uid, `@username`, or `nil` for the signed-in user: resolved by the first load.
    private let reference: String?
    private let services: AppServices

    /// The profile of `user` (the course's initialiser).
    public init(user: User, services: AppServices) {
        self.reference = user.id
        self.services = services
        state.user = user
    }

    /// The profile of a uid or `@username`; `nil` for the signed-in user.
    public init(reference: String?, services: AppServices) {
        self.reference = reference
        self.services = services
    }

    /// "Edit Profile" on your own profile, else "Following", "Requested" or "Follow".
    public var actionButtonTitle: String {
        if isCurrentUser { return "Edit Profile" }
        switch followStatus {
        case .following: return "Following"
        case .requested: return "Requested"
        case .none: return "Follow"
        }
    }

    /// Loads the user (if needed), the stats, the follow state and a page of the selected tab.
    public func load(limit: Int = 20, before: String? = nil) async throws {
        // The own profile's or a uid's first page goes with the session check, by the uid the
        // session names; an @username's lookup does, with the account and its page by the uid the
        // lookup finds on the server.
        // (A process that checked already, or a signed-out viewer, has no check: the page then
        // goes with the account's documents, as for a username.)
        // The closures below capture these without capture lists: a capture list makes an async
        // closure run on the global executor, which starts a thread pool for one read.
        let (tab, services, reference) = (selectedFilter, services, reference)
        let askedAhead = AskedAhead()
        if user == nil, before == nil, reference.map({ $0.utf8.count == IDGenerator.length }) ?? true {
            services.auth.prefetchWithNextCheck { me in
                askedAhead.mark()
                let uid = reference ?? me
                await services.users.prefetchProfile(of: uid, viewer: me)
                await services.tweets.prefetchProfileTab(tab, uid: uid, viewer: me, limit: limit + 1)
            }
        } else if user == nil, before == nil, let reference, reference.hasPrefix("@") {
            // The lookup, and what the account's uid says to read, found on the server.
            services.auth.prefetchWithNextCheck { me in
                askedAhead.mark()
                await services.users.prefetchUser(matching: reference) { uid in
                    await services.users.prefetchProfile(of: uid, viewer: me)
                    await services.tweets.prefetchProfileTab(tab, uid: uid, viewer: me, limit: limit + 1)
                }
            }
        } else if user == nil, let reference {
            await services.users.prefetchUser(matching: reference)
        }
        try await read(services) {
            let me = try await services.auth.currentUid()
            let user: User
            if let known = self.user {
                user = known
                state.followStatus = try await services.users.followStatus(of: user.id)
                state.stats = try await services.users.fetchStats(forUid: user.id)
            } else {
                // The first load reads the user, the counters and the follow together.
                // The tab's first page goes with the account's documents; a later one is read then.
                let (tweets, first) = (services.tweets, before == nil && !askedAhead.isMarked)
                let profile = try await services.users.fetchProfile(matching: reference) { uid in
                    if first { try await tweets.prefetchProfileTab(tab, uid: uid, limit: limit + 1) }
                }
                (user, state.stats, state.followStatus) = (profile.user, profile.stats, profile.status)
                state.user = user
            }
            state.isCurrentUser = me == user.id
            do {
                let page = Page(
                    try await fetchTweets(for: selectedFilter, uid: user.id, limit: limit + 1, before: before),
                    limit: limit)
                (state.tweets, state.hasMore, state.tweetsAreProtected) = (page.items, page.hasMore, false)
            } catch ProtectionError.protected {
                (state.tweets, state.hasMore, state.tweetsAreProtected) = ([], false, true)
            }
        }
    }

    /// The signed-in user follows this profile's user.
    public func follow() async throws {
        try await perform {
            let user = try await resolveUser()
            let change = try await services.users.follow(uid: user.id)
            (state.didChangeFollow, state.followStatus) = (change.changed, change.after)
            state.stats = try await services.users.fetchStats(forUid: user.id)
        }
    }

    /// The signed-in user stops following this profile's user.
    public func unfollow() async throws {
        try await perform {
            let user = try await resolveUser()
            let change = try await services.users.unfollow(uid: user.id)
            (state.didChangeFollow, state.followStatus, state.previousFollowStatus) = (
                change.changed, change.after, change.before
            )
            state.stats = try await services.users.fetchStats(forUid: user.id)
        }
    }

    private func resolveUser() async throws -> User {
        if let user { return user }
        let resolved: User
        if let reference {
            resolved = try await services.users.fetchUser(matching: reference)
        } else {
            resolved = try await services.users.fetchUser(withUid: try await services.auth.requireUid())
        }
        state.user = resolved
        return resolved
    }

    private func fetchTweets(for filter: TweetFilter, uid: String, limit: Int, before: String?) async throws -> [Tweet]
    {
        switch filter {
        case .tweets: return try await services.tweets.fetchTweets(forUid: uid, limit: limit, before: before)
        case .replies: return try await services.tweets.fetchReplies(forUid: uid, limit: limit, before: before)
        case .likes: return try await services.tweets.fetchLikedTweets(forUid: uid, limit: limit, before: before)
        case .media: return try await services.tweets.fetchMedia(forUid: uid, limit: limit, before: before)
        }
    }
}

/// Whether the reads a load asked to go with the session check were asked: a check may not come.
private final class AskedAhead: Sendable {
    private let marked = Mutex(false)

    func mark() { marked.withLock { $0 = true } }
    var isMarked: Bool { marked.withLock { $0 } }
}
