import FoundationEssentials
import TweetStore

/// What can go wrong posting, reading, liking or deleting tweets.
public enum TweetError: Error, Equatable, LocalizedError {
    /// The caption is empty or only whitespace.
    case emptyCaption
    /// The caption is longer than a tweet may be.
    case captionTooLong(length: Int, limit: Int)
    /// The caption holds characters a tweet may not (such as U+FFFE or U+FEFF).
    case invalidCharacters
    /// No tweet has this ID.
    case notFound(String)
    /// A start of a tweet ID too short to name one.
    case referenceTooShort(String, minimum: Int)
    /// A start of a tweet ID that several tweets' IDs share; `candidates` are some of them, each
    /// as far as it differs from the others, and `more` says whether there are others still.
    case ambiguousReference(String, candidates: [String], more: Bool)
    /// The signed-in user tried to delete someone else's tweet.
    case notOwner(String)
    /// No notification of the signed-in user has this ID (a `--before` cursor).
    case notificationNotFound(String)
    /// More photos than a tweet may have.
    case tooManyImages(Int)
    /// An alt text longer than one may be.
    case altTextTooLong(Int)

    public var errorDescription: String? {
        switch self {
        case .emptyCaption:
            return "the caption is empty; say what's happening"
        case .captionTooLong(let length, let limit):
            return "caption is \(length)/\(limit) characters; shorten it by \(length - limit)"
        case .invalidCharacters:
            return "the caption contains characters a tweet cannot have; remove them and post again"
        case .notFound(let id):
            return "there is no tweet \(id)"
        case .referenceTooShort(let reference, let minimum):
            return "\(reference) is too short to name a tweet; give at least \(minimum) characters of its ID"
        case .ambiguousReference(let reference, let candidates, let more):
            let list = candidates.joined(separator: ", ") + (more ? " and more" : "")
            return "\(reference) is the start of several tweet IDs (\(list)); give more of the ID"
        case .notOwner(let id):
            return "tweet \(id) is not yours; you can only delete your own tweets"
        case .notificationNotFound(let id):
            return "you have no notification \(id)"
        case .tooManyImages(let count):
            return "a tweet may have at most \(TweetImage.maximumPerTweet) photos, not \(count)"
        case .altTextTooLong(let count):
            return "an alt text may have at most \(TweetImage.maximumAltCharacters) characters, not \(count)"
        }
    }
}
