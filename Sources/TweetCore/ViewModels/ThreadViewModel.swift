import FoundationEssentials
import Observation
import TweetStore

/// A tweet in its conversation: what it replies to, up to the root, and the replies below it.
@MainActor @Observable
public final class ThreadViewModel: ErrorRecording {
    public var conversation: Conversation? { state.conversation }
    public package(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }

    /// What the view shows, observed as one value (one key path to make at its first use, not one
    /// for each type of value: see FeedViewModel).
    private var state = State()

    private struct State {
        var conversation: Conversation?
        var error: (any Error)?
    }

    private let tweetID: String
    private let services: AppServices

    public init(tweetID: String, services: AppServices) {
        self.tweetID = tweetID
        self.services = services
    }

    /// Loads the conversation with at most `limit` replies.
    public func load(limit: Int = 20) async throws {
        await services.tweets.prefetchThread(id: tweetID, limit: limit)
        try await read(services) {
            state.conversation = try await services.tweets.fetchThread(id: tweetID, limit: limit)
        }
    }
}
