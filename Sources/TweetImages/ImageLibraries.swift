import CImages
import TweetSystem

/// The functions of the libraries made for each image format, loaded with `dlopen` the first
/// time a command checks an image of that format: linked, they and the libraries they need
/// would load into the start-up of every command. CImages gives the declarations.

/// libturbojpeg: JPEG headers, a scaled decode that reads every byte of the stream, and the
/// lossless transform that copies a JPEG without its markers (jpegtran's `-copy none`).
package struct TurboJPEG: @unchecked Sendable {
    package let initDecompress: @convention(c) () -> tjhandle?
    package let initTransform: @convention(c) () -> tjhandle?
    package let destroy: @convention(c) (tjhandle?) -> Int32
    package let decompressHeader3:
        @convention(c) (
            tjhandle?, UnsafePointer<UInt8>?, UInt, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
            UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?
        ) -> Int32
    package let decompress2:
        @convention(c) (
            tjhandle?, UnsafePointer<UInt8>?, UInt, UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32, Int32, Int32
        ) -> Int32
    package let transform:
        @convention(c) (
            tjhandle?, UnsafePointer<UInt8>?, UInt, Int32, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
            UnsafeMutablePointer<UInt>?, UnsafeMutablePointer<tjtransform>?, Int32
        ) -> Int32
    package let free: @convention(c) (UnsafeMutablePointer<UInt8>?) -> Void
    package let errorString2: @convention(c) (tjhandle?) -> UnsafeMutablePointer<CChar>?

    package static let shared = Result { () throws(DynamicLibrary.Missing) -> TurboJPEG in
        let library = try DynamicLibrary("libturbojpeg.so.0", package: "libturbojpeg0")
        return TurboJPEG(
            initDecompress: try library.function("tjInitDecompress"),
            initTransform: try library.function("tjInitTransform"), destroy: try library.function("tjDestroy"),
            decompressHeader3: try library.function("tjDecompressHeader3"),
            decompress2: try library.function("tjDecompress2"), transform: try library.function("tjTransform"),
            free: try library.function("tjFree"), errorString2: try library.function("tjGetErrorStr2"))
    }

    package func error(_ handle: tjhandle?) -> String {
        errorString2(handle).map { String(cString: $0) } ?? "libturbojpeg gave no reason"
    }
}

/// libpng's simplified API, which reports errors by its return value (the classic one jumps out
/// with `longjmp`, which Swift cannot be unwound by).
package struct LibPNG: @unchecked Sendable {
    package let beginReadFromMemory: @convention(c) (UnsafeMutablePointer<png_image>?, UnsafeRawPointer?, Int) -> Int32
    package let finishRead:
        @convention(c) (
            UnsafeMutablePointer<png_image>?, UnsafePointer<png_color>?, UnsafeMutableRawPointer?, Int32,
            UnsafeMutableRawPointer?
        ) -> Int32
    package let writeToMemory:
        @convention(c) (
            UnsafeMutablePointer<png_image>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?, Int32,
            UnsafeRawPointer?, Int32, UnsafeRawPointer?
        ) -> Int32
    package let free: @convention(c) (UnsafeMutablePointer<png_image>?) -> Void

    package static let shared = Result { () throws(DynamicLibrary.Missing) -> LibPNG in
        let library = try DynamicLibrary("libpng16.so.16", package: "libpng16-16")
        return LibPNG(
            beginReadFromMemory: try library.function("png_image_begin_read_from_memory"),
            finishRead: try library.function("png_image_finish_read"),
            writeToMemory: try library.function("png_image_write_to_memory"),
            free: try library.function("png_image_free"))
    }
}

/// libwebp to read a WebP's features and decode it scaled, and libwebpmux to take its metadata
/// chunks out without decoding it again.
package struct LibWebP: @unchecked Sendable {
    package let getFeatures:
        @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<WebPBitstreamFeatures>?, Int32) ->
            VP8StatusCode
    package let initDecoderConfig: @convention(c) (UnsafeMutablePointer<WebPDecoderConfig>?, Int32) -> Int32
    package let decode:
        @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<WebPDecoderConfig>?) -> VP8StatusCode
    package let freeDecBuffer: @convention(c) (UnsafeMutablePointer<WebPDecBuffer>?) -> Void
    package let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    package let muxCreate: @convention(c) (UnsafePointer<WebPData>?, Int32, Int32) -> OpaquePointer?
    package let muxDeleteChunk: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> WebPMuxError
    package let muxAssemble: @convention(c) (OpaquePointer?, UnsafeMutablePointer<WebPData>?) -> WebPMuxError
    package let muxDelete: @convention(c) (OpaquePointer?) -> Void

    package static let shared = Result { () throws(DynamicLibrary.Missing) -> LibWebP in
        let library = try DynamicLibrary("libwebp.so.7", package: "libwebp7")
        let mux = try DynamicLibrary("libwebpmux.so.3", package: "libwebpmux3")
        return LibWebP(
            getFeatures: try library.function("WebPGetFeaturesInternal"),
            initDecoderConfig: try library.function("WebPInitDecoderConfigInternal"),
            decode: try library.function("WebPDecode"), freeDecBuffer: try library.function("WebPFreeDecBuffer"),
            free: try library.function("WebPFree"), muxCreate: try mux.function("WebPMuxCreateInternal"),
            muxDeleteChunk: try mux.function("WebPMuxDeleteChunk"), muxAssemble: try mux.function("WebPMuxAssemble"),
            muxDelete: try mux.function("WebPMuxDelete"))
    }
}

/// giflib's low-level API: a GIF read record by record (so that only its first frame is
/// decoded), and one written back from it.
package struct GifLib: @unchecked Sendable {
    package let openRead:
        @convention(c) (UnsafeMutableRawPointer?, InputFunc?, UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<
            GifFileType
        >?
    package let closeRead: @convention(c) (UnsafeMutablePointer<GifFileType>?, UnsafeMutablePointer<Int32>?) -> Int32
    package let recordType:
        @convention(c) (UnsafeMutablePointer<GifFileType>?, UnsafeMutablePointer<GifRecordType>?) -> Int32
    package let imageDescription: @convention(c) (UnsafeMutablePointer<GifFileType>?) -> Int32
    package let line:
        @convention(c) (UnsafeMutablePointer<GifFileType>?, UnsafeMutablePointer<GifPixelType>?, Int32) -> Int32
    package let extensionFirst:
        @convention(c) (
            UnsafeMutablePointer<GifFileType>?, UnsafeMutablePointer<Int32>?,
            UnsafeMutablePointer<UnsafeMutablePointer<GifByteType>?>?
        ) -> Int32
    package let extensionNext:
        @convention(c) (UnsafeMutablePointer<GifFileType>?, UnsafeMutablePointer<UnsafeMutablePointer<GifByteType>?>?)
            -> Int32
    package let openWrite:
        @convention(c) (UnsafeMutableRawPointer?, OutputFunc?, UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<
            GifFileType
        >?
    package let closeWrite: @convention(c) (UnsafeMutablePointer<GifFileType>?, UnsafeMutablePointer<Int32>?) -> Int32
    package let setVersion: @convention(c) (UnsafeMutablePointer<GifFileType>?, Bool) -> Void
    package let putScreen:
        @convention(c) (UnsafeMutablePointer<GifFileType>?, Int32, Int32, Int32, Int32, UnsafePointer<ColorMapObject>?)
            -> Int32
    package let putExtension:
        @convention(c) (UnsafeMutablePointer<GifFileType>?, Int32, Int32, UnsafeRawPointer?) -> Int32
    package let putImage:
        @convention(c) (
            UnsafeMutablePointer<GifFileType>?, Int32, Int32, Int32, Int32, Bool, UnsafePointer<ColorMapObject>?
        ) -> Int32
    package let putLine:
        @convention(c) (UnsafeMutablePointer<GifFileType>?, UnsafeMutablePointer<GifPixelType>?, Int32) -> Int32
    package let errorString: @convention(c) (Int32) -> UnsafePointer<CChar>?

    package static let shared = Result { () throws(DynamicLibrary.Missing) -> GifLib in
        let library = try DynamicLibrary("libgif.so.7", package: "libgif7")
        return GifLib(
            openRead: try library.function("DGifOpen"), closeRead: try library.function("DGifCloseFile"),
            recordType: try library.function("DGifGetRecordType"),
            imageDescription: try library.function("DGifGetImageDesc"), line: try library.function("DGifGetLine"),
            extensionFirst: try library.function("DGifGetExtension"),
            extensionNext: try library.function("DGifGetExtensionNext"), openWrite: try library.function("EGifOpen"),
            closeWrite: try library.function("EGifCloseFile"), setVersion: try library.function("EGifSetGifVersion"),
            putScreen: try library.function("EGifPutScreenDesc"),
            putExtension: try library.function("EGifPutExtension"),
            putImage: try library.function("EGifPutImageDesc"), putLine: try library.function("EGifPutLine"),
            errorString: try library.function("GifErrorString"))
    }

    package func error(_ code: Int32) -> String {
        errorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
    }
}

/// libcrypto's SHA-256, for an image's content address.
package struct LibCrypto: @unchecked Sendable {
    package let digest:
        @convention(c) (
            UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?, OpaquePointer?,
            OpaquePointer?
        ) -> Int32
    package let sha256: @convention(c) () -> OpaquePointer?

    package static let shared = Result { () throws(DynamicLibrary.Missing) -> LibCrypto in
        let library = try DynamicLibrary("libcrypto.so.3", package: "libssl3")
        return LibCrypto(digest: try library.function("EVP_Digest"), sha256: try library.function("EVP_sha256"))
    }

    /// The SHA-256 of `bytes`, in lower-case hex.
    package func sha256Hex(_ bytes: [UInt8]) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = bytes.withUnsafeBytes { input in
            self.digest(input.baseAddress, input.count, &digest, &length, sha256(), nil)
        }
        guard done == 1, length == 32 else { return nil }
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]] }, as: UTF8.self)
    }
}
