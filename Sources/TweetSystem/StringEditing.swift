import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Trimming and replacing without Foundation's `trimmingCharacters(in:)` and
/// `replacingOccurrences(of:with:)`, which live in the module that links ICU into the binary:
/// more protocol conformances for each first use of a generic type to scan, more symbols for the
/// dynamic linker to look up at every start, and ICU's data.
extension StringProtocol {
    /// The text without white space (`White_Space`, newlines included, and the zero-width space)
    /// at either end, as `trimmingCharacters(in: .whitespacesAndNewlines)` gives it.
    @inlinable
    public func trimmed() -> String { trimmed { $0.properties.isWhitespace || $0 == "\u{200B}" } }

    /// The text without spaces and tabs at either end, newlines kept, as
    /// `trimmingCharacters(in: .whitespaces)` gives it: the scalars of general category Zs, tab
    /// and the zero-width space.
    @inlinable
    public func trimmedSpaces() -> String {
        trimmed { $0 == "\t" || $0 == "\u{200B}" || $0.properties.generalCategory == .spaceSeparator }
    }

    // Inlinable, so a caller in another module specializes it for String or Substring: the
    // generic form looked associated types and conformances up at run time, a cost out of all
    // proportion to `search`'s one check of its words.
    @usableFromInline
    func trimmed(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        // Sliced by the scalars' indices (String indices), not rebuilt scalar by scalar through
        // UnicodeScalarView's generic append(contentsOf:).
        return String(self[first..<scalars.index(after: last)])
    }

    /// The text with every occurrence of `target`'s UTF-8 bytes replaced by `replacement`, left to
    /// right without overlaps. Bytes, not characters: a quote followed by a combining mark is still
    /// a quote to a shell, so it must still be replaced.
    public func replacingEvery(_ target: String, with replacement: String) -> String {
        let bytes = Array(utf8)
        let needle = Array(target.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return String(self) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var position = 0
        var copied = 0
        while position + needle.count <= bytes.count {
            if bytes[position] == needle[0], bytes[position..<(position + needle.count)].elementsEqual(needle) {
                output += bytes[copied..<position]
                output += replacement.utf8
                position += needle.count
                copied = position
            } else {
                position += 1
            }
        }
        guard copied > 0 else { return String(self) }
        output += bytes[copied...]
        return String(decoding: output, as: UTF8.self)
    }
}

extension Error {
    /// The error as one sentence: a `LocalizedError`'s description; for a file operation's
    /// `CocoaError` or a `POSIXError`, the system's words for the cause ("No such file or
    /// directory"); else its text.
    public var sentence: String {
        if let described = (self as? any LocalizedError)?.errorDescription { return described }
        if let posix = self as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if let cocoa = self as? CocoaError {
            if let underlying = cocoa.underlying { return underlying.sentence }
            return "the file operation failed (error \(cocoa.code.rawValue))"
        }
        return String(describing: self)
    }
}
