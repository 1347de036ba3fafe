import Foundation
import Testing
import TweetCore
import TweetSystem
import TweetTestSupport

@testable import TweetImages

/// An image a person gives, checked as tweetcli keeps it: by its bytes, not its name; whole; within
/// its limits; and without the metadata it came with.
struct ImageIntakeTests {
    static func made(_ format: ImageFormat, _ width: Int = 64, _ height: Int = 48) throws -> [UInt8] {
        switch format {
        case .png: try TestImages.png(width, height, alpha: true)
        case .jpeg: try TestImages.jpeg(width, height)
        case .gif: try TestImages.gif(width, height)
        case .webp: try TestImages.webp(width, height)
        }
    }

    /// Every format is taken with its size, and what is kept is an image of the same format and
    /// size again, whose hash is its content address: checking it again keeps it byte for byte.
    @Test(arguments: ImageFormat.allCases)
    func everyFormatRoundTrips(format: ImageFormat) throws {
        let checked = try ImageIntake.check(try Self.made(format), file: "photo")
        #expect(checked.format == format)
        #expect(checked.width == 64 && checked.height == 48)
        #expect(ImageFormat.sniff(checked.bytes[...]) == format)
        #expect(checked.sha256.count == 64 && checked.sha256.allSatisfy { $0.isHexDigit })
        let again = try ImageIntake.check(checked.bytes, file: "kept")
        #expect(again == checked)
    }

    /// Every format gets a thumbnail, a PNG of at most 320 pixels a side in the photo's
    /// proportions (a small photo keeps its size), kept as it was made.
    @Test(arguments: ImageFormat.allCases)
    func everyFormatGetsAThumbnailInItsProportions(format: ImageFormat) throws {
        let large = try ImageIntake.check(try Self.made(format, 800, 500), file: "large")
        let thumbnail = try ImageIntake.check(try #require(large.thumbnail), file: "thumbnail")
        #expect(thumbnail.format == .png && thumbnail.width == 320 && thumbnail.height == 200)
        #expect(large.thumbnailSHA256 == thumbnail.sha256)
        #expect(thumbnail.bytes == large.thumbnail, "a thumbnail is kept as it was made")
        let small = try ImageIntake.check(try Self.made(format, 64, 48), file: "small")
        let smallThumbnail = try ImageIntake.check(try #require(small.thumbnail), file: "thumbnail")
        #expect(smallThumbnail.width == 64 && smallThumbnail.height == 48)
    }

    /// A thumbnail's pixel is the average of those it covers.
    @Test func aThumbnailAveragesThePixelsItCovers() throws {
        let red = Pixels(
            width: 4, height: 2, channels: 3, bytes: (0..<24).map { $0 % 3 == 0 ? 200 : 10 })
        #expect(red.fitted(within: 2) == Pixels(width: 2, height: 1, channels: 3, bytes: [200, 10, 10, 200, 10, 10]))
        let stripes = Pixels(width: 2, height: 1, channels: 3, bytes: [0, 0, 0, 255, 255, 255])
        #expect(stripes.fitted(within: 1).bytes == [128, 128, 128])
        #expect(Pixels.fitted(width: 1000, height: 10, within: 320) == (320, 3))
        #expect(Pixels.fitted(width: 10, height: 1000, within: 320) == (3, 320))
        #expect(Pixels.fitted(width: 100, height: 50, within: 320) == (100, 50))
    }

    /// The format comes from the bytes: a JPEG called `.png` is a JPEG, and a text file called
    /// `.jpg` is not an image.
    @Test func theFormatIsTheBytesNotTheName() throws {
        #expect(try ImageIntake.check(try Self.made(.jpeg), file: "photo.png").format == .jpeg)
        #expect(throws: ImageError.notAnImage(file: "notes.jpg")) {
            try ImageIntake.check(Array("just some text, not a picture\n".utf8), file: "notes.jpg")
        }
        #expect(throws: ImageError.notAnImage(file: "empty.png")) { try ImageIntake.check([], file: "empty.png") }
    }

    /// A phone's JPEG carries its GPS position in EXIF: what is kept has no EXIF at all, and still
    /// shows the same picture (the coefficients are copied, so the kept file is no larger).
    @Test func aJPEGsGPSPositionIsNotKept() throws {
        let plain = try TestImages.jpeg(64, 48)
        let located = TestImages.withGPS(plain)
        #expect(located.contains(bytes: Array("GPS-SECRET-PLACE".utf8)))
        let checked = try ImageIntake.check(located, file: "phone.jpg")
        let kept = (
            gps: checked.bytes.contains(bytes: Array("GPS-SECRET-PLACE".utf8)),
            exif: checked.bytes.contains(bytes: Array("Exif".utf8)), app1: checked.bytes.contains(bytes: [0xFF, 0xE1])
        )
        #expect(!kept.gps && !kept.exif && !kept.app1, "\(kept)")
        #expect(checked.width == 64 && checked.height == 48)
        #expect(checked.bytes.count <= located.count)
        // The same picture as the file without the EXIF.
        #expect(checked.sha256 == (try ImageIntake.check(plain, file: "plain.jpg")).sha256)
    }

    /// A PNG's text chunks, a WebP's EXIF and a GIF's comment are left behind too.
    @Test func otherFormatsMetadataIsNotKept() throws {
        let secret = Array("SECRET-PLACE".utf8)
        let png = try TestImages.withText(try TestImages.png(32, 32), "SECRET-PLACE")
        let webp = try TestImages.withEXIF(try TestImages.webp(32, 32), "SECRET-PLACE")
        let gif = try TestImages.gif(32, 32, comment: "SECRET-PLACE")
        for (name, bytes) in [("png", png), ("webp", webp), ("gif", gif)] {
            #expect(bytes.contains(bytes: secret), "\(name) was made with it")
            let checked = try ImageIntake.check(bytes, file: name)
            let kept = checked.bytes.contains(bytes: secret)
            #expect(!kept, "\(name) kept it")
            #expect(checked.width == 32 && checked.height == 32)
        }
    }

    /// An animated GIF is kept as its first frame, whose pixels are the ones it had; an
    /// interlaced one comes out in the right row order.
    @Test func aGIFIsKeptAsItsFirstFrame() throws {
        let animated = try TestImages.gif(40, 30, frames: 5)
        let checked = try ImageIntake.check(animated, file: "anim.gif")
        #expect(checked.bytes.count < animated.count)
        #expect(checked == (try ImageIntake.check(try TestImages.gif(40, 30, frames: 1), file: "one.gif")))
        let interlaced = try ImageIntake.check(try TestImages.gif(40, 30, interlaced: true), file: "i.gif")
        #expect(interlaced.sha256 == checked.sha256, "the same rows, written plainly")
    }

    /// A file cut short of its picture is damaged, in every format, and the sentence names it and
    /// the format.
    @Test(arguments: ImageFormat.allCases)
    func aCutFileIsDamaged(format: ImageFormat) throws {
        let whole = try Self.made(format, 200, 150)
        // Half, and the end of the picture's data (a PNG's last 12 bytes are its IEND chunk,
        // which says nothing about the picture: without it the image is whole).
        for keep in [whole.count / 2, whole.count - 20] {
            do {
                _ = try ImageIntake.check(Array(whole.prefix(keep)), file: "cut")
                Issue.record("a \(format.name) cut to \(keep) of \(whole.count) bytes was taken")
            } catch {
                guard case .damaged(let file, let reported, _) = error else {
                    Issue.record("\(error.sentence)")
                    continue
                }
                #expect(file == "cut" && reported == format)
                #expect(error.sentence.hasPrefix("cut is a damaged \(format.name) image ("))
            }
        }
    }

    /// Sizes are refused from the header, before any pixel is decoded: a tiny PNG that says it
    /// is 100000×100000 (a decompression bomb), one of 1×100000, one of 1×1000 (too narrow), a
    /// GIF whose screen is 65535×65535; and a file over 5 MB whatever it holds.
    @Test func bombsAndOddShapesAreRefusedFromTheirHeaders() throws {
        let png = try TestImages.png(8, 8)
        #expect(throws: ImageError.tooManyPixels(file: "bomb", width: 100_000, height: 100_000, maximum: 16_777_216)) {
            try ImageIntake.check(try TestImages.withSize(png, width: 100_000, height: 100_000), file: "bomb")
        }
        #expect(throws: ImageError.tooManyPixels(file: "line", width: 1, height: 100_000, maximum: 16_777_216)) {
            try ImageIntake.check(try TestImages.withSize(png, width: 1, height: 100_000), file: "line")
        }
        #expect(throws: ImageError.tooNarrow(file: "strip", width: 1, height: 1000)) {
            try ImageIntake.check(try TestImages.withSize(png, width: 1, height: 1000), file: "strip")
        }
        var gif = try TestImages.gif(8, 8)
        gif.replaceSubrange(6..<10, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: ImageError.tooManyPixels(file: "screen", width: 65535, height: 65535, maximum: 16_777_216)) {
            try ImageIntake.check(gif, file: "screen")
        }
        let huge = try Self.made(.jpeg) + [UInt8](repeating: 0, count: ImageIntake.maximumBytes)
        #expect(throws: ImageError.tooLarge(file: "big.jpg", bytes: huge.count)) {
            try ImageIntake.check(huge, file: "big.jpg")
        }
        #expect(
            ImageError.tooLarge(file: "big.jpg", bytes: huge.count).sentence
                == "big.jpg is 5.0 MB; an image may have at most 5.0 MB")
    }

    /// A JPEG's header that claims more pixels than the scaled decode takes is refused by size,
    /// and the sentence says the limit.
    @Test func aJPEGOfTooManyPixelsIsRefused() throws {
        var jpeg = try TestImages.jpeg(16, 16)
        // The SOF0 segment: FF C0, length, precision, then height and width.
        let sof = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0x3F, 0xFF, 0x3F, 0xFF])
        #expect(throws: ImageError.tooManyPixels(file: "j", width: 16383, height: 16383, maximum: 50_000_000)) {
            try ImageIntake.check(jpeg, file: "j")
        }
        #expect(
            ImageError.tooManyPixels(file: "j", width: 16383, height: 16383, maximum: 50_000_000).sentence
                == "j has too many pixels (16383×16383); an image of its kind may have at most 50.0 megapixels")
    }

    /// Mutated images (bytes flipped, cut, repeated) never crash the check: each is refused with
    /// an ``ImageError`` or taken, and what is taken checks again to the same image (a longer run
    /// by hand found JPEGs and GIFs whose kept bytes checked again to others, before the check
    /// took everything from a pass over the bytes it keeps): 20,000 of each format from that
    /// run's seed in CI (about 20 s). TWEETCLI_FUZZ_ITERATIONS and TWEETCLI_FUZZ_SEED run more, or
    /// others, by hand.
    @Test(arguments: ImageFormat.allCases)
    func mutatedImagesAreRefusedOrTakenNeverCrash(format: ImageFormat) throws {
        let original = try Self.made(format, 48, 40)
        let environment = ProcessInfo.processInfo.environment
        let iterations = environment["TWEETCLI_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 20_000
        let seed = environment["TWEETCLI_FUZZ_SEED"].flatMap { UInt64($0) } ?? 20_261_206
        var random = SplitMix64(seed: seed ^ UInt64(format.rawValue.utf8.count))
        var refused = 0
        for _ in 0..<iterations {
            var bytes = original
            switch random.next() % 4 {
            case 0:
                for _ in 0..<(1 + random.next() % 8) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            case 1:
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 2:
                let at = Int(random.next() % UInt64(bytes.count))
                let length = Int(random.next() % 64)
                bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + length)], at: at)
            default:
                let at = 8 + Int(random.next() % UInt64(min(64, bytes.count - 8)))
                bytes[at] = ~bytes[at]
            }
            do {
                let taken = try ImageIntake.check(bytes, file: "fuzz")
                #expect(try ImageIntake.check(taken.bytes, file: "again") == taken)
            } catch {
                refused += 1
                #expect(!error.sentence.isEmpty && !error.sentence.contains("\n"))
            }
        }
        #expect(refused > 0, "some mutation was refused")
    }
}
