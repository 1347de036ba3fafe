import FoundationEssentials
import Observation
import TweetStore

/// The home timeline (the course's `FeedViewModel`).
@MainActor @Observable
public final class FeedViewModel: ErrorRecording {
    /// Which tweets the feed shows.
    public enum Source: Sendable {
        /// Everyone's tweets.
        case everyone
        /// The signed-in user's and those of whom they follow.
        case following
    }

    public var tweets: [Tweet] { state.tweets }
    /// Whether there are older tweets than the page shows.
    public var hasMore: Bool { state.hasMore }
    /// Whether someone is signed in (an empty feed suggests posting rather than registering).
    public var isSignedIn: Bool { state.isSignedIn }
    /// The signed-in user's unread notifications (0 when signed out): the feed mentions them first.
    public var unreadNotifications: Int { state.unreadNotifications }
    /// With `.following` and a loader: the entries of the twtxt feeds the user follows that fall
    /// among the page's tweets (from the page's cursor, or now, down to its last tweet, or all the
    /// way back on the last page), newest first, at most the page's size.
    public var twtxtEntries: [TwtxtEntry] { state.twtxt.entries }
    /// Followed feeds that could not be read this time, each in a sentence, and each feed's lines
    /// that are not entries (skipped, as the twtxt client skips them).
    public var twtxtProblems: [String] { state.twtxt.problems }
    public var twtxtSkipped: [String: Int] { state.twtxt.skipped }
    /// Entries of the page's span beyond its size, not shown (a larger page shows them).
    public var twtxtLeftOut: Int { state.twtxt.leftOut }
    public package(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }
    public var source: Source {
        get { state.source }
        set { state.source = newValue }
    }

    /// Everything the feed shows, observed as one value. Each observed property's key path is
    /// made at its first use, and one for a new type of value costs its generic class's metadata,
    /// made from mangled names: one value makes one key path where ten properties made ten.
    private var state: State

    private struct State {
        var tweets: [Tweet] = []
        var hasMore = false
        var isSignedIn = false
        var unreadNotifications = 0
        var twtxt = TwtxtPage()
        var error: (any Error)?
        var source: Source
    }

    private struct TwtxtPage {
        var entries: [TwtxtEntry] = []
        var problems: [String] = []
        var skipped: [String: Int] = [:]
        var leftOut = 0
    }

    private let services: AppServices
    private let twtxt: (any TwtxtFeedLoader)?

    public init(services: AppServices, source: Source = .everyone, twtxt: (any TwtxtFeedLoader)? = nil) {
        self.services = services
        state = State(source: source)
        self.twtxt = twtxt
    }

    /// Loads a page, newest first, optionally after tweet `before`.
    public func fetchTweets(limit: Int = 20, before: String? = nil) async throws {
        try await perform {
            var follows: [TwtxtFollow] = []
            var skipped: [SkippedTwtxtFollow] = []
            switch source {
            case .everyone: if before == nil { await services.tweets.prefetchTweets(limit: limit + 1) }
            case .following:
                services.users.prefetchFollowingUids()
                if before == nil { services.tweets.prefetchFollowingTweets(limit: limit + 1) }
                if twtxt != nil { services.twtxt.prefetchFollows() }
            }
            try await services.reading {
                let fetched: [Tweet]
                switch source {
                case .everyone: fetched = try await services.tweets.fetchTweets(limit: limit + 1, before: before)
                case .following:
                    fetched = try await services.tweets.fetchFollowingTweets(limit: limit + 1, before: before)
                }
                let page = Page(fetched, limit: limit)
                (state.tweets, state.hasMore) = (page.items, page.hasMore)
                state.isSignedIn = try await services.auth.currentUid() != nil
                state.unreadNotifications = isSignedIn ? try await services.notifications.unreadCount() : 0
                if case .following = source, twtxt != nil {
                    (follows, skipped) = try await services.twtxt.followsToRead()
                }
            }
            // Outside the one state: the followed feeds may wait on their servers.
            if case .following = source, let twtxt {
                try await loadTwtxt(twtxt, follows: follows, limit: limit, before: before)
                // Never fetched nor read: said, so that the user can unfollow them.
                state.twtxt.problems += skipped.map { "skipped the followed twtxt feed \($0.url): \($0.reason)" }
            }
        }
    }

    /// One followed feed, read, with its place among the follows.
    private nonisolated static func read(_ follow: TwtxtFollow, at index: Int, with loader: any TwtxtFeedLoader) async
        -> (Int, Result<TwtxtFeed, any Error>)
    {
        do {
            return (index, .success(try await loader.load(follow.url, nick: follow.nick)))
        } catch {
            return (index, .failure(error))
        }
    }

    /// How many followed feeds are read at once.
    static let twtxtReadsAtOnce = 8

    /// The followed feeds' entries between this page's bounds.
    private func loadTwtxt(_ loader: any TwtxtFeedLoader, follows: [TwtxtFollow], limit: Int, before: String?)
        async throws
    {
        state.twtxt = TwtxtPage()
        guard !follows.isEmpty else { return }
        // Several at once (each may wait on a server), at most `twtxtReadsAtOnce`; the results
        // are taken in the follows' order, so the problems come in it too.
        var results: [Int: Result<TwtxtFeed, any Error>] = [:]
        await withTaskGroup(of: (Int, Result<TwtxtFeed, any Error>).self) { group in
            // Each task is given its index and feed as values (a nested function that read a
            // captured counter gave every task the first index in an optimised build).
            for (index, follow) in follows.enumerated().prefix(Self.twtxtReadsAtOnce) {
                group.addTask { await Self.read(follow, at: index, with: loader) }
            }
            var next = Self.twtxtReadsAtOnce
            for await (index, result) in group {
                results[index] = result
                if next < follows.count {
                    let (index, follow) = (next, follows[next])
                    group.addTask { await Self.read(follow, at: index, with: loader) }
                    next += 1
                }
            }
        }
        var page = TwtxtPage()
        var entries: [TwtxtEntry] = []
        for (index, follow) in follows.enumerated() {
            switch results[index] {
            case .success(let feed):
                // Under the nick it was followed as (the user's --nick, else the feed's own then).
                entries += feed.entries.map { entry in
                    var entry = entry
                    entry.nick = follow.nick
                    return entry
                }
                if feed.skipped > 0 { page.skipped[follow.url] = feed.skipped }
            case .failure(let error):
                page.problems.append((error as? LocalizedError)?.errorDescription ?? "\(error)")
            case nil:
                break
            }
        }
        func time(_ tweet: Tweet) -> Date { tweet.retweetedAt ?? tweet.timestamp }
        // Newer than the previous page's last row (its cursor's time), down to this page's last.
        let upper = before.flatMap(IDGenerator.time(ofCursor:)) ?? (before == nil ? nil : tweets.first.map(time))
        // Down to this page's last tweet; entries older than every tweet come on a page of their
        // own after the last tweet (so that none is shown twice), the newest `limit` of them.
        let lower = tweets.last.map(time)
        let window = entries.filter { entry in
            (upper.map { entry.timestamp < $0 } ?? true) && (lower.map { entry.timestamp >= $0 } ?? true)
        }
        page.entries = Array(window.sorted { $0.timestamp > $1.timestamp }.prefix(limit))
        page.leftOut = window.count - page.entries.count
        state.twtxt = page
        if !hasMore, let lower, entries.contains(where: { $0.timestamp < lower }) { state.hasMore = true }
    }
}
