import TweetStore

/// CRC-32 (IEEE 802.3, the zlib polynomial): a checksum that catches damaged records.
/// It guards against accidents, not attackers, so it is not cryptography.
enum CRC32 {
    /// Eight tables for "slicing by 8" (Intel's method): table k gives the CRC of a byte followed
    /// by k zero bytes, so eight bytes are folded in with eight lookups instead of eight rounds.
    /// Byte at a time, checksums were a large share of an archive import's time.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        tables.withUnsafeMutableBufferPointer { table in
            // A CRC without its initial and final inversion is linear: a byte's entry is the XOR of
            // its bits' entries, so only the eight single bits take the eight rounds. Every command
            // builds these tables before its first checksum, and eight rounds for each of the 256
            // bytes, through the array's checked subscript, made even `whoami` noticeably slower.
            for bit in 0..<8 {
                var value = UInt32(1) << bit
                for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
                table[1 << bit] = value
            }
            for index in 1..<256 where index & (index - 1) != 0 {
                table[index] = table[index & (index - 1)] ^ table[index & -index]
            }
            for slice in 1..<8 {
                for index in 0..<256 {
                    let previous = table[(slice - 1) * 256 + index]
                    table[slice * 256 + index] = (previous >> 8) ^ table[Int(previous & 0xFF)]
                }
            }
        }
        return tables
    }()

    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var running = Running()
        running.add(bytes)
        return running.value
    }

    /// A checksum computed piece by piece, for bytes written as they come.
    struct Running {
        private var crc: UInt32 = 0xFFFF_FFFF

        mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            if bytes.withContiguousStorageIfAvailable({ add(buffer: $0) }) != nil { return }
            CRC32.tables.withUnsafeBufferPointer { table in
                for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            }
        }

        private mutating func add(buffer bytes: UnsafeBufferPointer<UInt8>) {
            CRC32.tables.withUnsafeBufferPointer { table in
                var crc = self.crc
                var index = 0
                func word(_ at: Int) -> UInt32 {
                    UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
                        | UInt32(bytes[at + 3]) << 24
                }
                while index + 8 <= bytes.count {
                    let low = crc ^ word(index)
                    let high = word(index + 4)
                    crc =
                        table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                        ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                        ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                        ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                    index += 8
                }
                while index < bytes.count {
                    crc = table[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                    index += 1
                }
                self.crc = crc
            }
        }

        var value: UInt32 { crc ^ 0xFFFF_FFFF }
    }
}
