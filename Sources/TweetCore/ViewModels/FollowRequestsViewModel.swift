import FoundationEssentials
import Observation
import TweetStore

/// A protected account's follow requests: the list, and approving or denying one.
@MainActor @Observable
public final class FollowRequestsViewModel: ErrorRecording {
    /// The requests waiting, the newest first, after ``load(limit:before:)``.
    public private(set) var requests: [FollowRequest] = []
    /// Whether there are older requests than the page shows.
    public private(set) var hasMore = false
    /// The account the last answer named.
    public private(set) var user: User?
    public package(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// A page of the requests waiting. `before` is the uid of the last request shown.
    public func load(limit: Int = 20, before: String? = nil) async throws {
        try await read(services) {
            let page = Page(
                try await services.users.followRequests(limit: limit + 1, before: before), limit: limit)
            (requests, hasMore) = (page.items, page.hasMore)
        }
    }

    /// Approves (`approving`) or denies the request of the account `reference` names (`@username`,
    /// a username or a uid).
    public func answer(_ reference: String, approving: Bool) async throws {
        try await perform {
            let requester = try await services.users.fetchUser(matching: reference)
            user = requester
            do {
                if approving {
                    try await services.users.approveRequest(from: requester.id)
                } else {
                    try await services.users.denyRequest(from: requester.id)
                }
            } catch ProtectionError.noRequest {
                throw ProtectionError.noRequest("@" + requester.username)
            }
        }
    }
}
