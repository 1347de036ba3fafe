import FoundationEssentials
import Observation
import TweetStore

/// Leaving: the account about to be deleted, with what it holds, then the deletion itself.
@MainActor @Observable
public final class DeleteAccountViewModel: ErrorRecording {
    /// The signed-in account, after ``load()``.
    public private(set) var user: User?
    public private(set) var stats: UserStats?
    /// What the deletion removed, after ``delete(password:progress:)``.
    public private(set) var report: AccountDeletionReport?
    public package(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Reads the signed-in account and its counters, for the question that asks first.
    public func load() async throws {
        try await read(services) {
            let me = try await services.auth.requireUid()
            user = try await services.users.fetchUser(withUid: me)
            stats = try await services.users.fetchStats(forUid: me)
        }
    }

    /// Deletes the signed-in account, given its password.
    public func delete(
        password: String, progress: (@Sendable (AccountDeletion.Step, Int) -> Void)? = nil
    ) async throws {
        try await perform {
            report = try await AccountDeletion(services: services).run(password: password, progress: progress)
        }
    }
}
