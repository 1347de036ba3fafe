import Foundation
import Observation

/// The explore screen: users, searchable by username or full name (the course's `ExploreViewModel`).
@MainActor @Observable
public final class ExploreViewModel {
    public private(set) var users: [User] = []
    public var searchText = ""
    public private(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// The loaded users that match ``searchText`` (the course's client-side filter).
    public var searchableUsers: [User] {
        let needle = searchText.trimmingCharacters(in: .whitespaces).lowercased()
        guard !needle.isEmpty else { return users }
        let name = needle.hasPrefix("@") ? String(needle.dropFirst()) : needle
        return users.filter { $0.username.contains(name) || $0.fullname.lowercased().contains(needle) }
    }

    /// Loads the users matching ``searchText`` (all users when it is empty), searched by the service.
    public func fetchUsers(limit: Int? = nil) async {
        error = nil
        do {
            users = try await services.users.searchUsers(matching: searchText, limit: limit)
        } catch {
            self.error = error
        }
    }
}
