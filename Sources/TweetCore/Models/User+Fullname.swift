import FoundationEssentials

extension User {
    /// Why `fullname` cannot be anyone's full name, or `nil` when it can. A row shows
    /// `Full Name @username · 3m`: a full name holding `@` or `·`, marks that reorder or hide
    /// text, or nothing visible at all could make a row pass for someone else's. The one rule for
    /// `register`, `edit-profile` and whatever else writes a user (an import).
    /// - Parameter fullname: the name as it would be stored (trimmed).
    /// - Returns: one sentence naming what is wrong.
    public static func problem(withFullname fullname: String) -> String? {
        for scalar in fullname.unicodeScalars {
            switch scalar.value {
            case 0x40:
                return "a full name cannot hold @, which would make it look like a username"
            case 0xB7:
                return "a full name cannot hold ·, which separates a row's name from its time"
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                return
                    "a full name cannot hold the direction mark \(codePoint(scalar)), which reorders the text around it"
            case 0x200B...0x200D, 0x2060, 0xFEFF:
                return "a full name cannot hold the zero-width character \(codePoint(scalar)), which hides where it is"
            default:
                continue
            }
        }
        guard fullname.unicodeScalars.contains(where: isVisible) else {
            return "a full name needs a visible character, not only spaces or invisible fillers"
        }
        return nil
    }

    /// Whether `scalar` puts something on the screen by itself: not a space, not a character
    /// Unicode says to ignore when it is not supported (the Hangul fillers, variation selectors,
    /// tags), not the blank braille pattern, and not a mark that only decorates another.
    private static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isWhitespace || properties.isDefaultIgnorableCodePoint { return false }
        switch scalar.value {
        case 0x3164, 0x115F, 0x1160, 0xFFA0, 0x2800: return false
        default: break
        }
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .control, .format, .spaceSeparator: return false
        default: return true
        }
    }

    /// `U+200B`.
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
