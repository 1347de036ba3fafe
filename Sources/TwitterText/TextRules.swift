import FoundationEssentials
import TweetStore

/// What any stored text may hold. Everything in the store is shown to other users, so text that
/// could drive their terminal is refused when it is written: control characters (C0, DEL, C1),
/// line separators where a field is one line, and the bidirectional embeddings, overrides and
/// isolates that reorder the rest of a line.
public enum TextRules {
    /// The first character `text` may not hold, or `nil` when it is fine.
    /// - Parameters:
    ///   - text: The text to check.
    ///   - multiline: Whether line feeds and tabs are allowed (captions, bios).
    public static func forbiddenCharacter(in text: some StringProtocol, multiline: Bool) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            switch scalar.value {
            case 0x0A, 0x09: return !multiline
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
            default: return false
            }
        }
    }

    /// Checks `text` for ``forbiddenCharacter(in:multiline:)`` and its size: a limit in characters
    /// counts grapheme clusters, and one letter with thousands of combining marks is one cluster, so
    /// every stored string is capped in UTF-8 bytes as well.
    /// - Throws: ``TextError/forbiddenCharacter(field:code:)`` naming the field and the character,
    ///   or ``TextError/tooManyBytes(field:maximum:)``.
    package static func check(_ text: some StringProtocol, field: String, multiline: Bool, maximumBytes: Int) throws {
        try checkSize(text, field: field, maximumBytes: maximumBytes)
        if let scalar = forbiddenCharacter(in: text, multiline: multiline) {
            throw TextError.forbiddenCharacter(field: field, code: codePoint(scalar))
        }
    }

    /// Checks only the size of `text` in UTF-8 bytes.
    /// - Throws: ``TextError/tooManyBytes(field:maximum:)``.
    package static func checkSize(_ text: some StringProtocol, field: String, maximumBytes: Int) throws {
        guard text.utf8.count <= maximumBytes else {
            throw TextError.tooManyBytes(field: field, maximum: maximumBytes)
        }
    }

    /// `U+001B`.
    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

/// Text that cannot be stored as it is.
public enum TextError: Error, Equatable, LocalizedError {
    /// The field holds a control or bidirectional-control character (`code` is like `U+001B`).
    case forbiddenCharacter(field: String, code: String)
    /// The field is longer in bytes than it may be, whatever its count of characters.
    case tooManyBytes(field: String, maximum: Int)

    public var errorDescription: String? {
        switch self {
        case .forbiddenCharacter(let field, let code):
            return "the \(field) contains the control character \(code), which could change how other people's "
                + "terminals show it; remove it"
        case .tooManyBytes(let field, let maximum):
            return "the \(field) takes more than \(maximum) bytes; shorten it"
        }
    }
}
