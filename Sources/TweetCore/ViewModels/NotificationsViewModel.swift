import FoundationEssentials
import Observation
import TweetStore

/// The bell: the signed-in user's notifications, newest first, and the marker of what they saw.
@MainActor @Observable
public final class NotificationsViewModel: ErrorRecording {
    public var notifications: [ActivityNotification] { listing.page.items }
    /// Whether there are older notifications than the page shows.
    public var hasMore: Bool { listing.page.hasMore }
    public package(set) var error: (any Error)? {
        get { listing.error }
        set { listing.error = newValue }
    }
    private var listing = ListingState<ActivityNotification>()

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Loads a page, newest first, optionally after notification `before`, or only the unread ones.
    public func load(limit: Int = 20, before: String? = nil, unreadOnly: Bool = false) async throws {
        if before == nil { services.notifications.prefetchNotifications(limit: limit + 1) }
        try await read(services) {
            let page = Page(
                try await services.notifications.fetchNotifications(
                    limit: limit + 1, before: before, unreadOnly: unreadOnly), limit: limit)
            listing.page = page
        }
    }

    /// Marks what was shown as seen: the newest page of the list moves the marker to its newest
    /// notification; an unread listing moves it only once its last page is shown, so the unread
    /// ones can be paged through first.
    /// - Parameters:
    ///   - unreadOnly: whether the page was an unread listing.
    ///   - isFirstPage: whether it was the newest page (no `before`).
    public func markShownAsSeen(unreadOnly: Bool, isFirstPage: Bool) async throws {
        try await perform {
            if unreadOnly {
                guard !hasMore, !notifications.isEmpty else { return }
                try await services.notifications.markSeen(upTo: isFirstPage ? notifications[0].id : nil)
            } else if isFirstPage, let newest = notifications.first, !newest.read {
                // Shown as read means at or before the marker, which only moves forward: nothing to
                // move, so no transaction (on a server, five statements saved).
                try await services.notifications.markSeen(upTo: newest.id)
            }
        }
    }
}
