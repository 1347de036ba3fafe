import FoundationEssentials
import Observation
import TweetStore

/// The explore screen: users, searchable by username or full name (the course's `ExploreViewModel`).
@MainActor @Observable
public final class ExploreViewModel: ErrorRecording {
    public private(set) var users: [User] = []
    /// Whether more users match than the page shows.
    public private(set) var hasMore = false
    public var searchText = ""
    public internal(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// The users that match ``searchText`` (the course's name): the service does the matching, in
    /// one place, so this is ``users``.
    public var searchableUsers: [User] { users }

    /// Loads a page of the users matching ``searchText`` (all users when it is empty), by username.
    /// - Parameters:
    ///   - limit: users per page.
    ///   - offset: how many matching users to skip (the pages before).
    public func fetchUsers(limit: Int = 20, offset: Int = 0) async throws {
        try await perform {
            let fetched = try await services.users.searchUsers(matching: searchText, limit: offset + limit + 1)
            let page = Page(Array(fetched.dropFirst(offset)), limit: limit)
            (users, hasMore) = (page.items, page.hasMore)
        }
    }
}
