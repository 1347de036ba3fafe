import FoundationEssentials
import Observation
import TweetImages
import TweetStore

/// The composer, "What's happening?" (the course's `UploadTweetViewModel`).
@MainActor @Observable
public final class UploadTweetViewModel: ErrorRecording {
    public var didUploadTweet: Bool { state.didUploadTweet }
    /// The tweet just posted.
    public var tweet: Tweet? { state.tweet }
    public package(set) var error: (any Error)? {
        get { state.error }
        set { state.error = newValue }
    }

    /// What the view shows, observed as one value (one key path to make at its first use, not one
    /// for each type of value: see FeedViewModel).
    private var state = State()

    private struct State {
        var didUploadTweet: Bool = false
        var tweet: Tweet?
        var photos: [PhotoUpload] = []
        var error: (any Error)?
    }

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// How `caption` counts by Twitter's rules, without posting it (the composer's counter).
    public func preview(_ caption: String) -> CaptionPreview {
        TweetService.preview(caption)
    }

    /// Checks `caption` as posting would, without posting it.
    /// - Throws: The ``TweetError`` or ``TextError`` that posting it would throw.
    public func validate(_ caption: String) async throws {
        try await perform { _ = try TweetService.validatedCaption(caption) }
    }

    /// The photos attached so far, in order.
    public var photos: [PhotoUpload] { state.photos }

    /// Attaches the photo read from `file`, with its alt text: checked whole, without its
    /// metadata (see ``ImageIntake``), and at most four.
    /// - Throws: ``ImageError`` naming `file`, ``TweetError/tooManyImages(_:)`` or
    ///   ``TweetError/altTextTooLong(_:)``, or ``TextError`` for an alt text with control characters.
    public func attachPhoto(_ bytes: [UInt8], file: String, alt: String?) throws {
        try performSync {
            guard state.photos.count < TweetImage.maximumPerTweet else {
                throw TweetError.tooManyImages(state.photos.count + 1)
            }
            let alt = try TweetImage.checkedAlt(alt)
            state.photos.append(PhotoUpload(image: try ImageIntake.check(bytes, file: file), alt: alt))
        }
    }

    /// Posts `caption` with the photos attached, as a reply to `replyTo` and quoting `quote` when given.
    public func uploadTweet(withCaption caption: String, replyTo: String? = nil, quote: String? = nil) async throws {
        state.didUploadTweet = false
        try await perform {
            state.tweet = try await services.tweets.uploadTweet(
                caption: caption, replyTo: replyTo, quote: quote, photos: state.photos)
            state.didUploadTweet = true
            state.photos = []
        }
    }
}
