import FoundationEssentials
import Observation
import TweetImages
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

    /// Makes the photo read from `file` the signed-in user's picture: checked as a tweet's photo
    /// is (its metadata left behind), and kept as its centre square.
    /// - Throws: ``ImageError`` naming `file`, or the store's errors.
    public func setAvatar(_ bytes: [UInt8], file: String) async throws {
        try await perform {
            let image = try ImageIntake.check(bytes, file: file)
            guard let square = try Avatar.square(of: image) else {
                throw ImageError.damaged(
                    file: file, format: image.format, reason: "it has no colours to make a picture of")
            }
            user = try await services.users.setAvatar(png: square.bytes, address: square.sha256)
        }
    }
}
