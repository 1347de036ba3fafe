import TweetStore

/// A JSON line that carries the CRC-32 of its payload: `{"crc":"<8 hex>","<key>":<payload>}`.
/// The checksum covers the payload's exact bytes, so any changed byte is caught, even one that
/// leaves valid JSON.
enum ChecksummedLine {
    static func encode(key: String, payload: [UInt8]) -> [UInt8] {
        let crc = String(CRC32.checksum(payload), radix: 16)
        var line = Array("{\"crc\":\"".utf8)
        line += (String(repeating: "0", count: 8 - crc.count) + crc).utf8
        line += "\",\"\(key)\":".utf8
        line += payload
        line += "}\n".utf8
        return line
    }

    enum Failure: Error {
        case shape
        case checksum
    }

    /// The payload of a line (without its newline), checksum verified: a slice of `line`, with
    /// its indices (not a copy: every command decodes each journal record).
    static func decode(key: String, line: ArraySlice<UInt8>) throws(Failure) -> ArraySlice<UInt8> {
        let prefix = Array("{\"crc\":\"".utf8)
        let middle = Array("\",\"\(key)\":".utf8)
        let headerLength = prefix.count + 8 + middle.count
        let start = line.startIndex
        guard line.count > headerLength + 1, line.starts(with: prefix),
            line[(start + prefix.count + 8)..<(start + headerLength)].elementsEqual(middle),
            line.last == UInt8(ascii: "}")
        else { throw .shape }
        let payload = line[(start + headerLength)..<(line.endIndex - 1)]
        let digits = line[(start + prefix.count)..<(start + prefix.count + 8)]
        guard let stored = UInt32(String(decoding: digits, as: UTF8.self), radix: 16),
            stored == CRC32.checksum(payload)
        else { throw .checksum }
        return payload
    }

    /// The payload of a whole array (see the slice version).
    static func decode(key: String, line: [UInt8]) throws(Failure) -> ArraySlice<UInt8> {
        try decode(key: key, line: line[...])
    }
}
