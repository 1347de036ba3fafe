import FoundationEssentials
import Observation
import TweetStore

/// Editing the signed-in user's profile (the course's edit-profile placeholder, done).
@MainActor @Observable
public final class EditProfileViewModel: ErrorRecording {
    public private(set) var user: User?
    public package(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Saves `changes` and keeps the updated profile.
    public func save(_ changes: ProfileChanges) async throws {
        try await perform {
            user = try await services.users.updateProfile(changes)
        }
    }
}
