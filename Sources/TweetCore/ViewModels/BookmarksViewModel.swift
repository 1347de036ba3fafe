import FoundationEssentials
import Observation
import TweetStore

/// Bookmarks, from the side menu: the signed-in user's saved tweets, newest bookmarked first.
@MainActor @Observable
public final class BookmarksViewModel: ErrorRecording {
    public private(set) var tweets: [Tweet] = []
    /// Whether there are older bookmarks than the page shows.
    public private(set) var hasMore = false
    public internal(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    public func load(limit: Int = 20, before: String? = nil) async throws {
        try await perform {
            let page = Page(try await services.tweets.fetchBookmarks(limit: limit + 1, before: before), limit: limit)
            (tweets, hasMore) = (page.items, page.hasMore)
        }
    }
}
