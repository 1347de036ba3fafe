import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// Strings compare by their UTF-8 bytes, and only valid UTF-8 becomes a string.
struct ByteOrderTests {
    @Test func stringsCompareByTheirBytes() {
        let words = ["", "a", "ab", "b", "Z", "z", "é", "東京", "\u{1F600}", "a\u{0}b", "abc", "ab\u{7F}"]
        for a in words {
            for b in words {
                let expected: ComparisonResult =
                    Array(a.utf8) == Array(b.utf8)
                    ? .orderedSame
                    : (Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? .orderedAscending : .orderedDescending)
                #expect(ByteOrder.compare(a, b) == expected, "\(a) vs \(b)")
                #expect(ByteOrder.precedes(a, b) == (expected == .orderedAscending))
            }
        }
        // Byte order is not Unicode order: "Z" (0x5A) before "a", "é" (0xC3 0xA9) after "z".
        #expect(ByteOrder.precedes("Z", "a"))
        #expect(ByteOrder.precedes("z", "é"))
        #expect(ByteOrder.precedes("ab", "abc"))
    }

    @Test func pathsCompareAsTheirJoinedText() throws {
        let paths = try [
            "users/u1/likes/x", "users/u10/likes/a", "users/u1/likes/y", "a/b/c/z", "a/b/c/d/e/f", "a/b/c/%2F",
            "a/b/c.d/e", "a/b/c/d/e/0", "tweets/東京", "tweets/t", "tweets/T", "tweet/z",
        ].map { try #require(DocumentPath($0)) }
        for a in paths {
            for b in paths {
                #expect(ByteOrder.comparePaths(a, b) == ByteOrder.compare(a.description, b.description), "\(a) vs \(b)")
            }
        }
    }

    @Test func onlyValidUTF8BecomesAString() {
        let valid: [[UInt8]] = [[], Array("plain".utf8), Array("Café 東京 😀".utf8), [0xEF, 0xBF, 0xBD]]
        for bytes in valid {
            #expect(bytes.withUnsafeBufferPointer(ByteOrder.validString).map { Array($0.utf8) } == bytes)
        }
        let invalid: [[UInt8]] = [
            [0x80],  // a lone continuation byte
            [0xC3],  // a truncated sequence
            [0xC0, 0xAF],  // an overlong "/"
            [0xED, 0xA0, 0x80],  // an encoded surrogate
            [0xF4, 0x90, 0x80, 0x80],  // past U+10FFFF
            [0x61, 0xFF, 0x62],
        ]
        for bytes in invalid {
            #expect(bytes.withUnsafeBufferPointer(ByteOrder.validString) == nil, "\(bytes)")
        }
    }
}
