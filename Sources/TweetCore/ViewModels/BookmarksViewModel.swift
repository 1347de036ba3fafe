import FoundationEssentials
import Observation
import TweetStore

/// Bookmarks, from the side menu: the signed-in user's saved tweets, newest bookmarked first.
@MainActor @Observable
public final class BookmarksViewModel: ErrorRecording {
    public var tweets: [Tweet] { state.tweets }
    /// Whether there are older bookmarks than the page shows.
    public var hasMore: Bool { state.hasMore }
    public internal(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }

    /// What the view shows, observed as one value (one key path to make at its first use, not one
    /// for each type of value: see FeedViewModel).
    private var state = State()

    private struct State {
        var tweets: [Tweet] = []
        var hasMore: Bool = false
        var error: (any Error)?
    }

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    public func load(limit: Int = 20, before: String? = nil) async throws {
        try await perform {
            let page = Page(try await services.tweets.fetchBookmarks(limit: limit + 1, before: before), limit: limit)
            (state.tweets, state.hasMore) = (page.items, page.hasMore)
        }
    }
}
