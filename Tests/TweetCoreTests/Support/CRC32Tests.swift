import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct CRC32Tests {
    @Test(arguments: [
        ("", UInt32(0)), ("123456789", 0xCBF4_3926), ("a", 0xE8B7_BE43),
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func checksumMatchesTheStandardCheckValues(_ text: String, _ expected: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == expected)
    }
}
