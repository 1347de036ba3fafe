import Foundation
import Observation

/// The bell: the signed-in user's notifications, newest first, and the marker of what they saw.
@MainActor @Observable
public final class NotificationsViewModel: ErrorRecording {
    public private(set) var notifications: [ActivityNotification] = []
    /// Whether there are older notifications than the page shows.
    public private(set) var hasMore = false
    public internal(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Loads a page, newest first, optionally after notification `before`, or only the unread ones.
    public func load(limit: Int = 20, before: String? = nil, unreadOnly: Bool = false) async throws {
        try await perform {
            let page = Page(
                try await services.notifications.fetchNotifications(
                    limit: limit + 1, before: before, unreadOnly: unreadOnly), limit: limit)
            (notifications, hasMore) = (page.items, page.hasMore)
        }
    }

    /// Marks what was loaded as seen, once it has been shown: the marker moves to the newest one.
    public func markShownAsSeen() async throws {
        try await perform {
            guard let newest = notifications.first else { return }
            try await services.notifications.markSeen(upTo: newest)
        }
    }
}
