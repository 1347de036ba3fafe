import CImages

/// An image's pixels in memory, 8 bits a channel, rows top first: RGB or RGBA.
public struct Pixels: Equatable, Sendable {
    package var width: Int
    package var height: Int
    /// 3 (RGB) or 4 (RGBA).
    package var channels: Int
    package var bytes: [UInt8]

    package init(width: Int, height: Int, channels: Int, bytes: [UInt8]) {
        precondition(bytes.count == width * height * channels, "pixels of another size")
        self.width = width
        self.height = height
        self.channels = channels
        self.bytes = bytes
    }

    /// The size that fits within `side` × `side` with these proportions (never larger, at least 1).
    package static func fitted(width: Int, height: Int, within side: Int) -> (width: Int, height: Int) {
        guard width > side || height > side else { return (width, height) }
        if width >= height { return (side, max(1, (height * side + width / 2) / width)) }
        return (max(1, (width * side + height / 2) / height), side)
    }

    /// These pixels made to fit within `side` × `side`, each new pixel the average of the
    /// source pixels it covers (a box filter: the right one for shrinking, and exact for factors).
    package func fitted(within side: Int) -> Pixels {
        let (newWidth, newHeight) = Self.fitted(width: width, height: height, within: side)
        return resized(width: newWidth, height: newHeight)
    }

    /// These pixels at `newWidth` × `newHeight`: shrunk with a box filter, enlarged by repeating
    /// pixels.
    package func resized(width newWidth: Int, height newHeight: Int) -> Pixels {
        guard newWidth != width || newHeight != height else { return self }
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * channels)
        var sums = [Int](repeating: 0, count: channels)
        for y in 0..<newHeight {
            let top = y * height / newHeight
            let bottom = max(top + 1, (y + 1) * height / newHeight)
            for x in 0..<newWidth {
                let left = x * width / newWidth
                let right = max(left + 1, (x + 1) * width / newWidth)
                for channel in 0..<channels { sums[channel] = 0 }
                for row in top..<bottom {
                    var index = (row * width + left) * channels
                    for _ in left..<right {
                        for channel in 0..<channels { sums[channel] += Int(bytes[index + channel]) }
                        index += channels
                    }
                }
                let count = (bottom - top) * (right - left)
                let target = (y * newWidth + x) * channels
                for channel in 0..<channels { output[target + channel] = UInt8((sums[channel] + count / 2) / count) }
            }
        }
        return Pixels(width: newWidth, height: newHeight, channels: channels, bytes: output)
    }

    /// `pictures` side by side, top aligned, each made to fit within `box` pixels at the left of a
    /// slot that wide, with `gap` transparent pixels between slots: one picture, for a protocol
    /// that sends one at a time, whose slots line up with columns of text under it.
    public static func row(_ pictures: [Pixels], box: (width: Int, height: Int), gap: Int) -> Pixels {
        let fitted = pictures.map { picture in
            let scale = min(Double(box.width) / Double(picture.width), Double(box.height) / Double(picture.height))
            return picture.resized(
                width: max(1, Int((Double(picture.width) * scale).rounded())),
                height: max(1, Int((Double(picture.height) * scale).rounded())))
        }
        let width = max(1, box.width * fitted.count + gap * max(0, fitted.count - 1))
        let height = max(1, fitted.map(\.height).max() ?? 1)
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for (slot, picture) in fitted.enumerated() {
            let left = slot * (box.width + gap)
            for y in 0..<picture.height {
                for x in 0..<picture.width {
                    let source = (y * picture.width + x) * picture.channels
                    let target = (y * width + left + x) * 4
                    bytes[target] = picture.bytes[source]
                    bytes[target + 1] = picture.bytes[source + 1]
                    bytes[target + 2] = picture.bytes[source + 2]
                    bytes[target + 3] = picture.channels == 4 ? picture.bytes[source + 3] : 255
                }
            }
        }
        return Pixels(width: width, height: height, channels: 4, bytes: bytes)
    }

    /// These pixels as a PNG, written by libpng's simplified API.
    package func png() throws(ImageError) -> [UInt8] {
        let library = try ImageIntake.loaded(LibPNG.shared)
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        // PNG_FORMAT_RGBA and PNG_FORMAT_RGB (macros Swift does not import).
        image.format = channels == 4 ? 3 : 2
        defer { library.free(&image) }
        var size = 0
        guard bytes.withUnsafeBytes({ library.writeToMemory(&image, nil, &size, 0, $0.baseAddress, 0, nil) }) != 0
        else {
            throw .libraryMissing(reason: "libpng could not write a thumbnail")
        }
        var output = [UInt8](repeating: 0, count: size)
        let done = output.withUnsafeMutableBytes { memory in
            bytes.withUnsafeBytes {
                library.writeToMemory(&image, memory.baseAddress, &size, 0, $0.baseAddress, 0, nil)
            }
        }
        guard done != 0 else { throw .libraryMissing(reason: "libpng could not write a thumbnail") }
        return Array(output.prefix(size))
    }
}
