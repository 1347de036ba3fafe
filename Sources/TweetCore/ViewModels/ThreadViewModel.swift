import FoundationEssentials
import Observation
import TweetStore

/// A tweet in its conversation: what it replies to, up to the root, and the replies below it.
@MainActor @Observable
public final class ThreadViewModel: ErrorRecording {
    public private(set) var conversation: Conversation?
    public internal(set) var error: (any Error)?

    private let tweetID: String
    private let services: AppServices

    public init(tweetID: String, services: AppServices) {
        self.tweetID = tweetID
        self.services = services
    }

    /// Loads the conversation with at most `limit` replies.
    public func load(limit: Int = 20) async throws {
        try await perform { conversation = try await services.tweets.fetchThread(id: tweetID, limit: limit) }
    }
}
