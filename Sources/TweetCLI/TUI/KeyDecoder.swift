/// A key the full-screen app acts on.
enum Key: Equatable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace
    /// A control key: `control("c")` is Ctrl-C.
    case control(Character)
    /// A mouse report (SGR, `ESC [ < b ; x ; y M`): its button (64 and 65 the wheel), the cell,
    /// from 0, and whether it is a press.
    case mouse(button: Int, column: Int, row: Int, press: Bool)
}

/// Turns the bytes a terminal sends in raw mode into keys: UTF-8 characters, control keys, and
/// the escape sequences of the arrows and the paging keys, in both the CSI (`ESC [ A`) and SS3
/// (`ESC O A`) forms terminals and tmux send. A sequence it does not know is dropped whole, never
/// read as the keys it is made of. An ESC alone at the end of what was read is the Escape key:
/// terminals send a sequence in one write. An ESC before a plain key is the Escape key and then
/// that key, not Alt and the key: the app binds no Alt keys, and while it is busy, an Escape
/// pressed and then `/` arrive in one read.
struct KeyDecoder {
    private var pending: [UInt8] = []

    mutating func keys(from bytes: some Sequence<UInt8>) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            let byte = pending[index]
            switch byte {
            case 0x1B:
                guard index + 1 < pending.count else {
                    keys.append(.escape)
                    index += 1
                    continue
                }
                guard let (key, length) = Self.sequence(pending[(index + 1)...]) else {
                    // An unfinished sequence waits for the rest.
                    pending.removeFirst(index)
                    return keys
                }
                if let key { keys.append(key) }
                index += 1 + length
            case 0x0D, 0x0A:
                keys.append(.enter)
                index += 1
            case 0x09:
                keys.append(.tab)
                index += 1
            case 0x7F, 0x08:
                keys.append(.backspace)
                index += 1
            case 0x00..<0x20:
                keys.append(.control(Character(Unicode.Scalar(byte + 0x60))))
                index += 1
            default:
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                guard index + length <= pending.count else {
                    pending.removeFirst(index)
                    return keys
                }
                let text = String(decoding: pending[index..<(index + length)], as: UTF8.self)
                keys += text.map(Key.character)
                index += length
            }
        }
        pending.removeAll()
        return keys
    }

    /// The key an escape sequence (without its ESC) names, or `nil` for one that is unknown but
    /// complete, with its length; `nil` as a whole when it is not complete yet.
    private static func sequence(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        guard let introducer = bytes.first else { return nil }
        switch introducer {
        case UInt8(ascii: "["):
            // CSI: parameters and intermediates, then a final byte in @...~.
            var length = 1
            for byte in bytes.dropFirst() {
                length += 1
                guard (0x40...0x7E).contains(byte) else { continue }
                let parameters = String(decoding: bytes.dropFirst().prefix(length - 2), as: UTF8.self)
                return (csi(parameters, final: byte), length)
            }
            return nil
        case UInt8(ascii: "O"):
            guard bytes.count >= 2 else { return nil }
            return (csi("", final: bytes[bytes.startIndex + 1]), 2)
        default:
            // ESC ESC, or ESC and a plain key: the Escape key, and the next byte read on its own.
            return (.escape, 0)
        }
    }

    private static func csi(_ parameters: String, final: UInt8) -> Key? {
        if parameters.hasPrefix("<"), final == UInt8(ascii: "M") || final == UInt8(ascii: "m") {
            let numbers = parameters.dropFirst().split(separator: ";").compactMap { Int($0) }
            guard numbers.count == 3, numbers[1] >= 1, numbers[2] >= 1 else { return nil }
            return .mouse(
                button: numbers[0], column: numbers[1] - 1, row: numbers[2] - 1, press: final == UInt8(ascii: "M"))
        }
        switch (parameters, final) {
        case (_, UInt8(ascii: "A")): return .up
        case (_, UInt8(ascii: "B")): return .down
        case (_, UInt8(ascii: "C")): return .right
        case (_, UInt8(ascii: "D")): return .left
        case (_, UInt8(ascii: "H")), ("1", UInt8(ascii: "~")), ("7", UInt8(ascii: "~")): return .home
        case (_, UInt8(ascii: "F")), ("4", UInt8(ascii: "~")), ("8", UInt8(ascii: "~")): return .end
        case ("5", UInt8(ascii: "~")): return .pageUp
        case ("6", UInt8(ascii: "~")): return .pageDown
        case ("", UInt8(ascii: "Z")): return .backTab
        default: return nil
        }
    }
}
