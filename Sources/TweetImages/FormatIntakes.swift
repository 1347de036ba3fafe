import CImages

/// Each format's check: its header read and its size refused before any pixel is decoded; then
/// every byte decoded (scaled down where the library can, so that memory stays small); then the
/// bytes kept, without metadata.

/// What a format's check gives: the size, the bytes to keep, and the pixels decoded (at most a
/// few hundred on a side where the library scales), for the thumbnail.
struct Intake {
    var width: Int
    var height: Int
    var kept: [UInt8]
    var preview: Pixels?
}

/// A JPEG: decoded at an eighth of its size, stopping at the first warning (a cut or damaged
/// stream is a warning to libjpeg), then copied without its markers by libturbojpeg's lossless
/// transform: EXIF (where a phone puts the GPS position), XMP, ICC and comments go; the picture's
/// coefficients are copied, not decoded and compressed again.
struct JPEGIntake {
    let bytes: [UInt8]
    let file: String
    /// Whether the picture is decoded (for its check and a thumbnail), or only copied without
    /// its markers: a first pass whose copy the second decodes.
    var decodes = true

    func check() throws(ImageError) -> Intake {
        let library = try ImageIntake.loaded(TurboJPEG.shared)
        // Progressive JPEGs with a scan count that only a bomb has are refused by the library.
        let flags = Int32(TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
        guard let decoder = library.initDecompress() else {
            throw .libraryMissing(reason: "libturbojpeg could not make a decoder")
        }
        defer { _ = library.destroy(decoder) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            library.decompressHeader3(
                decoder, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0 else { throw damaged(library.error(decoder)) }
        try ImageIntake.checkSize(Int(width), Int(height), format: .jpeg, file: file)
        // The largest of a half, a quarter and an eighth each way that is at most twice a
        // thumbnail (an eighth at most): the library decodes every coefficient and skips most of
        // the reconstruction. CMYK (and YCCK) decode only to CMYK, and make no thumbnail.
        let (fullWidth, fullHeight) = (Int(width), Int(height))
        func scaled(_ side: Int, _ divisor: Int) -> Int { (side + divisor - 1) / divisor }
        var divisor = 1
        while divisor < 8, max(scaled(fullWidth, divisor), scaled(fullHeight, divisor)) > 2 * ImageIntake.thumbnailSide
        {
            divisor *= 2
        }
        let (scaledWidth, scaledHeight) = (scaled(fullWidth, divisor), scaled(fullHeight, divisor))
        let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let format = cmyk ? TJPF_CMYK : TJPF_RGB
        var pixels = [UInt8](repeating: 0, count: decodes ? scaledWidth * scaledHeight * (cmyk ? 4 : 3) : 0)
        if decodes {
            let decoded = bytes.withUnsafeBufferPointer { input in
                pixels.withUnsafeMutableBufferPointer { output in
                    library.decompress2(
                        decoder, input.baseAddress, UInt(input.count), output.baseAddress, Int32(scaledWidth), 0,
                        Int32(scaledHeight), Int32(format.rawValue), flags)
                }
            }
            guard decoded == 0 else { throw damaged(library.error(decoder)) }
        }
        guard let transformer = library.initTransform() else {
            throw .libraryMissing(reason: "libturbojpeg could not make a transformer")
        }
        defer { _ = library.destroy(transformer) }
        var transform = tjtransform()
        transform.op = Int32(TJXOP_NONE.rawValue)
        transform.options = Int32(TJXOPT_COPYNONE)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        let copied = bytes.withUnsafeBufferPointer {
            library.transform(transformer, $0.baseAddress, UInt($0.count), 1, &output, &outputSize, &transform, flags)
        }
        defer { library.free(output) }
        guard copied == 0, let output else { throw damaged(library.error(transformer)) }
        let preview =
            cmyk || !decodes ? nil : Pixels(width: scaledWidth, height: scaledHeight, channels: 3, bytes: pixels)
        return Intake(
            width: Int(width), height: Int(height),
            kept: Array(UnsafeBufferPointer(start: output, count: Int(outputSize))), preview: preview)
    }

    private func damaged(_ reason: String) -> ImageError {
        .damaged(file: file, format: .jpeg, reason: reason)
    }
}

/// A PNG: decoded whole by libpng's simplified API and written again from its pixels, as RGB or
/// RGBA in 8 bits a channel: every chunk but the picture (text, EXIF, times, ICC) is left behind.
struct PNGIntake {
    let bytes: [UInt8]
    let file: String

    func check() throws(ImageError) -> Intake {
        let file = file
        let pixels = try Pixels.decodePNG(bytes, file: file) { width, height throws(ImageError) in
            try ImageIntake.checkSize(width, height, format: .png, file: file)
        }
        return Intake(width: pixels.width, height: pixels.height, kept: try pixels.png(), preview: pixels)
    }
}

/// A WebP: its features read, decoded scaled down to an eighth, and assembled again by libwebpmux
/// without its EXIF and XMP chunks. An animated one is refused for now.
struct WebPIntake {
    let bytes: [UInt8]
    let file: String

    func check() throws(ImageError) -> Intake {
        let library = try ImageIntake.loaded(LibWebP.shared)
        return try bytes.withUnsafeBufferPointer { input throws(ImageError) in
            var features = WebPBitstreamFeatures()
            let read = library.getFeatures(input.baseAddress, input.count, &features, Int32(WEBP_DECODER_ABI_VERSION))
            guard read == VP8_STATUS_OK else { throw damaged("libwebp says \(Self.status(read))") }
            let (width, height) = (Int(features.width), Int(features.height))
            try ImageIntake.checkSize(width, height, format: .webp, file: file)
            guard features.has_animation == 0 else { throw .animatedWebP(file: file) }
            var config = WebPDecoderConfig()
            guard library.initDecoderConfig(&config, Int32(WEBP_DECODER_ABI_VERSION)) != 0 else {
                throw .libraryMissing(reason: "this libwebp is not the version tweetcli was built with")
            }
            // Decoded straight to the thumbnail's size: every byte is read, and few pixels are kept.
            let (previewWidth, previewHeight) = Pixels.fitted(
                width: width, height: height, within: ImageIntake.thumbnailSide)
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(previewWidth)
            config.options.scaled_height = Int32(previewHeight)
            config.output.colorspace = MODE_RGBA
            let decoded = library.decode(input.baseAddress, input.count, &config)
            defer { library.freeDecBuffer(&config.output) }
            guard decoded == VP8_STATUS_OK, let rgba = config.output.u.RGBA.rgba,
                config.output.width == Int32(previewWidth), config.output.height == Int32(previewHeight)
            else { throw damaged("libwebp says \(Self.status(decoded))") }
            var previewBytes = [UInt8](repeating: 0, count: previewWidth * previewHeight * 4)
            let stride = Int(config.output.u.RGBA.stride)
            for row in 0..<previewHeight {
                for column in 0..<(previewWidth * 4) {
                    previewBytes[row * previewWidth * 4 + column] = rgba[row * stride + column]
                }
            }
            let preview = Pixels(width: previewWidth, height: previewHeight, channels: 4, bytes: previewBytes)

            var data = WebPData(bytes: input.baseAddress, size: input.count)
            guard let mux = library.muxCreate(&data, 0, Int32(WEBP_MUX_ABI_VERSION)) else {
                throw damaged("libwebpmux cannot read its chunks")
            }
            defer { library.muxDelete(mux) }
            for chunk in ["EXIF", "XMP "] {
                let removed = library.muxDeleteChunk(mux, chunk)
                guard removed == WEBP_MUX_OK || removed == WEBP_MUX_NOT_FOUND else {
                    throw damaged("libwebpmux cannot remove its \(chunk) chunk")
                }
            }
            var assembled = WebPData()
            guard library.muxAssemble(mux, &assembled) == WEBP_MUX_OK, let start = assembled.bytes else {
                throw damaged("libwebpmux cannot write it again")
            }
            defer { library.free(UnsafeMutableRawPointer(mutating: start)) }
            return Intake(
                width: width, height: height, kept: Array(UnsafeBufferPointer(start: start, count: assembled.size)),
                preview: preview)
        }
    }

    private static func status(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "the bitstream is wrong"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "a feature it does not support"
        case VP8_STATUS_NOT_ENOUGH_DATA: "the data ends too soon"
        default: "error \(status.rawValue)"
        }
    }

    private func damaged(_ reason: String) -> ImageError {
        .damaged(file: file, format: .webp, reason: reason)
    }
}
