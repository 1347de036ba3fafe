import FoundationEssentials
import Observation
import TweetStore

/// Search: tweets by words, #hashtags, @mentions and from:author, newest first.
@MainActor @Observable
public final class SearchViewModel: ErrorRecording {
    public var tweets: [Tweet] { listing.page.items }
    /// Whether there are older matches than the page shows.
    public var hasMore: Bool { listing.page.hasMore }
    public package(set) var error: (any Error)? {
        get { listing.error }
        set { listing.error = newValue }
    }
    private var listing = ListingState<Tweet>()

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    public func search(_ text: String, limit: Int = 20, before: String? = nil) async throws {
        await services.tweets.prefetchSearch(text, limit: limit + 1, before: before)
        try await read(services) {
            let page = Page(try await services.tweets.search(text, limit: limit + 1, before: before), limit: limit)
            listing.page = page
        }
    }
}

/// Explore's "What's happening": the most used hashtags of the last hours.
@MainActor @Observable
public final class TrendsViewModel: ErrorRecording {
    public var trends: Trends? { state.trends }
    public package(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }

    /// What the view shows, observed as one value (one key path to make at its first use, not one
    /// for each type of value: see FeedViewModel).
    private var state = State()

    private struct State {
        var trends: Trends?
        var error: (any Error)?
    }

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    public func load(hours: Int = 24, limit: Int = 10) async throws {
        try await read(services) {
            state.trends = try await services.tweets.fetchTrends(hours: hours, limit: limit)
        }
    }
}
