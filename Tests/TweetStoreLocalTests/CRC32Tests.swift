import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal
@testable import TwitterArchive

struct CRC32Tests {
    @Test(arguments: [
        ("", UInt32(0)), ("123456789", 0xCBF4_3926), ("a", 0xE8B7_BE43),
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func checksumMatchesTheStandardCheckValues(_ text: String, _ expected: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == expected)
    }

    /// Eight bytes at a time (contiguous bytes), byte at a time (any other sequence), zlib's own
    /// crc32, and the checksum built from pieces cut anywhere agree, for every length to 100.
    @Test func everyPathGivesZlibsChecksum() throws {
        var generator = SplitMix64(seed: 7)
        let zlib = try Zlib.get()
        for length in 0...100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let sliced = CRC32.checksum(bytes)
            #expect(CRC32.checksum(bytes.lazy.map { $0 }) == sliced)
            #expect(bytes.withUnsafeBytes { Inflater.crc32(0, $0, zlib: zlib) } == sliced)
            let cut = length == 0 ? 0 : Int.random(in: 0...length, using: &generator)
            var running = CRC32.Running()
            running.add(bytes[..<cut])
            running.add(bytes[cut...])
            #expect(running.value == sliced)
        }
    }
}
