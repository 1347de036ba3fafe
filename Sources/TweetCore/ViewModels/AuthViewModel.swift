import FoundationEssentials
import Observation
import TweetStore

/// Sign-in state (the course's `AuthViewModel`).
@MainActor @Observable
public final class AuthViewModel: ErrorRecording {
    /// The signed-in uid (the course's `userSession`).
    public private(set) var userSession: String?
    /// The signed-in user's profile.
    public private(set) var currentUser: User?
    /// The signed-in user's unread notifications, loaded with ``fetchUser()``.
    public private(set) var unreadNotifications = 0
    /// What went wrong in the last action, for the view to show.
    public internal(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Restores the session, as the course does on launch.
    public func fetchUser() async throws {
        try await perform {
            currentUser = try await services.auth.currentUser()
            userSession = currentUser?.id
            unreadNotifications = currentUser == nil ? 0 : try await services.notifications.unreadCount()
        }
    }

    /// Signs in by email or username.
    public func login(_ identifier: AuthService.Identifier, password: String) async throws {
        try await perform {
            currentUser = try await services.auth.login(identifier, password: password)
            userSession = currentUser?.id
        }
    }

    /// Creates an account and signs it in.
    public func register(email: String, password: String, fullname: String, username: String) async throws {
        try await perform {
            currentUser = try await services.auth.register(
                email: email, password: password, fullname: fullname, username: username)
            userSession = currentUser?.id
        }
    }

    /// Signs out.
    public func signOut() async throws {
        try await perform {
            try await services.auth.signOut()
            userSession = nil
            currentUser = nil
        }
    }
}
