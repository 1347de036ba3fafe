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
        var accounts: [AuthService.Account] = []
        var activeAfterSignOut: String?
        var sessionsEnded = 0
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

    /// The accounts signed in on this device, loaded with ``loadAccounts()``.
    public var accounts: [AuthService.Account] { state.accounts }
    /// The username of the account active after ``signOut()``, if another one is.
    public var activeAfterSignOut: String? { state.activeAfterSignOut }
    /// How many other sessions ``changePassword(current:new:)`` signed out.
    public var sessionsEnded: Int { state.sessionsEnded }

    /// Signs out the active account; another signed-in account, if any, becomes active.
    public func signOut() async throws {
        try await perform {
            state.activeAfterSignOut = try await services.auth.signOut()
            state.userSession = nil
            state.currentUser = nil
        }
    }

    /// Signs out every account signed in on this device.
    public func signOutAll() async throws {
        try await perform {
            try await services.auth.signOutAll()
            state.userSession = nil
            state.currentUser = nil
        }
    }

    /// Lists the accounts signed in on this device.
    public func loadAccounts() async throws {
        try await perform { state.accounts = try await services.auth.accounts() }
    }

    /// Makes another signed-in account the active one, without a password.
    public func switchAccount(to username: String) async throws {
        try await perform {
            try await services.auth.switchAccount(to: username)
            state.currentUser = try await services.auth.currentUser()
            state.userSession = currentUser?.id
        }
    }

    /// Changes the password, given the current one; other sessions of the account end.
    public func changePassword(current: String, new: String) async throws {
        try await perform { state.sessionsEnded = try await services.auth.changePassword(current: current, new: new) }
    }
}
