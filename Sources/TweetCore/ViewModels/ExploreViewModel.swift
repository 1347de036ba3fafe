import FoundationEssentials
import Observation
import TweetStore

/// The explore screen: users, searchable by username or full name (the course's `ExploreViewModel`).
@MainActor @Observable
public final class ExploreViewModel: ErrorRecording {
    public var users: [User] { state.users }
    /// Whether more users match than the page shows.
    public var hasMore: Bool { state.hasMore }
    public var searchText: String {
        get { state.searchText }
        set { state.searchText = newValue }
    }
    public package(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }

    /// What the view shows, observed as one value (one key path to make at its first use, not one
    /// for each type of value: see FeedViewModel).
    private var state = State()

    private struct State {
        var users: [User] = []
        var hasMore: Bool = false
        var searchText: String = ""
        var error: (any Error)?
    }

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
        try await read(services) {
            let fetched = try await services.users.searchUsers(matching: searchText, limit: offset + limit + 1)
            let page = Page(Array(fetched.dropFirst(offset)), limit: limit)
            (state.users, state.hasMore) = (page.items, page.hasMore)
        }
    }
}
