import Foundation

/// A tweet, stored at `tweets/{id}` (the course's `Tweet`), with its author joined on the client.
public struct Tweet: Codable, Equatable, Sendable, Identifiable {
    public var id: String
    /// The author's uid.
    public var uid: String
    public var caption: String
    /// How many users like it; always equals its number of `user-likes` documents.
    public var likes: Int
    /// When the store received it.
    public var timestamp: Date
    /// The tweet this one replies to, if it is a reply.
    public var replyToId: String?
    /// Its mentions, hashtags and URLs, found by Twitter's rules when it was posted.
    public var entities: TweetEntities?
    /// The author, joined by the service (not stored in the tweet document).
    public var user: User?
    /// Whether the signed-in user likes it (not stored; `nil` when nobody is signed in).
    public var didLike: Bool?

    public init(
        id: String, uid: String, caption: String, likes: Int = 0, timestamp: Date, replyToId: String? = nil,
        entities: TweetEntities? = nil, user: User? = nil, didLike: Bool? = nil
    ) {
        self.id = id
        self.uid = uid
        self.caption = caption
        self.likes = likes
        self.timestamp = timestamp
        self.replyToId = replyToId
        self.entities = entities
        self.user = user
        self.didLike = didLike
    }

    /// Whether the tweet is a reply.
    public var isReply: Bool { replyToId != nil }

    private enum CodingKeys: String, CodingKey {
        case id, uid, caption, likes, timestamp, replyToId, entities, user, didLike
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(uid, forKey: .uid)
        try container.encode(caption, forKey: .caption)
        try container.encode(likes, forKey: .likes)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(replyToId, forKey: .replyToId)
        try container.encode(entities ?? TweetEntities(), forKey: .entities)
        try container.encode(user, forKey: .user)
        try container.encodeIfPresent(didLike, forKey: .didLike)
    }
}

/// The stored fields of `tweets/{id}`: what the store indexes and what a tweet row needs.
struct TweetRecord: Codable, Equatable {
    var id: String
    var uid: String
    var caption: String
    var likes: Int
    var timestamp: Date
    var replyToId: String?
    /// Stored at post time; absent from tweets written before entities were kept.
    var entities: TweetEntities?

    init(
        id: String, uid: String, caption: String, likes: Int, timestamp: Date, replyToId: String?,
        entities: TweetEntities? = nil
    ) {
        self.id = id
        self.uid = uid
        self.caption = caption
        self.likes = likes
        self.timestamp = timestamp
        self.replyToId = replyToId
        self.entities = entities
    }

    init(_ tweet: Tweet) {
        self.init(
            id: tweet.id, uid: tweet.uid, caption: tweet.caption, likes: tweet.likes, timestamp: tweet.timestamp,
            replyToId: tweet.replyToId, entities: tweet.entities)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(uid, forKey: .uid)
        try container.encode(caption, forKey: .caption)
        try container.encode(likes, forKey: .likes)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(replyToId, forKey: .replyToId)  // null, so "replyToId == null" finds non-replies
        try container.encodeIfPresent(entities, forKey: .entities)
    }

    /// The stored fields, built directly (the bulk seed writes a million of them).
    var fields: JSONObject {
        var fields: JSONObject = [
            "uid": .string(uid), "caption": .string(caption), "likes": .integer(Int64(likes)),
            "timestamp": .string(Timestamp.string(from: timestamp)),
            "replyToId": replyToId.map { .string($0) } ?? .null,
        ]
        if let entities {
            fields["entities"] = .object([
                "mentions": .array(entities.mentions.map { .string($0) }),
                "hashtags": .array(entities.hashtags.map { .string($0) }),
                "urls": .array(entities.urls.map { .string($0) }),
            ])
        }
        return fields
    }

    var tweet: Tweet {
        Tweet(
            id: id, uid: uid, caption: caption, likes: likes, timestamp: timestamp, replyToId: replyToId,
            entities: entities)
    }
}
