import Foundation
import Observation

/// The home timeline (the course's `FeedViewModel`).
@MainActor @Observable
public final class FeedViewModel {
    /// Which tweets the feed shows.
    public enum Source: Sendable {
        /// Everyone's tweets.
        case everyone
        /// The signed-in user's and those of whom they follow.
        case following
    }

    public private(set) var tweets: [Tweet] = []
    public private(set) var error: (any Error)?
    public var source: Source

    private let services: AppServices

    public init(services: AppServices, source: Source = .everyone) {
        self.services = services
        self.source = source
    }

    /// Loads a page, newest first, optionally after tweet `before`.
    public func fetchTweets(limit: Int = 20, before: String? = nil) async {
        error = nil
        do {
            switch source {
            case .everyone: tweets = try await services.tweets.fetchTweets(limit: limit, before: before)
            case .following: tweets = try await services.tweets.fetchFollowingTweets(limit: limit, before: before)
            }
        } catch {
            self.error = error
        }
    }
}
