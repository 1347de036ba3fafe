import TweetStore

/// The fields `edit-profile` may change; `nil` leaves a field as it is, an empty string clears it.
public struct ProfileChanges: Equatable, Sendable {
    public var fullname: String?
    public var bio: String?
    public var location: String?
    public var website: String?
    public var profileImageUrl: String?
    /// Where the user's twtxt feed is published.
    public var twtxtUrl: String?
    /// Whether only approved followers see the tweets; made public, waiting requests are approved.
    public var isProtected: Bool?

    public init(
        fullname: String? = nil, bio: String? = nil, location: String? = nil, website: String? = nil,
        profileImageUrl: String? = nil, twtxtUrl: String? = nil, isProtected: Bool? = nil
    ) {
        self.fullname = fullname
        self.bio = bio
        self.location = location
        self.website = website
        self.profileImageUrl = profileImageUrl
        self.twtxtUrl = twtxtUrl
        self.isProtected = isProtected
    }

    /// Whether nothing would change.
    public var isEmpty: Bool {
        fullname == nil && bio == nil && location == nil && website == nil && profileImageUrl == nil
            && twtxtUrl == nil && isProtected == nil
    }
}
