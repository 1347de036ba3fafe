import FoundationEssentials
import TweetStore

/// What can go wrong looking up, editing or following users.
public enum UserError: Error, Equatable, LocalizedError {
    /// No user has this uid or @username.
    case notFound(String)
    /// A user tried to follow or unfollow themselves.
    case cannotFollowSelf
    /// A profile field is invalid; the reason says which and why.
    case invalidProfile(String)
    /// The signed-in account is being deleted: `delete-account` again finishes it.
    case leaving

    public var errorDescription: String? {
        switch self {
        case .notFound(let reference):
            return "there is no user \(reference)"
        case .cannotFollowSelf:
            return "you cannot follow or unfollow yourself"
        case .invalidProfile(let reason):
            return reason
        case .leaving:
            return "your account is being deleted; run delete-account again to finish"
        }
    }
}
