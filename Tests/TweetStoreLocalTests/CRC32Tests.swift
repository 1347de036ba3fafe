import Testing
import TweetCore

@testable import TweetStoreLocal

/// The project's one CRC-32, the engine's, against the standard's check values (computed with
/// zlib's `crc32`, as Python's `zlib.crc32` gives them).
struct CRC32Tests {
    @Test(
        arguments: [
            ([UInt8](), UInt32(0)), (Array("123456789".utf8), 0xCBF4_3926), (Array("a".utf8), 0xE8B7_BE43),
            (Array("The quick brown fox jumps over the lazy dog".utf8), 0x414F_A339),
            ([UInt8](0...255), 0x2905_8C73), ([UInt8](repeating: 0, count: 32), 0x190A_55AD),
            ([UInt8](repeating: 0xFF, count: 32), 0xFF6C_AB0B),
            // Long enough for many eight-byte steps, and a tail of bytes after them.
            ((0..<4).flatMap { _ in [UInt8](0...255) } + Array("tweetcli".utf8), 0x4A64_278C),
        ] as [([UInt8], UInt32)])
    func checksumMatchesTheStandardCheckValues(_ bytes: [UInt8], _ expected: UInt32) {
        #expect(CRC32.checksum(bytes) == expected)
        // Byte at a time (a sequence without contiguous storage) and cut into two pieces too.
        #expect(CRC32.checksum(bytes.lazy.map { $0 }) == expected)
        var running = CRC32.Running()
        running.add(bytes[..<(bytes.count / 3)])
        running.add(bytes[(bytes.count / 3)...])
        #expect(running.value == expected)
    }

    /// Eight bytes at a time (contiguous bytes), byte at a time (any other sequence), and the
    /// checksum built from pieces cut anywhere agree, for every length to 100.
    @Test func everyPathGivesTheSameChecksum() {
        var generator = SplitMix64(seed: 7)
        for length in 0...100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let sliced = CRC32.checksum(bytes)
            #expect(CRC32.checksum(bytes.lazy.map { $0 }) == sliced)
            let cut = length == 0 ? 0 : Int.random(in: 0...length, using: &generator)
            var running = CRC32.Running()
            running.add(bytes[..<cut])
            running.add(bytes[cut...])
            #expect(running.value == sliced)
        }
    }
}
