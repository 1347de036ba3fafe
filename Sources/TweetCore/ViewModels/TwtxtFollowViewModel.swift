import FoundationEssentials
import Observation
import TweetStore

/// Following and unfollowing a twtxt feed: a feed is read once before it is followed, so that an
/// address that is not a feed is refused at once rather than at every `feed --following`.
@MainActor @Observable
public final class TwtxtFollowViewModel: ErrorRecording {
    /// The feed followed or unfollowed, and whether that changed anything.
    public private(set) var feed: TwtxtFollow?
    public private(set) var changed = false
    /// Entries the feed had when it was read.
    public private(set) var entries = 0
    public package(set) var error: (any Error)?

    private let services: AppServices
    private let loader: any TwtxtFeedLoader

    public init(services: AppServices, loader: any TwtxtFeedLoader) {
        self.services = services
        self.loader = loader
    }

    /// Reads the feed at `url` and follows it, under `nick`, else its own `# nick =`, else `fallbackNick`.
    /// - Throws: ``TwtxtError`` for a feed that cannot be read or is not one; ``AuthError/notSignedIn``.
    public func follow(url: String, nick: String?, fallbackNick: String) async throws {
        try await perform {
            _ = try await services.auth.requireUid()
            let read = try await loader.load(url, nick: nick ?? fallbackNick)
            guard !read.entries.isEmpty || read.skipped == 0 else {
                throw TwtxtError.notAFeed(url, skipped: read.skipped)
            }
            let name = nick ?? read.nick ?? fallbackNick
            changed = try await services.twtxt.follow(url: url, nick: name)
            entries = read.entries.count
            feed = try await services.twtxt.follows().first { $0.url == url }
        }
    }

    /// Stops following the feed at `url`.
    public func unfollow(url: String) async throws {
        try await perform {
            feed = try await services.twtxt.follows().first { $0.url == url }
            changed = try await services.twtxt.unfollow(url: url)
        }
    }
}
