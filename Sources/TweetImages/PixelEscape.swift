/// The escape sequences that carry a picture in pixels, checked against what each protocol
/// specifies before any reaches a terminal: a picture is only ever its own escape, holding only
/// the bytes its protocol allows, so nothing else can ride along to the terminal.
public enum PixelEscape {
    private static let escape: UInt8 = 0x1B
    private static let stringTerminator: [UInt8] = [0x1B, 0x5C]  // ESC \

    /// Whether `first` and `second` open a device control string (sixel), an application
    /// program command (kitty) or an operating system command (iTerm2).
    public static func opensString(_ first: UInt8?, _ second: UInt8?) -> Bool {
        first == escape && (second == 0x50 || second == 0x5F || second == 0x5D)
    }

    /// Whether `bytes` is exactly one picture as `mode` sends it, and nothing else.
    public static func isWellFormed(_ bytes: [UInt8], mode: Mosaic.Mode) -> Bool {
        switch mode {
        case .blocks: return false
        case .sixels: return isSixel(bytes[...])
        case .kitty: return isKitty(bytes[...])
        case .iterm2: return isITerm2(bytes[...])
        }
    }

    /// `ESC P` P1;P2;P3 `q`, then sixel data: colour introducers (`#`), repeats (`!`), raster
    /// attributes (`"`), carriage returns (`$`), new lines (`-`), their digits and `;`, and sixel
    /// characters (`?` to `~`); then `ESC \`.
    static func isSixel(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.starts(with: [escape, 0x50]), bytes.count > 4, bytes.suffix(2).elementsEqual(stringTerminator)
        else { return false }
        let body = bytes.dropFirst(2).dropLast(2)
        guard let q = body.firstIndex(of: 0x71),
            body[..<q].allSatisfy({ isDigit($0) || $0 == 0x3B })
        else { return false }
        return body[(q + 1)...].allSatisfy { byte in
            (0x3F...0x7E).contains(byte) || isDigit(byte) || [0x23, 0x21, 0x22, 0x24, 0x2D, 0x3B].contains(byte)
        }
    }

    /// One or more `ESC _ G` control data (`key=value` pairs, comma separated, of letters and
    /// digits), optionally `;` and a base64 payload, then `ESC \`.
    static func isKitty(_ bytes: ArraySlice<UInt8>) -> Bool {
        var rest = bytes
        guard !rest.isEmpty else { return false }
        while !rest.isEmpty {
            guard rest.starts(with: [escape, 0x5F, 0x47]) else { return false }
            rest = rest.dropFirst(3)
            guard let end = rest.firstIndex(of: escape), rest[end...].starts(with: stringTerminator) else {
                return false
            }
            let command = rest[..<end]
            let control = command.prefix { $0 != 0x3B }
            let payload = command.dropFirst(control.count + (control.count < command.count ? 1 : 0))
            guard control.allSatisfy({ isAlphanumeric($0) || $0 == 0x3D || $0 == 0x2C || $0 == 0x2D }),
                payload.allSatisfy(isBase64)
            else { return false }
            rest = rest[(end + 2)...]
        }
        return true
    }

    /// `ESC ] 1337;File=` arguments (`key=value` pairs of letters and digits, `;` separated), `:`,
    /// a base64 payload, then BEL or `ESC \`.
    static func isITerm2(_ bytes: ArraySlice<UInt8>) -> Bool {
        let opening = Array("\u{1B}]1337;File=".utf8)
        guard bytes.starts(with: opening) else { return false }
        var body = bytes.dropFirst(opening.count)
        if body.last == 0x07 {
            body = body.dropLast()
        } else if body.suffix(2).elementsEqual(stringTerminator) {
            body = body.dropLast(2)
        } else {
            return false
        }
        guard let colon = body.firstIndex(of: 0x3A) else { return false }
        return body[..<colon].allSatisfy { isAlphanumeric($0) || $0 == 0x3D || $0 == 0x3B }
            && body[(colon + 1)...].allSatisfy(isBase64)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func isBase64(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == 0x2B || byte == 0x2F || byte == 0x3D
    }
}
