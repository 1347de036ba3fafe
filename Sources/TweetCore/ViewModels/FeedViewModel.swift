import Foundation
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

    public private(set) var tweets: [Tweet] = []
    /// Whether there are older tweets than the page shows.
    public private(set) var hasMore = false
    /// Whether someone is signed in (an empty feed suggests posting rather than registering).
    public private(set) var isSignedIn = false
    /// The signed-in user's unread notifications (0 when signed out): the feed mentions them first.
    public private(set) var unreadNotifications = 0
    public internal(set) var error: (any Error)?
    public var source: Source

    private let services: AppServices

    public init(services: AppServices, source: Source = .everyone) {
        self.services = services
        self.source = source
    }

    /// Loads a page, newest first, optionally after tweet `before`.
    public func fetchTweets(limit: Int = 20, before: String? = nil) async throws {
        try await perform {
            let fetched: [Tweet]
            switch source {
            case .everyone: fetched = try await services.tweets.fetchTweets(limit: limit + 1, before: before)
            case .following:
                fetched = try await services.tweets.fetchFollowingTweets(limit: limit + 1, before: before)
            }
            let page = Page(fetched, limit: limit)
            (tweets, hasMore) = (page.items, page.hasMore)
            isSignedIn = try await services.auth.currentUid() != nil
            unreadNotifications = isSignedIn ? try await services.notifications.unreadCount() : 0
        }
    }
}
