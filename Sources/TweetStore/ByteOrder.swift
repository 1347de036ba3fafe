import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Byte order on UTF-8, the order the store sorts strings in (as Firestore does): one `memcmp`,
/// where `String.utf8.lexicographicallyPrecedes` walks an iterator byte by byte.
package enum ByteOrder {
    package static func compare(_ a: String, _ b: String) -> ComparisonResult {
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in compare(x, y) } }
    }

    package static func compare(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> ComparisonResult {
        let shared = min(x.count, y.count)
        if shared > 0, let left = x.baseAddress, let right = y.baseAddress {
            let order = memcmp(left, right, shared)
            if order != 0 { return order < 0 ? .orderedAscending : .orderedDescending }
        }
        return x.count == y.count ? .orderedSame : (x.count < y.count ? .orderedAscending : .orderedDescending)
    }

    /// Compares two documents' full paths (`collection/documentID`, the ``Query/documentID``
    /// order) without joining them: by collection when neither collection is a prefix of the
    /// other, which is every query over one collection.
    static func comparePaths(_ a: DocumentPath, _ b: DocumentPath) -> ComparisonResult {
        if a.collection == b.collection { return compare(a.documentID, b.documentID) }
        var first = a.collection
        var second = b.collection
        let prefixed = first.withUTF8 { x in
            second.withUTF8 { y in
                let shared = min(x.count, y.count)
                return shared == 0 || memcmp(x.baseAddress!, y.baseAddress!, shared) == 0
            }
        }
        // Collections that differ before either ends order their paths; otherwise join them.
        return prefixed ? compare(a.description, b.description) : compare(first, second)
    }

    /// Whether `a` sorts before `b`.
    package static func precedes(_ a: String, _ b: String) -> Bool { compare(a, b) == .orderedAscending }

    /// `bytes` as a string if they are valid UTF-8, else nil: decoding repairs invalid UTF-8 with
    /// U+FFFD, so the input was valid exactly when the decoded bytes are the input's. (The
    /// standard library's `String(validating:as:)` is generic and costs ten times as much.)
    static func validString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var string = String(decoding: bytes, as: UTF8.self)
        let unchanged = string.withUTF8 { compare($0, bytes) == .orderedSame }
        return unchanged ? string : nil
    }
}
