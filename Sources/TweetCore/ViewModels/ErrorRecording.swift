import TweetStore

/// A view model's one way to run an action: the error is kept in `error`, for a view to show (the
/// course's `//show error`), and thrown, so a caller cannot carry on as if it had worked.
@MainActor
package protocol ErrorRecording: AnyObject {
    var error: (any Error)? { get set }
}

extension ErrorRecording {
    /// Runs `action`, clearing `error` first and recording the error it throws.
    package func perform<T>(_ action: () async throws -> T) async throws -> T {
        error = nil
        do {
            return try await action()
        } catch {
            self.error = error
            throw error
        }
    }

    /// ``perform(_:)`` for an action that does not wait.
    package func performSync<T>(_ action: () throws -> T) throws -> T {
        error = nil
        do {
            return try action()
        } catch {
            self.error = error
            throw error
        }
    }

    /// ``perform(_:)`` for an action that only reads (``AppServices/reading(_:)``): the signed-in
    /// user resolved once, and every read from one state of the store.
    package func read(_ services: AppServices, _ action: () async throws -> Void) async throws {
        try await perform { try await services.reading(action) }
    }
}

/// A page of a listing: the items, and whether there are more after them (one more was asked for
/// than is shown, so "more" is never a guess).
struct Page<Item> {
    var items: [Item]
    var hasMore: Bool

    /// No items, and none after them.
    init() {
        (items, hasMore) = ([], false)
    }

    /// `fetched` cut to `limit`, having been read with a limit of `limit + 1`.
    init(_ fetched: [Item], limit: Int) {
        items = Array(fetched.prefix(limit))
        hasMore = fetched.count > limit
    }
}

/// What a listing's view shows, a page and the last action's error, observed as one value: each
/// observed property's key path is made at its first use, and one for a new type of value is costly
/// (see FeedViewModel).
struct ListingState<Item> {
    var page = Page<Item>()
    var error: (any Error)?
}
