import Observation
import TweetStore

/// Bringing the search index of a store indexed by an older tweetcli up to date (`tweetcli
/// reindex`): maintenance, like compacting, so nobody need be signed in.
@MainActor @Observable
public final class ReindexViewModel: ErrorRecording {
    /// What the last reindex did.
    public private(set) var report: ReindexReport?
    public package(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Adds what the index lacks; `progress` hears the tweets checked so far.
    public func reindex(progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform { report = try await services.tweets.reindex(progress: progress) }
    }
}
