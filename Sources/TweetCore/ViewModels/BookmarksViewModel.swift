import FoundationEssentials
import Observation
import TweetStore

/// Bookmarks, from the side menu: the signed-in user's saved tweets, newest bookmarked first.
@MainActor @Observable
public final class BookmarksViewModel: ErrorRecording {
    public var tweets: [Tweet] { listing.page.items }
    /// Whether there are older bookmarks than the page shows.
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

    public func load(limit: Int = 20, before: String? = nil) async throws {
        if before == nil { services.tweets.prefetchBookmarks(limit: limit + 1) }
        try await read(services) {
            let page = Page(try await services.tweets.fetchBookmarks(limit: limit + 1, before: before), limit: limit)
            listing.page = page
        }
    }
}
