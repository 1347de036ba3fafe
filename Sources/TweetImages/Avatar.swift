/// Avatars: a photo's centre square as a small PNG, and, for those without one, a picture drawn
/// from their uid (an identicon), as the course's note asks for "a default image".
public enum Avatar {
    /// The side of an avatar kept, in pixels.
    public static let side = 256

    /// The centre square of `image`'s thumbnail, at most ``side`` pixels a side, as a PNG with its
    /// SHA-256; `nil` for an image without a thumbnail (a CMYK JPEG).
    public static func square(of image: CheckedImage) throws(ImageError) -> (bytes: [UInt8], sha256: String)? {
        guard let thumbnail = image.thumbnail else { return nil }
        let pixels = try Pixels.decodePNG(thumbnail)
        let side = min(pixels.width, pixels.height)
        let (left, top) = ((pixels.width - side) / 2, (pixels.height - side) / 2)
        var square = [UInt8](repeating: 0, count: side * side * pixels.channels)
        for row in 0..<side {
            let from = ((top + row) * pixels.width + left) * pixels.channels
            square.replaceSubrange(
                (row * side * pixels.channels)..<((row + 1) * side * pixels.channels),
                with: pixels.bytes[from..<(from + side * pixels.channels)])
        }
        let png = try Pixels(width: side, height: side, channels: pixels.channels, bytes: square).fitted(
            within: Self.side
        )
        .png()
        return (png, try ImageIntake.sha256(png))
    }

    /// A 5 × 5 pattern mirrored about its middle column, in one colour on a light ground, both
    /// from `seed` (a uid's bytes): the same uid gives the same picture everywhere. Each of the
    /// 25 cells is `cell` pixels square.
    public static func identicon(seed: some Sequence<UInt8>, cell: Int = 8) -> Pixels {
        // FNV-1a, 64 bits: the seed spread over the pattern's 15 bits and the colour's.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in seed {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01B3
        }
        let hue = Double(hash >> 40 & 0xFFFF) / 65536
        let color = Self.rgb(hue: hue, saturation: 0.55, lightness: 0.5)
        let ground: [UInt8] = [240, 240, 240]
        let side = 5 * cell
        var bytes = [UInt8](repeating: 0, count: side * side * 3)
        for row in 0..<5 {
            for column in 0..<5 {
                let bit = row * 3 + min(column, 4 - column)
                let on = hash >> UInt64(bit) & 1 == 1
                for y in (row * cell)..<((row + 1) * cell) {
                    for x in (column * cell)..<((column + 1) * cell) {
                        bytes.replaceSubrange(
                            ((y * side + x) * 3)..<((y * side + x) * 3 + 3), with: on ? color : ground)
                    }
                }
            }
        }
        return Pixels(width: side, height: side, channels: 3, bytes: bytes)
    }

    private static func rgb(hue: Double, saturation: Double, lightness: Double) -> [UInt8] {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let sector = hue * 6
        let second = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (red, green, blue): (Double, Double, Double)
        switch Int(sector) {
        case 0: (red, green, blue) = (chroma, second, 0)
        case 1: (red, green, blue) = (second, chroma, 0)
        case 2: (red, green, blue) = (0, chroma, second)
        case 3: (red, green, blue) = (0, second, chroma)
        case 4: (red, green, blue) = (second, 0, chroma)
        default: (red, green, blue) = (chroma, 0, second)
        }
        let match = lightness - chroma / 2
        return [red, green, blue].map { UInt8(max(0, min(255, (($0 + match) * 255).rounded()))) }
    }
}
