import FoundationEssentials
import Observation
import TweetStore

/// One tweet's actions: like, retweet, bookmark, their undoing, and delete (the course's `TweetRowViewModel`).
@MainActor @Observable
public final class TweetRowViewModel: ErrorRecording {
    /// The tweet as it stands after the last action; `nil` once deleted or before the first action.
    public var tweet: Tweet? { state.tweet }
    public package(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }

    /// What the view shows, observed as one value (one key path to make at its first use, not one
    /// for each type of value: see FeedViewModel).
    private var state = State()

    private struct State {
        var tweet: Tweet?
        var error: (any Error)?
    }

    private let tweetID: String
    private let services: AppServices

    public init(tweetID: String, services: AppServices) {
        self.tweetID = tweetID
        self.services = services
    }

    public func likeTweet() async throws {
        try await perform { state.tweet = try await services.tweets.likeTweet(id: tweetID) }
    }

    public func unlikeTweet() async throws {
        try await perform { state.tweet = try await services.tweets.unlikeTweet(id: tweetID) }
    }

    public func retweet() async throws {
        try await perform { state.tweet = try await services.tweets.retweet(id: tweetID) }
    }

    public func unretweet() async throws {
        try await perform { state.tweet = try await services.tweets.unretweet(id: tweetID) }
    }

    public func bookmark() async throws {
        try await perform { state.tweet = try await services.tweets.bookmark(id: tweetID) }
    }

    public func unbookmark() async throws {
        try await perform { state.tweet = try await services.tweets.unbookmark(id: tweetID) }
    }

    public func deleteTweet() async throws {
        try await perform {
            try await services.tweets.deleteTweet(id: tweetID)
            state.tweet = nil
        }
    }
}
