import FoundationEssentials
import Observation
import TweetStore

/// One tweet's actions: like, retweet, bookmark, their undoing, and delete (the course's `TweetRowViewModel`).
@MainActor @Observable
public final class TweetRowViewModel: ErrorRecording {
    /// The tweet as it stands after the last action; `nil` once deleted or before the first action.
    public var tweet: Tweet? { state.tweet }
    /// Whether the last action set or cleared its mark, rather than finding it already so.
    public var changed: Bool { state.changed }
    public package(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }

    /// What the view shows, observed as one value (one key path to make at its first use, not one
    /// for each type of value: see FeedViewModel).
    private var state = State()

    private struct State {
        var tweet: Tweet?
        var changed = false
        var error: (any Error)?
    }

    private let tweetID: String
    private let services: AppServices

    public init(tweetID: String, services: AppServices) {
        self.tweetID = tweetID
        self.services = services
    }

    public func likeTweet() async throws {
        try await mark { try await $0.likeTweet(id: $1) }
    }

    public func unlikeTweet() async throws {
        try await mark { try await $0.unlikeTweet(id: $1) }
    }

    public func retweet() async throws {
        try await mark { try await $0.retweet(id: $1) }
    }

    public func unretweet() async throws {
        try await mark { try await $0.unretweet(id: $1) }
    }

    public func bookmark() async throws {
        try await mark { try await $0.bookmark(id: $1) }
    }

    public func unbookmark() async throws {
        try await mark { try await $0.unbookmark(id: $1) }
    }

    /// Loads the tweet for deleting: it must exist and be the signed-in user's, which is known
    /// before anyone is asked to confirm.
    public func loadForDeleting() async throws {
        try await perform { state.tweet = try await services.tweets.fetchOwnTweet(withID: tweetID) }
    }

    public func deleteTweet() async throws {
        try await perform {
            try await services.tweets.deleteTweet(id: tweetID)
            state.tweet = nil
        }
    }

    private func mark(_ action: (TweetService, String) async throws -> MarkedTweet) async throws {
        try await perform {
            let marked = try await action(services.tweets, tweetID)
            state.tweet = marked.tweet
            state.changed = marked.changed
        }
    }
}
