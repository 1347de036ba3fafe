import FoundationEssentials
import Observation
import TweetStore

/// Blocking and muting, from a profile's menu and the settings' lists: one action each, and the
/// lists of blocked and muted accounts and words.
@MainActor @Observable
public final class SafetyViewModel: ErrorRecording {
    /// The account the last action named.
    public private(set) var user: User?
    /// Whether the last action changed anything (`false`: it was so already).
    public private(set) var changed = false
    /// The accounts blocked, the newest first, after ``loadBlocks()``.
    public private(set) var blocked: [SafetyService.ListedAccount] = []
    /// The accounts muted, the newest first, and the muted words, after ``loadMutes()``.
    public private(set) var mutedAccounts: [SafetyService.ListedAccount] = []
    public private(set) var mutedWords: [(text: String, mute: ViewerFilters.Mute)] = []
    public package(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Blocks (`on`) or unblocks the account `reference` names (`@username`, a username or a uid).
    public func setBlocked(_ on: Bool, reference: String) async throws {
        try await perform {
            let target = try await services.users.fetchUser(matching: reference)
            user = target
            changed =
                on
                ? try await services.safety.block(uid: target.id) : try await services.safety.unblock(uid: target.id)
        }
    }

    /// Mutes the account `reference` names, for `duration` seconds or for good.
    public func muteAccount(_ reference: String, for duration: TimeInterval?) async throws {
        try await perform {
            let target = try await services.users.fetchUser(matching: reference)
            user = target
            changed = try await services.safety.mute(.user(target.id), for: duration)
        }
    }

    /// Mutes tweets with every word (or hashtag) of `text`, for `duration` seconds or for good.
    public func muteWords(_ text: String, for duration: TimeInterval?) async throws {
        try await perform {
            user = nil
            changed = try await services.safety.mute(.words(text), for: duration)
        }
    }

    /// Unmutes the account `reference` names.
    public func unmuteAccount(_ reference: String) async throws {
        try await perform {
            let target = try await services.users.fetchUser(matching: reference)
            user = target
            changed = try await services.safety.unmute(.user(target.id))
        }
    }

    /// Unmutes the words `text`.
    public func unmuteWords(_ text: String) async throws {
        try await perform {
            user = nil
            changed = try await services.safety.unmute(.words(text))
        }
    }

    public func loadBlocks() async throws {
        try await read(services) { blocked = try await services.safety.blockedAccounts() }
    }

    public func loadMutes() async throws {
        try await read(services) {
            let mutes = try await services.safety.mutes()
            mutedAccounts = mutes.accounts
            mutedWords = mutes.words.map { (text: $0.0, mute: $0.1) }
        }
    }
}
