import FoundationEssentials
import TweetStore

/// A user's public profile, stored at `users/{uid}` (the course's `User`).
public struct User: Codable, DocumentDecodable, Equatable, Sendable, Identifiable {
    /// The uid: the document ID of `users/{uid}`.
    public var id: String
    /// The sign-in email, stored lowercase. Private: the services leave it out (`nil`) of every user
    /// but the signed-in one.
    public var email: String?
    /// The handle without "@": lowercase, unique, 1–15 of `[a-z0-9_]`.
    public var username: String
    public var fullname: String
    public var profileImageUrl: String?
    public var bio: String?
    public var location: String?
    public var website: String?
    /// Where the user publishes their twtxt feed (`export --twtxt`), if they do: other feeds'
    /// mentions of them link there.
    public var twtxtUrl: String?
    /// Whether only approved followers see the user's tweets (`edit-profile --protected on`).
    public var isProtected: Bool
    /// The address of the picture `edit-profile --avatar FILE` kept: a square PNG. A value that is
    /// no address (the store is not trusted) reads as none.
    public var avatar: String?

    public init(
        id: String, email: String?, username: String, fullname: String, profileImageUrl: String? = nil,
        bio: String? = nil, location: String? = nil, website: String? = nil, twtxtUrl: String? = nil,
        isProtected: Bool = false, avatar: String? = nil
    ) {
        self.id = id
        self.email = email
        self.username = username
        self.fullname = fullname
        self.profileImageUrl = profileImageUrl
        self.bio = bio
        self.location = location
        self.website = website
        self.twtxtUrl = twtxtUrl
        self.isProtected = isProtected
        self.avatar = avatar.flatMap { BlobAddress.isValid($0) ? $0 : nil }
    }

    private enum CodingKeys: String, CodingKey {
        case id, email, username, fullname, profileImageUrl, bio, location, website, twtxtUrl
        case isProtected = "protected"
        case avatar
    }

    public init(reading fields: FieldReader) throws(FieldReader.Failure) {
        self.init(
            id: try fields.string("id"), email: try fields.optionalString("email"),
            username: try fields.string("username"), fullname: try fields.string("fullname"),
            profileImageUrl: try fields.optionalString("profileImageUrl"), bio: try fields.optionalString("bio"),
            location: try fields.optionalString("location"), website: try fields.optionalString("website"),
            twtxtUrl: try fields.optionalString("twtxtUrl"), isProtected: try fields.optionalBool("protected") ?? false,
            avatar: fields.fields["avatar"]?.stringValue)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            email: try container.decodeIfPresent(String.self, forKey: .email),
            username: try container.decode(String.self, forKey: .username),
            fullname: try container.decode(String.self, forKey: .fullname),
            profileImageUrl: try container.decodeIfPresent(String.self, forKey: .profileImageUrl),
            bio: try container.decodeIfPresent(String.self, forKey: .bio),
            location: try container.decodeIfPresent(String.self, forKey: .location),
            website: try container.decodeIfPresent(String.self, forKey: .website),
            twtxtUrl: try container.decodeIfPresent(String.self, forKey: .twtxtUrl),
            // Users written before protected accounts existed are public.
            isProtected: try container.decodeIfPresent(Bool.self, forKey: .isProtected) ?? false,
            avatar: try? container.decodeIfPresent(String.self, forKey: .avatar))  // Not a string: none.
    }

    // Explicit nulls, so every user in `--json` output has the same keys; the email, which only its
    // owner sees, is absent rather than null everywhere else.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encode(username, forKey: .username)
        try container.encode(fullname, forKey: .fullname)
        try container.encode(profileImageUrl, forKey: .profileImageUrl)
        try container.encode(bio, forKey: .bio)
        try container.encode(location, forKey: .location)
        try container.encode(website, forKey: .website)
        try container.encode(twtxtUrl, forKey: .twtxtUrl)
        try container.encode(isProtected, forKey: .isProtected)
        try container.encodeIfPresent(avatar, forKey: .avatar)
    }
}
