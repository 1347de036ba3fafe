import FoundationEssentials
import Observation
import TweetStore

/// Search: tweets by words, #hashtags, @mentions and from:author, newest first.
@MainActor @Observable
public final class SearchViewModel: ErrorRecording {
    public private(set) var tweets: [Tweet] = []
    /// Whether there are older matches than the page shows.
    public private(set) var hasMore = false
    public internal(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    public func search(_ text: String, limit: Int = 20, before: String? = nil) async throws {
        try await perform {
            let page = Page(try await services.tweets.search(text, limit: limit + 1, before: before), limit: limit)
            (tweets, hasMore) = (page.items, page.hasMore)
        }
    }
}

/// Explore's "What's happening": the most used hashtags of the last hours.
@MainActor @Observable
public final class TrendsViewModel: ErrorRecording {
    public private(set) var trends: Trends?
    public internal(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    public func load(hours: Int = 24, limit: Int = 10) async throws {
        try await perform { trends = try await services.tweets.fetchTrends(hours: hours, limit: limit) }
    }
}
