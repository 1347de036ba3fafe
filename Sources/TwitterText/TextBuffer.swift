import TweetStore

/// A text as an array of Unicode scalars, which the scanners index freely, with the UTF-16 offset
/// of each scalar so that results can be reported the way the conformance suite counts.
struct TextBuffer {
    /// The text's scalars.
    let scalars: [Unicode.Scalar]
    /// `utf16Offsets[i]` is the UTF-16 offset of `scalars[i]`; the last element is the text's
    /// UTF-16 length.
    let utf16Offsets: [Int]

    init(_ text: String) {
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
        let capacity = text.utf8.count
        scalars.reserveCapacity(capacity)
        offsets.reserveCapacity(capacity + 1)
        var offset = 0
        for scalar in text.unicodeScalars {
            scalars.append(scalar)
            offsets.append(offset)
            offset += scalar.value > 0xFFFF ? 2 : 1
        }
        offsets.append(offset)
        self.scalars = scalars
        self.utf16Offsets = offsets
    }

    /// The number of scalars.
    var count: Int { scalars.count }

    /// The scalar at `index`, or `nil` past either end, so scanners can look ahead freely.
    subscript(index: Int) -> Unicode.Scalar? {
        index >= 0 && index < scalars.count ? scalars[index] : nil
    }

    /// The text of a range of scalars.
    func string(_ range: Range<Int>) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(range.count * 4)
        for scalar in scalars[range] {
            UTF8.encode(scalar) { utf8.append($0) }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// A range of scalars as UTF-16 offsets.
    func utf16Range(_ range: Range<Int>) -> Range<Int> {
        utf16Offsets[range.lowerBound]..<utf16Offsets[range.upperBound]
    }

    /// Whether the scalars from `index` on start with `prefix`, ignoring ASCII case.
    /// - Parameter prefix: A lowercase ASCII string.
    func hasPrefix(_ prefix: StaticString, at index: Int) -> Bool {
        let bytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard index >= 0, index + bytes.count <= scalars.count else { return false }
        for (offset, byte) in bytes.enumerated()
        where scalars[index + offset].asciiLowercased.value != UInt32(byte) {
            return false
        }
        return true
    }

    /// Whether any scalar is `scalar`.
    func contains(_ scalar: Unicode.Scalar) -> Bool {
        scalars.contains(scalar)
    }

    /// The end of the run of scalars from `start` that satisfy `predicate`.
    func runEnd(from start: Int, limit: Int = .max, where predicate: (Unicode.Scalar) -> Bool) -> Int {
        var end = start
        let last = min(scalars.count, limit == .max ? scalars.count : start + limit)
        while end < last, predicate(scalars[end]) {
            end += 1
        }
        return end
    }
}
