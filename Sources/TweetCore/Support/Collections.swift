import TweetStore

/// The course's collection layout, in one place.
package enum Collections {
    package static let users = "users"
    package static let tweets = "tweets"
    /// Password hashes, apart from the public `users` documents (Firebase Auth keeps them apart too).
    package static let credentials = "credentials"
    /// `sessions/{name of the token}`: the sessions the store knows, with their uid.
    static let sessions = "sessions"
    static let userLikes = "user-likes"
    /// `user-stats/{uid}`: the counts a profile shows, kept by the transactions that change them.
    static let userStats = "user-stats"
    /// `user-filters/{uid}`: whom `uid` blocks and is blocked by, and what they mute
    /// (``ViewerFilters``), private to them.
    static let userFilters = "user-filters"

    /// `retweets/rt_{id}`: who retweeted what, and when, in time order.
    package static let retweets = "retweets"
    static let bookmarks = "bookmarks"
    static let notifications = "notifications"
    /// `notification-state/{uid}`: how many notifications are unread, and the newest one seen.
    static let notificationState = "notification-state"

    /// `users/{uid}/bookmarks/{tweetId}`: the tweets `uid` saved, private to them.
    package static func bookmarks(of uid: String) -> String { "users/\(uid)/bookmarks" }
    /// `users/{uid}/retweeted/{tweetId}`: which retweet of the tweet is `uid`'s.
    package static func retweeted(by uid: String) -> String { "users/\(uid)/retweeted" }
    /// `users/{uid}/notifications/{key}`: what others did to `uid`'s tweets or to `uid`.
    package static func notifications(of uid: String) -> String { "users/\(uid)/notifications" }

    /// `users/{uid}/follow-requests/{requester}`: who asked to follow `uid`, a protected account,
    /// and when; private to `uid`.
    static let followRequests = "follow-requests"
    static func followRequests(of uid: String) -> String { "users/\(uid)/\(followRequests)" }

    /// `users/{uid}/twtxt-following/{key}`: the twtxt feeds `uid` follows, private to them.
    static func twtxtFollowing(of uid: String) -> String { "users/\(uid)/twtxt-following" }

    /// `users/{uid}/user-likes`: the tweets `uid` likes, with the time of each like.
    package static func likes(of uid: String) -> String { "users/\(uid)/user-likes" }
    /// `following/{uid}/user-following`: whom `uid` follows.
    package static func following(of uid: String) -> String { "following/\(uid)/user-following" }
    /// `followers/{uid}/user-followers`: who follows `uid`.
    package static func followers(of uid: String) -> String { "followers/\(uid)/user-followers" }
}
