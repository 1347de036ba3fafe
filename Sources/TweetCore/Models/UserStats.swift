import TweetStore

/// The numbers under a profile header (the course's `UserStatsView`).
public struct UserStats: Codable, Equatable, Sendable {
    public var following: Int
    public var followers: Int
    public var tweets: Int

    public init(following: Int, followers: Int, tweets: Int) {
        self.following = following
        self.followers = followers
        self.tweets = tweets
    }
}
