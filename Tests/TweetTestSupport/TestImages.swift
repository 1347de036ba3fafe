import CImages
import TweetImages
import TweetSystem

/// Images made for the tests by the formats' own encoders (loaded as tweetcli loads its
/// decoders), with metadata planted where cameras and editors put it.
package enum TestImages {
    /// A gradient, so that every format has something to compress.
    package static func pixels(_ width: Int, _ height: Int, channels: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * channels
                pixels[base] = UInt8(x * 255 / max(1, width - 1))
                pixels[base + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[base + 2] = UInt8((x + y) % 256)
                if channels == 4 { pixels[base + 3] = UInt8(128 + x % 128) }
            }
        }
        return pixels
    }

    package static func png(_ width: Int, _ height: Int, alpha: Bool = false) throws -> [UInt8] {
        try png(pixels: pixels(width, height, channels: alpha ? 4 : 3), width, height, alpha: alpha)
    }

    /// A PNG of the RGB (or RGBA) `pixels` given, written as tweetcli writes a thumbnail.
    package static func png(pixels source: [UInt8], _ width: Int, _ height: Int, alpha: Bool = false) throws -> [UInt8]
    {
        try Pixels(width: width, height: height, channels: alpha ? 4 : 3, bytes: source).png()
    }

    package static func jpeg(_ width: Int, _ height: Int) throws -> [UInt8] {
        let library = try DynamicLibrary("libturbojpeg.so.0", package: "libturbojpeg0")
        let initCompress = try library.function("tjInitCompress", as: (@convention(c) () -> tjhandle?).self)
        let compress = try library.function(
            "tjCompress2",
            as: (@convention(c) (
                tjhandle?, UnsafePointer<UInt8>?, Int32, Int32, Int32, Int32,
                UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, UnsafeMutablePointer<UInt>?, Int32, Int32, Int32
            ) -> Int32).self)
        let turbo = try TurboJPEG.shared.get()
        guard let handle = initCompress() else { throw Failure("no JPEG compressor") }
        defer { _ = turbo.destroy(handle) }
        let source = pixels(width, height, channels: 3)
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let done = compress(
            handle, source, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &output, &size,
            Int32(TJSAMP_420.rawValue), 85, 0)
        defer { turbo.free(output) }
        guard done == 0, let output else { throw Failure("libturbojpeg could not write the test image") }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    package static func webp(_ width: Int, _ height: Int) throws -> [UInt8] {
        let library = try DynamicLibrary("libwebp.so.7", package: "libwebp7")
        let encode = try library.function(
            "WebPEncodeRGB",
            as: (@convention(c) (
                UnsafePointer<UInt8>?, Int32, Int32, Int32, Float, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
            ) -> Int).self)
        let webp = try LibWebP.shared.get()
        let source = pixels(width, height, channels: 3)
        var output: UnsafeMutablePointer<UInt8>?
        let size = encode(source, Int32(width), Int32(height), Int32(width * 3), 80, &output)
        defer { webp.free(output) }
        guard size > 0, let output else { throw Failure("libwebp could not write the test image") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// A GIF of `frames` frames (each a different shade), with a comment extension before the first.
    package static func gif(
        _ width: Int, _ height: Int, frames: Int = 1, comment: String? = nil, interlaced: Bool = false
    )
        throws -> [UInt8]
    {
        let library = try GifLib.shared.get()
        let gifLibrary = try DynamicLibrary("libgif.so.7", package: "libgif7")
        let makeMap = try gifLibrary.function(
            "GifMakeMapObject",
            as: (@convention(c) (Int32, UnsafePointer<GifColorType>?) -> UnsafeMutablePointer<ColorMapObject>?).self)
        let freeMap = try gifLibrary.function(
            "GifFreeMapObject", as: (@convention(c) (UnsafeMutablePointer<ColorMapObject>?) -> Void).self)
        let colors = (0..<256).map { GifColorType(Red: UInt8($0), Green: UInt8(255 - $0), Blue: UInt8($0 / 2)) }
        guard let map = makeMap(256, colors) else { throw Failure("giflib could not make a colour map") }
        defer { freeMap(map) }
        final class Sink {
            var bytes: [UInt8] = []
        }
        let sink = Sink()
        let write: OutputFunc = { gif, buffer, count in
            guard let gif, let buffer, let user = gif.pointee.UserData else { return 0 }
            Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().bytes.append(
                contentsOf: UnsafeBufferPointer(start: buffer, count: Int(count)))
            return count
        }
        var error: Int32 = 0
        try withExtendedLifetime(sink) {
            guard let gif = library.openWrite(Unmanaged.passUnretained(sink).toOpaque(), write, &error) else {
                throw Failure("giflib could not open a writer")
            }
            library.setVersion(gif, true)
            _ = library.putScreen(gif, Int32(width), Int32(height), 8, 0, map)
            if let comment {
                _ = Array(comment.utf8).withUnsafeBytes {
                    library.putExtension(gif, COMMENT_EXT_FUNC_CODE, Int32($0.count), $0.baseAddress)
                }
            }
            // An interlaced GIF is written in its passes' order: every eighth row, then the fourth,
            // the second and the rest.
            let order =
                interlaced
                ? [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { Array(stride(from: $0.0, to: height, by: $0.1)) }
                : Array(0..<height)
            for frame in 0..<frames {
                _ = library.putImage(gif, 0, 0, Int32(width), Int32(height), interlaced, nil)
                for y in order {
                    var row = (0..<width).map { UInt8((($0 + y) * 7 + frame * 40) % 256) }
                    _ = library.putLine(gif, &row, Int32(width))
                }
            }
            guard library.closeWrite(gif, &error) == GIF_OK else { throw Failure("giflib could not finish") }
        }
        return sink.bytes
    }

    // MARK: Metadata

    /// `jpeg` with an EXIF segment holding a GPS position (52° 31′ 12″) right after its start.
    package static func withGPS(_ jpeg: [UInt8]) -> [UInt8] {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16) }
        // TIFF: IFD0 at 8 with one entry, the GPS IFD pointer (0x8825) to 26; the GPS IFD with
        // GPSLatitude (0x0002, three rationals) at 44.
        var tiff: [UInt8] = Array("II".utf8) + le16(42) + le32(8)
        tiff += le16(1) + le16(0x8825) + le16(4) + le32(1) + le32(26) + le32(0)
        tiff += le16(1) + le16(0x0002) + le16(5) + le32(3) + le32(44) + le32(0)
        for value in [52, 31, 12] { tiff += le32(value) + le32(1) }
        tiff += Array("GPS-SECRET-PLACE".utf8)
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
    }

    /// `png` with a tEXt chunk before its end.
    package static func withText(_ png: [UInt8], _ text: String) throws -> [UInt8] {
        let zlib = try DynamicLibrary("libz.so.1", package: "zlib1g")
        let crc32 = try zlib.function("crc32", as: (@convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt).self)
        let body = Array("tEXt".utf8) + Array("Location".utf8) + [0] + Array(text.utf8)
        let crc = UInt32(truncatingIfNeeded: crc32(0, body, UInt32(body.count)))
        let length = UInt32(body.count - 4)
        let chunk = bigEndian(length) + body + bigEndian(crc)
        // IEND is the last 12 bytes.
        return Array(png.dropLast(12)) + chunk + Array(png.suffix(12))
    }

    /// `png` with its IHDR's width and height replaced (and its CRC made right again).
    package static func withSize(_ png: [UInt8], width: UInt32, height: UInt32) throws -> [UInt8] {
        let zlib = try DynamicLibrary("libz.so.1", package: "zlib1g")
        let crc32 = try zlib.function("crc32", as: (@convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt).self)
        var bytes = png
        bytes.replaceSubrange(16..<24, with: bigEndian(width) + bigEndian(height))
        let body = Array(bytes[12..<29])
        let crc = UInt32(truncatingIfNeeded: crc32(0, body, UInt32(body.count)))
        bytes.replaceSubrange(29..<33, with: bigEndian(crc))
        return bytes
    }

    /// `webp` with an EXIF chunk, put in by libwebpmux.
    package static func withEXIF(_ webp: [UInt8], _ text: String) throws -> [UInt8] {
        let library = try LibWebP.shared.get()
        let mux = try DynamicLibrary("libwebpmux.so.3", package: "libwebpmux3")
        let setChunk = try mux.function(
            "WebPMuxSetChunk",
            as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<WebPData>?, Int32) -> WebPMuxError)
                .self)
        return try webp.withUnsafeBufferPointer { input in
            var data = WebPData(bytes: input.baseAddress, size: input.count)
            guard let handle = library.muxCreate(&data, 1, Int32(WEBP_MUX_ABI_VERSION)) else {
                throw Failure("libwebpmux could not read the test image")
            }
            defer { library.muxDelete(handle) }
            let exif = Array("Exif".utf8) + [0, 0] + Array(text.utf8)
            try exif.withUnsafeBufferPointer { bytes in
                var chunk = WebPData(bytes: bytes.baseAddress, size: bytes.count)
                guard setChunk(handle, "EXIF", &chunk, 1) == WEBP_MUX_OK else { throw Failure("no EXIF set") }
            }
            var assembled = WebPData()
            guard library.muxAssemble(handle, &assembled) == WEBP_MUX_OK, let start = assembled.bytes else {
                throw Failure("libwebpmux could not write the test image")
            }
            defer { library.free(UnsafeMutableRawPointer(mutating: start)) }
            return Array(UnsafeBufferPointer(start: start, count: assembled.size))
        }
    }

    package static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in these bytes.
    package func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
