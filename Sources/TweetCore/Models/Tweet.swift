import FoundationEssentials
import TweetStore
import TwitterText

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
    /// How many replies it has, retweets and quotes: kept by the transactions that add and remove them.
    public var replyCount: Int
    public var retweets: Int
    public var quotes: Int
    /// The tweet this one quotes, if it is a quote.
    public var quoteId: String?
    /// The author, joined by the service (not stored in the tweet document).
    public var user: User?
    /// Whether the signed-in user likes it (not stored; `nil` when nobody is signed in).
    public var didLike: Bool?
    /// Whether the signed-in user has retweeted it (not stored; `nil` when nobody is signed in).
    public var didRetweet: Bool?
    /// The tweet it replies to, with its author's username, joined by the service.
    public var replyTo: ReplyTarget?
    /// The quoted tweet, joined by the service.
    public var quoted: Quoted?
    /// In a timeline, who retweeted it and when (the row's place in time); `nil` for the tweet itself.
    public var retweetedBy: User?
    public var retweetedAt: Date?
    /// In a timeline, the retweet's document ID, which a page after this row starts from.
    public var retweetID: String?
    /// In a thread, how deep a reply is below the tweet shown (1 for a direct reply).
    public var depth: Int?
    /// Where an imported tweet came from (a Twitter archive); `nil` for one posted here.
    public var source: TweetSource?
    /// Its photos, at most four; `nil` for none.
    public var images: [TweetImage]?

    /// The tweet a reply answers: its ID, and its author's username unless it was deleted.
    public struct ReplyTarget: Codable, Equatable, Sendable {
        public var id: String
        public var username: String?
        public var deleted: Bool

        public init(id: String, username: String?, deleted: Bool = false) {
            self.id = id
            self.username = username
            self.deleted = deleted
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(username, forKey: .username)
            if deleted { try container.encode(true, forKey: .deleted) }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            username = try container.decodeIfPresent(String.self, forKey: .username)
            deleted = try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
        }

        private enum CodingKeys: String, CodingKey { case id, username, deleted }
    }

    /// A quoted tweet as shown under the quote: the tweet, that it was deleted, or that the viewer
    /// may not see it (its author is protected, or a block keeps them apart).
    public indirect enum Quoted: Codable, Equatable, Sendable {
        case tweet(Tweet)
        case deleted(id: String)
        case unavailable(id: String)

        public var id: String {
            switch self {
            case .tweet(let tweet): tweet.id
            case .deleted(let id), .unavailable(let id): id
            }
        }

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .tweet(let tweet): try tweet.encode(to: encoder)
            case .deleted(let id):
                var container = encoder.container(keyedBy: DeletedKeys.self)
                try container.encode(id, forKey: .id)
                try container.encode(true, forKey: .deleted)
            case .unavailable(let id):
                var container = encoder.container(keyedBy: DeletedKeys.self)
                try container.encode(id, forKey: .id)
                try container.encode(true, forKey: .unavailable)
            }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: DeletedKeys.self)
            if try container.decodeIfPresent(Bool.self, forKey: .deleted) == true {
                self = .deleted(id: try container.decode(String.self, forKey: .id))
            } else if try container.decodeIfPresent(Bool.self, forKey: .unavailable) == true {
                self = .unavailable(id: try container.decode(String.self, forKey: .id))
            } else {
                self = .tweet(try Tweet(from: decoder))
            }
        }

        private enum DeletedKeys: String, CodingKey { case id, deleted, unavailable }
    }

    public init(
        id: String, uid: String, caption: String, likes: Int = 0, timestamp: Date, replyToId: String? = nil,
        entities: TweetEntities? = nil, user: User? = nil, didLike: Bool? = nil, replyCount: Int = 0,
        retweets: Int = 0, quotes: Int = 0, quoteId: String? = nil, source: TweetSource? = nil,
        images: [TweetImage]? = nil
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
        self.replyCount = replyCount
        self.retweets = retweets
        self.quotes = quotes
        self.quoteId = quoteId
        self.source = source
        self.images = images
    }

    /// Whether the tweet is a reply.
    public var isReply: Bool { replyToId != nil }

    /// What `--before` takes to page on after this row: the tweet's ID, or for a retweet row the
    /// retweet's (`rt_…`), which places it at the time of the retweet.
    public var cursor: String { retweetID ?? id }

    private enum CodingKeys: String, CodingKey {
        case id, uid, caption, likes, timestamp, replyToId, entities, user, didLike, replyCount, retweets, quotes
        case quoteId, didRetweet, replyTo, quoted, retweetedBy, retweetedAt, retweetID = "retweetId", depth
        case source, images
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        uid = try container.decode(String.self, forKey: .uid)
        caption = try container.decode(String.self, forKey: .caption)
        likes = try container.decode(Int.self, forKey: .likes)
        timestamp = try container.decode(Date.self, forKey: .timestamp)
        replyToId = try container.decodeIfPresent(String.self, forKey: .replyToId)
        entities = try container.decodeIfPresent(TweetEntities.self, forKey: .entities)
        user = try container.decodeIfPresent(User.self, forKey: .user)
        didLike = try container.decodeIfPresent(Bool.self, forKey: .didLike)
        replyCount = try container.decodeIfPresent(Int.self, forKey: .replyCount) ?? 0
        retweets = try container.decodeIfPresent(Int.self, forKey: .retweets) ?? 0
        quotes = try container.decodeIfPresent(Int.self, forKey: .quotes) ?? 0
        quoteId = try container.decodeIfPresent(String.self, forKey: .quoteId)
        didRetweet = try container.decodeIfPresent(Bool.self, forKey: .didRetweet)
        replyTo = try container.decodeIfPresent(ReplyTarget.self, forKey: .replyTo)
        quoted = try container.decodeIfPresent(Quoted.self, forKey: .quoted)
        retweetedBy = try container.decodeIfPresent(User.self, forKey: .retweetedBy)
        retweetedAt = try container.decodeIfPresent(Date.self, forKey: .retweetedAt)
        retweetID = try container.decodeIfPresent(String.self, forKey: .retweetID)
        depth = try container.decodeIfPresent(Int.self, forKey: .depth)
        source = try container.decodeIfPresent(TweetSource.self, forKey: .source)
        images = try container.decodeIfPresent([TweetImage].self, forKey: .images)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(uid, forKey: .uid)
        try container.encode(caption, forKey: .caption)
        try container.encode(likes, forKey: .likes)
        try container.encode(replyCount, forKey: .replyCount)
        try container.encode(retweets, forKey: .retweets)
        try container.encode(quotes, forKey: .quotes)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(replyToId, forKey: .replyToId)
        try container.encode(replyTo, forKey: .replyTo)
        try container.encode(quoted, forKey: .quoted)
        try container.encode(entities ?? TweetEntities(), forKey: .entities)
        try container.encode(user, forKey: .user)
        try container.encodeIfPresent(didLike, forKey: .didLike)
        try container.encodeIfPresent(didRetweet, forKey: .didRetweet)
        try container.encodeIfPresent(retweetedBy, forKey: .retweetedBy)
        try container.encodeIfPresent(retweetedAt, forKey: .retweetedAt)
        try container.encodeIfPresent(retweetID, forKey: .retweetID)
        try container.encodeIfPresent(depth, forKey: .depth)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encodeIfPresent(images, forKey: .images)
    }
}

/// Where an imported tweet came from: its ID in a Twitter archive, which makes importing the
/// archive again add nothing twice, and what the archive said about it.
public struct TweetSource: Codable, DocumentDecodable, Equatable, Sendable {
    /// The tweet's ID on Twitter (`id_str`).
    public var twitter: String
    /// Its likes and retweets on Twitter when the archive was made: other people's, not in this store.
    public var favorites: Int?
    public var retweets: Int?
    /// Whether it is longer than 280 weighted characters (from before a limit changed, or a note):
    /// kept whole, never cut.
    public var overLimit: Bool?
    /// The Twitter ID of the tweet it answered, when that tweet is not in this store.
    public var inReplyTo: String?

    public init(
        twitter: String, favorites: Int? = nil, retweets: Int? = nil, overLimit: Bool? = nil, inReplyTo: String? = nil
    ) {
        self.twitter = twitter
        self.favorites = favorites
        self.retweets = retweets
        self.overLimit = overLimit
        self.inReplyTo = inReplyTo
    }

    public init(reading fields: FieldReader) throws(FieldReader.Failure) {
        self.init(
            twitter: try fields.string("twitter"), favorites: try fields.optionalInt("favorites"),
            retweets: try fields.optionalInt("retweets"), overLimit: try fields.optionalBool("overLimit"),
            inReplyTo: try fields.optionalString("inReplyTo"))
    }

    /// The stored fields.
    var fields: JSONObject {
        var fields: JSONObject = ["twitter": .string(twitter)]
        if let favorites { fields["favorites"] = .integer(Int64(favorites)) }
        if let retweets { fields["retweets"] = .integer(Int64(retweets)) }
        if overLimit == true { fields["overLimit"] = .bool(true) }
        if let inReplyTo { fields["inReplyTo"] = .string(inReplyTo) }
        return fields
    }
}

/// A retweet is two documents: `retweets/rt_{time-ordered ID}` (who, what, when), which timelines
/// read in time order, and `users/{uid}/retweeted/{tweetId}` (which retweet), which keeps it to one
/// per user and tweet and answers "did I retweet this?" by key.
package enum RetweetKey {
    static let prefix = "rt_"

    /// A new retweet's document ID: its time first, so the collection sorts by time.
    package static func documentID(_ ids: IDGenerator, at time: Date) -> String { prefix + ids.next(at: time) }

    /// Whether `cursor` names a retweet (a retweet row's ``Tweet/cursor``).
    static func isRetweet(_ cursor: String) -> Bool { cursor.hasPrefix(prefix) }
}

/// The stored fields of `tweets/{id}`: what the store indexes and what a tweet row needs.
package struct TweetRecord: Codable, DocumentDecodable, Equatable {
    var id: String
    var uid: String
    var caption: String
    var likes: Int
    var timestamp: Date
    var replyToId: String?
    /// Stored at post time; absent from tweets written before entities were kept.
    var entities: TweetEntities?
    /// Counters kept by the transactions that add and remove replies, retweets and quotes; absent
    /// (0) from tweets written before they were kept.
    var replyCount: Int?
    var retweets: Int?
    var quotes: Int?
    var quoteId: String?
    /// An imported tweet's origin; a malformed one reads as none (the store is not trusted).
    var source: TweetSource?
    /// Its photos; a malformed list reads as none, as `source` does.
    var images: [TweetImage]?

    package init(
        id: String, uid: String, caption: String, likes: Int, timestamp: Date, replyToId: String?,
        entities: TweetEntities? = nil, replyCount: Int? = 0, retweets: Int? = 0, quotes: Int? = 0,
        quoteId: String? = nil, source: TweetSource? = nil, images: [TweetImage]? = nil
    ) {
        self.id = id
        self.uid = uid
        self.caption = caption
        self.likes = likes
        self.timestamp = timestamp
        self.replyToId = replyToId
        self.entities = entities
        self.replyCount = replyCount
        self.retweets = retweets
        self.quotes = quotes
        self.quoteId = quoteId
        self.source = source
        self.images = images
    }

    init(_ tweet: Tweet) {
        self.init(
            id: tweet.id, uid: tweet.uid, caption: tweet.caption, likes: tweet.likes, timestamp: tweet.timestamp,
            replyToId: tweet.replyToId, entities: tweet.entities, replyCount: tweet.replyCount,
            retweets: tweet.retweets, quotes: tweet.quotes, quoteId: tweet.quoteId, source: tweet.source,
            images: tweet.images)
    }

    private enum CodingKeys: String, CodingKey {
        case id, uid, caption, likes, timestamp, replyToId, entities, replyCount, retweets, quotes, quoteId, source
        case images
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        uid = try container.decode(String.self, forKey: .uid)
        caption = try container.decode(String.self, forKey: .caption)
        // As the FieldReader path: the store is not trusted, and a count below zero reads as 0.
        likes = max(0, try container.decode(Int.self, forKey: .likes))
        timestamp = try container.decode(Date.self, forKey: .timestamp)
        replyToId = try container.decodeIfPresent(String.self, forKey: .replyToId)
        entities = try container.decodeIfPresent(TweetEntities.self, forKey: .entities)
        replyCount = try container.decodeIfPresent(Int.self, forKey: .replyCount).map { max(0, $0) }
        retweets = try container.decodeIfPresent(Int.self, forKey: .retweets).map { max(0, $0) }
        quotes = try container.decodeIfPresent(Int.self, forKey: .quotes).map { max(0, $0) }
        quoteId = try container.decodeIfPresent(String.self, forKey: .quoteId)
        // A damaged `source` loses only what Twitter said about the tweet, not the tweet itself.
        source = try? container.decodeIfPresent(TweetSource.self, forKey: .source)
        // As `source`, and each image checked as the FieldReader path checks it.
        let decoded = try? container.decodeIfPresent([TweetImage].self, forKey: .images)
        images = decoded.flatMap { TweetImage.list(.array($0.map { .object($0.fields) })) }
    }

    package init(reading fields: FieldReader) throws(FieldReader.Failure) {
        id = try fields.string("id")
        uid = try fields.string("uid")
        caption = try fields.string("caption")
        // The store is not trusted: a count below zero (a damaged or hostile document) reads as 0,
        // so it is never shown, and the next like counts from there.
        likes = max(0, try fields.int("likes"))
        timestamp = try fields.date("timestamp")
        replyToId = try fields.optionalString("replyToId")
        entities = try fields.optional(TweetEntities.self, "entities")
        replyCount = try fields.optionalInt("replyCount").map { max(0, $0) }
        retweets = try fields.optionalInt("retweets").map { max(0, $0) }
        quotes = try fields.optionalInt("quotes").map { max(0, $0) }
        quoteId = try fields.optionalString("quoteId")
        // As the Decodable path did: a damaged `source` loses only what Twitter said, not the tweet.
        source = try? fields.optional(TweetSource.self, "source")
        images = TweetImage.list(fields.fields["images"])
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(uid, forKey: .uid)
        try container.encode(caption, forKey: .caption)
        try container.encode(likes, forKey: .likes)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(replyToId, forKey: .replyToId)  // null, so "replyToId == null" finds non-replies
        try container.encodeIfPresent(entities, forKey: .entities)
        try container.encodeIfPresent(replyCount, forKey: .replyCount)
        try container.encodeIfPresent(retweets, forKey: .retweets)
        try container.encodeIfPresent(quotes, forKey: .quotes)
        try container.encodeIfPresent(quoteId, forKey: .quoteId)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encodeIfPresent(images, forKey: .images)
    }

    /// The stored fields, built directly (the bulk seed writes a million of them).
    package var fields: JSONObject {
        var fields: JSONObject = [
            "uid": .string(uid), "caption": .string(caption), "likes": .integer(Int64(likes)),
            "timestamp": .string(Timestamp.string(from: timestamp)),
            "replyToId": replyToId.map { .string($0) } ?? .null,
        ]
        for (key, value) in [("replyCount", replyCount), ("retweets", retweets), ("quotes", quotes)] {
            if let value { fields[key] = .integer(Int64(value)) }
        }
        if let quoteId { fields["quoteId"] = .string(quoteId) }
        if let source { fields["source"] = .object(source.fields) }
        if let images { fields["images"] = .array(images.map { .object($0.fields) }) }
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
            entities: entities, replyCount: replyCount ?? 0, retweets: retweets ?? 0, quotes: quotes ?? 0,
            quoteId: quoteId, source: source, images: images)
    }
}
