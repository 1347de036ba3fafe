import TweetStore

/// CRC-32 (IEEE 802.3, the zlib polynomial): a checksum that catches damaged records.
/// It guards against accidents, not attackers, so it is not cryptography.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var running = Running()
        running.add(bytes)
        return running.value
    }

    /// A checksum computed piece by piece, for bytes written as they come.
    struct Running {
        private var crc: UInt32 = 0xFFFF_FFFF

        mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            for byte in bytes { crc = CRC32.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }

        var value: UInt32 { crc ^ 0xFFFF_FFFF }
    }
}
