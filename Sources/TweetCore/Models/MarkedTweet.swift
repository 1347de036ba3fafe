/// A tweet after the signed-in user set or cleared a mark on it (a like, a retweet, a bookmark),
/// and whether that changed anything: setting a mark that was there already changes nothing.
public struct MarkedTweet: Sendable, Equatable {
    /// The tweet as it stands after the action.
    public var tweet: Tweet
    /// Whether the mark was set or cleared by this action, rather than already so.
    public var changed: Bool

    public init(tweet: Tweet, changed: Bool) {
        self.tweet = tweet
        self.changed = changed
    }
}
