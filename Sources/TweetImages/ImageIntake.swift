import CImages
import FoundationEssentials
import TweetSystem

/// The image formats a tweet may carry.
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case png, jpeg, gif, webp

    /// The format `bytes` start as, whatever the file is called; `nil` for none of these.
    public static func sniff(_ bytes: ArraySlice<UInt8>) -> ImageFormat? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count
                && bytes.dropFirst(offset).prefix(prefix.count).elementsEqual(prefix)
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        return nil
    }

    /// Its IANA media type.
    public var mediaType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        }
    }

    /// How a person calls it.
    public var name: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .webp: "WebP"
        }
    }
}

/// An image as tweetcli keeps it: checked whole, and without the metadata it came with.
public struct CheckedImage: Sendable, Equatable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// The bytes kept: the file's, less its metadata (location, camera, comments).
    public var bytes: [UInt8]
    /// The SHA-256 of ``bytes`` in hex: the image's content address.
    public var sha256: String
    /// A PNG of at most ``ImageIntake/thumbnailSide`` pixels a side, for listings, and its
    /// SHA-256; `nil` for a CMYK JPEG, which decodes to no colours a thumbnail can take.
    public var thumbnail: [UInt8]?
    public var thumbnailSHA256: String?
}

/// Why an image is refused, in one sentence that names the file.
public enum ImageError: Error, Equatable, Sendable, LocalizedError {
    case notAnImage(file: String)
    case tooLarge(file: String, bytes: Int)
    case tooManyPixels(file: String, width: Int, height: Int, maximum: Int)
    case tooNarrow(file: String, width: Int, height: Int)
    case damaged(file: String, format: ImageFormat, reason: String)
    case animatedWebP(file: String)
    case libraryMissing(reason: String)

    public var errorDescription: String? {
        switch self {
        case .notAnImage(let file):
            "\(file) is not a PNG, JPEG, GIF or WebP image"
        case .tooLarge(let file, let bytes):
            "\(file) is \(ImageIntake.megabytes(bytes)); an image may have at most \(ImageIntake.megabytes(ImageIntake.maximumBytes))"
        case .tooManyPixels(let file, let width, let height, let maximum):
            "\(file) has too many pixels (\(width)×\(height)); an image of its kind may have at most \(ImageIntake.megapixels(maximum))"
        case .tooNarrow(let file, let width, let height):
            "\(file) is \(width)×\(height) pixels: an image's sides may differ at most \(ImageIntake.maximumAspect) times"
        case .damaged(let file, let format, let reason):
            "\(file) is a damaged \(format.name) image (\(reason))"
        case .animatedWebP(let file):
            "\(file) is an animated WebP, which tweetcli does not take yet; a GIF's first frame is kept"
        case .libraryMissing(let reason):
            "images cannot be checked here: \(reason)"
        }
    }
}

/// Checks an image a person gives before it is kept: that it is one of the four formats,
/// whatever its name says; within the size and pixel limits (a decompression bomb is refused from
/// its header, before anything is decoded); and whole, decoded to its last byte. What is kept
/// leaves the metadata out, as Twitter does: a JPEG is copied without its markers (EXIF with its
/// GPS position, camera serials, comments) losslessly, a PNG is written again from its pixels,
/// a WebP loses its EXIF and XMP chunks, and a GIF is kept as its first frame.
public enum ImageIntake {
    /// The most bytes an image file may have, as on Twitter.
    public static let maximumBytes = 5 * 1024 * 1024
    /// The most pixels of a JPEG or WebP, which are checked by a decode scaled down (a little memory
    /// whatever their size); a PNG or GIF is decoded whole, so it may have fewer.
    public static let maximumScaledPixels = 50_000_000
    public static let maximumWholePixels = 16_777_216
    /// The longest side, and how many times one side may be the other's.
    public static let maximumSide = 16_384
    public static let maximumAspect = 20
    /// The longest side of a thumbnail: about twelve rows of sixels, and many more of mosaic.
    public static let thumbnailSide = 320

    /// Checks `bytes`, read from a file called `file`.
    /// - Throws: ``ImageError`` naming `file`.
    public static func check(_ bytes: [UInt8], file: String) throws(ImageError) -> CheckedImage {
        guard bytes.count <= maximumBytes else { throw .tooLarge(file: file, bytes: bytes.count) }
        guard let format = ImageFormat.sniff(bytes[...]) else { throw .notAnImage(file: file) }
        // What is kept must check again to itself, size and thumbnail too, so that a backup of it
        // is taken back as it is: everything comes from a pass over the bytes kept, not over the
        // file's. An odd file takes a second pass to settle (a JPEG's stray bytes, a GIF's colour
        // table); one that has not settled after that is refused.
        // A JPEG's first pass only copies it without its markers (the lossless transform): the
        // second decodes that copy, so a photo is decoded once.
        let first =
            format == .jpeg
            ? try JPEGIntake(bytes: bytes, file: file, decodes: false).check()
            : try self.intake(format, bytes, file: file)
        var intake = try self.intake(format, first.kept, file: file)
        if intake.kept != first.kept {
            let third = try self.intake(format, intake.kept, file: file)
            guard third.kept == intake.kept else {
                throw .damaged(file: file, format: format, reason: "it does not settle into a form that can be kept")
            }
            intake = third
        }
        let thumbnail = try intake.preview.map { preview throws(ImageError) in
            try preview.fitted(within: thumbnailSide).png()
        }
        return CheckedImage(
            format: format, width: intake.width, height: intake.height, bytes: intake.kept,
            sha256: try sha256(intake.kept), thumbnail: thumbnail, thumbnailSHA256: try thumbnail.map(sha256))
    }

    /// One pass of `format`'s check over `bytes`.
    private static func intake(_ format: ImageFormat, _ bytes: [UInt8], file: String) throws(ImageError) -> Intake {
        switch format {
        case .jpeg: try JPEGIntake(bytes: bytes, file: file).check()
        case .png: try PNGIntake(bytes: bytes, file: file).check()
        case .webp: try WebPIntake(bytes: bytes, file: file).check()
        case .gif: try GIFIntake(bytes: bytes, file: file).check()
        }
    }

    /// The SHA-256 of `bytes` in hex.
    public static func sha256(_ bytes: [UInt8]) throws(ImageError) -> String {
        guard let hash = try loaded(LibCrypto.shared).sha256Hex(bytes) else {
            throw .libraryMissing(reason: "libcrypto could not compute a SHA-256")
        }
        return hash
    }

    /// Refuses a size before anything is decoded.
    static func checkSize(_ width: Int, _ height: Int, format: ImageFormat, file: String) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw .damaged(file: file, format: format, reason: "it says it is \(width)×\(height) pixels")
        }
        let maximum = format == .jpeg || format == .webp ? maximumScaledPixels : maximumWholePixels
        guard width <= maximumSide, height <= maximumSide, width * height <= maximum else {
            throw .tooManyPixels(file: file, width: width, height: height, maximum: maximum)
        }
        guard max(width, height) <= maximumAspect * min(width, height) else {
            throw .tooNarrow(file: file, width: width, height: height)
        }
    }

    static func loaded<Library>(_ library: Result<Library, DynamicLibrary.Missing>) throws(ImageError) -> Library {
        switch library {
        case .success(let library): library
        case .failure(let missing): throw .libraryMissing(reason: missing.reason)
        }
    }

    static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + 512 * 1024) / (1024 * 1024)
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    static func megapixels(_ pixels: Int) -> String {
        let tenths = (pixels + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) megapixels"
    }
}
