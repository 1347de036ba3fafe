import FoundationEssentials
import TweetImages
import TweetStore
import TwitterText

/// A photo on a tweet (issue 44): its bytes are a blob named by their SHA-256, and the tweet
/// keeps what a listing shows without reading them. Stored in the tweet's `images` array.
public struct TweetImage: Codable, Equatable, Sendable {
    /// The blob's address: the SHA-256 of the bytes kept.
    public var sha256: String
    /// The media type: `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    public var type: String
    public var width: Int
    public var height: Int
    /// The bytes kept.
    public var bytes: Int
    /// What the picture shows, for those who cannot see it.
    public var alt: String?
    /// The address of its thumbnail, a small PNG that listings show instead of decoding the photo.
    public var thumbnail: String?

    /// The most photos on one tweet, and the most characters of an alt text, as on Twitter.
    public static let maximumPerTweet = 4
    public static let maximumAltCharacters = 1000

    public init(_ image: CheckedImage, alt: String?) {
        sha256 = image.sha256
        type = image.format.mediaType
        width = image.width
        height = image.height
        bytes = image.bytes.count
        self.alt = alt
        thumbnail = image.thumbnailSHA256
    }

    /// An alt text as stored: trimmed, `nil` when empty.
    /// - Throws: ``TweetError/altTextTooLong(_:)``, or ``TextError`` for a control character.
    static func checkedAlt(_ alt: String?) throws -> String? {
        guard let alt = alt?.trimmed(), !alt.isEmpty else { return nil }
        guard alt.count <= maximumAltCharacters else { throw TweetError.altTextTooLong(alt.count) }
        try TextRules.check(alt, field: "alt text", multiline: false, maximumBytes: 4 * maximumAltCharacters)
        return alt
    }

    package var fields: JSONObject {
        var fields: JSONObject = [
            "sha256": .string(sha256), "type": .string(type), "width": .integer(Int64(width)),
            "height": .integer(Int64(height)), "bytes": .integer(Int64(bytes)),
        ]
        if let alt { fields["alt"] = .string(alt) }
        if let thumbnail { fields["thumbnail"] = .string(thumbnail) }
        return fields
    }

    /// The blobs it names: the photo, and its thumbnail.
    var blobs: [String] { [sha256] + (thumbnail.map { [$0] } ?? []) }

    /// The media types a photo may have.
    static let types = Set(ImageFormat.allCases.map(\.mediaType))

    /// An image as stored, if it is one tweetcli could have written: nothing in the store is trusted.
    init?(fields: JSONObject) {
        guard let sha256 = fields["sha256"]?.stringValue, BlobAddress.isValid(sha256),
            let type = fields["type"]?.stringValue, Self.types.contains(type),
            let width = fields["width"]?.integerValue, (1...Int64(ImageIntake.maximumSide)).contains(width),
            let height = fields["height"]?.integerValue, (1...Int64(ImageIntake.maximumSide)).contains(height),
            let bytes = fields["bytes"]?.integerValue, (1...Int64(ImageIntake.maximumBytes)).contains(bytes)
        else { return nil }
        let alt = fields["alt"]?.stringValue
        if let alt, (try? Self.checkedAlt(alt)) != alt { return nil }  // A refusal is the answer: not one.
        let thumbnail = fields["thumbnail"]?.stringValue
        if let thumbnail, !BlobAddress.isValid(thumbnail) { return nil }
        guard fields.keys.allSatisfy(["sha256", "type", "width", "height", "bytes", "alt", "thumbnail"].contains),
            fields["alt"].map({ $0.stringValue != nil }) ?? true,
            fields["thumbnail"].map({ $0.stringValue != nil }) ?? true
        else { return nil }
        (self.sha256, self.type, self.width, self.height, self.bytes) = (
            sha256, type, Int(width), Int(height), Int(bytes)
        )
        self.alt = alt
        self.thumbnail = thumbnail
    }

    /// The images of a tweet's `images` field: all of them, or `nil` when any is not one.
    static func list(_ value: JSONValue?) -> [TweetImage]? {
        guard case .array(let items)? = value, (1...maximumPerTweet).contains(items.count) else { return nil }
        var images: [TweetImage] = []
        for item in items {
            guard case .object(let fields) = item, let image = TweetImage(fields: fields) else { return nil }
            images.append(image)
        }
        return images
    }
}

/// A photo to post: checked by ``ImageIntake``, with its alt text.
public struct PhotoUpload: Sendable {
    public var image: CheckedImage
    public var alt: String?

    public init(image: CheckedImage, alt: String?) {
        self.image = image
        self.alt = alt
    }
}
