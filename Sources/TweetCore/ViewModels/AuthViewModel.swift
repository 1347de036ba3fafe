import FoundationEssentials
import Observation
import TweetStore

/// Sign-in state (the course's `AuthViewModel`).
@MainActor @Observable
public final class AuthViewModel: ErrorRecording {
    /// The signed-in uid (the course's `userSession`).
    public var userSession: String? { state.userSession }
    /// The signed-in user's profile.
    public var currentUser: User? { state.currentUser }
    /// The signed-in user's unread notifications, loaded with ``fetchUser()``.
    public var unreadNotifications: Int { state.unreadNotifications }
    /// What went wrong in the last action, for the view to show.
    public package(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }

    /// What the view shows, observed as one value (one key path to make at its first use, not one
    /// for each type of value: see FeedViewModel).
    private var state = State()

    private struct State {
        var userSession: String?
        var currentUser: User?
        var unreadNotifications: Int = 0
        var error: (any Error)?
    }

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Restores the session, as the course does on launch.
    public func fetchUser() async throws {
        try await read(services) {
            state.currentUser = try await services.auth.currentUser()
            state.userSession = currentUser?.id
            state.unreadNotifications = currentUser == nil ? 0 : try await services.notifications.unreadCount()
        }
    }

    /// Signs in by email or username.
    public func login(_ identifier: AuthService.Identifier, password: String) async throws {
        try await perform {
            state.currentUser = try await services.auth.login(identifier, password: password)
            state.userSession = currentUser?.id
        }
    }

    /// Creates an account and signs it in.
    public func register(email: String, password: String, fullname: String, username: String) async throws {
        try await perform {
            state.currentUser = try await services.auth.register(
                email: email, password: password, fullname: fullname, username: username)
            state.userSession = currentUser?.id
        }
    }

    /// Signs out.
    public func signOut() async throws {
        try await perform {
            try await services.auth.signOut()
            state.userSession = nil
            state.currentUser = nil
        }
    }
}
