import TweetStore

/// The tabs of a profile (the course's `TweetFilterViewModel`).
public enum TweetFilter: String, CaseIterable, Codable, Sendable {
    case tweets
    case replies
    case likes
    /// The tweets with photos, shown as a grid (the Instagram lessons' post grid).
    case media

    /// The tab's title, as the course shows it.
    public var title: String {
        switch self {
        case .tweets: return "Tweets"
        case .replies: return "Replies"
        case .likes: return "Likes"
        case .media: return "Media"
        }
    }
}
