import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Why a zip file cannot be read: damaged, or a kind this reader does not take.
struct ZipError: Error {
    var reason: String

    static func corrupt(_ reason: String) -> ZipError { ZipError(reason: reason) }
}

/// A zip file (PKWARE's APPNOTE, with ZIP64): its central directory, and each member's contents
/// read a piece at a time, stored or deflated, checked against its size and CRC-32. Nothing is
/// extracted to disk, and a member's contents are never all in memory at once.
final class ZipFile {
    struct Entry {
        var name: String
        var method: UInt16
        var flags: UInt16
        var crc: UInt32
        var compressedSize: UInt64
        var size: UInt64
        var localHeaderOffset: UInt64
    }

    let path: String
    private let fd: Int32
    private let fileSize: UInt64
    /// The members, by name; a name given twice keeps its first entry.
    private(set) var entries: [String: Entry] = [:]
    private(set) var names: [String] = []

    init(path: String) throws(ArchiveError) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .unreadable(path, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw .unreadable(path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .unreadable(path, reason: "it is not a regular file")
        }
        fileSize = UInt64(info.st_size)
        do {
            try readDirectory()
        } catch let error as ZipError {
            close(fd)
            throw .unreadable(path, reason: "it is not a zip file that can be read (\(error.reason))")
        } catch {
            close(fd)
            throw .unreadable(path, reason: "\(error)")
        }
    }

    deinit { close(fd) }

    /// Whether the file starts as a zip file does.
    static func looksLikeZip(_ path: String) -> Bool {
        // Only a guess at the kind of file: one that cannot be read here is refused as no zip,
        // and a zip that cannot be read is reported by ZipFile itself.
        guard case .success(let fd) = RegularFile.open(path) else { return false }
        defer { close(fd) }
        let start = (try? FileIO.readBytes(from: fd, offset: 0, count: 4, path: path)) ?? []
        return start == [0x50, 0x4B, 0x03, 0x04] || start == [0x50, 0x4B, 0x05, 0x06]
    }

    // MARK: Reading bytes

    private func bytes(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset <= fileSize, UInt64(count) <= fileSize - offset else {
            throw ZipError.corrupt("a record points past the end of the file")
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw ZipError.corrupt("the file could not be read") }
            done += got
        }
        return buffer
    }

    // MARK: The central directory

    private func readDirectory() throws {
        // The end record is in the last 22 bytes plus a comment of at most 65,535.
        let tailSize = Int(min(fileSize, 22 + 65_535))
        guard tailSize >= 22 else { throw ZipError.corrupt("it is too short") }
        let tail = try bytes(at: fileSize - UInt64(tailSize), count: tailSize)
        guard
            let end = stride(from: tailSize - 22, through: 0, by: -1).first(where: {
                tail.uint32(at: $0) == 0x0605_4B50
            })
        else { throw ZipError.corrupt("it has no end of central directory record") }
        var count = UInt64(tail.uint16(at: end + 10))
        var directorySize = UInt64(tail.uint32(at: end + 12))
        var directoryOffset = UInt64(tail.uint32(at: end + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // ZIP64: a locator just before the end record points at the 64-bit end record.
            let locatorAt = fileSize - UInt64(tailSize) + UInt64(end)
            guard locatorAt >= 20 else { throw ZipError.corrupt("its ZIP64 locator is missing") }
            let locator = try bytes(at: locatorAt - 20, count: 20)
            guard locator.uint32(at: 0) == 0x0706_4B50 else { throw ZipError.corrupt("its ZIP64 locator is missing") }
            let record = try bytes(at: locator.uint64(at: 8), count: 56)
            guard record.uint32(at: 0) == 0x0606_4B50 else { throw ZipError.corrupt("its ZIP64 end record is missing") }
            count = record.uint64(at: 32)
            directorySize = record.uint64(at: 40)
            directoryOffset = record.uint64(at: 48)
        }
        // Every entry takes at least 46 bytes; a directory of more than 256 MiB is not an archive's.
        guard directorySize <= 256 << 20, count <= directorySize / 46 + 1 else {
            throw ZipError.corrupt("its central directory is implausibly large")
        }
        let directory = try bytes(at: directoryOffset, count: Int(directorySize))
        var at = 0
        for _ in 0..<count {
            guard at + 46 <= directory.count, directory.uint32(at: at) == 0x0201_4B50 else {
                throw ZipError.corrupt("its central directory is damaged")
            }
            let nameLength = Int(directory.uint16(at: at + 28))
            let extraLength = Int(directory.uint16(at: at + 30))
            let commentLength = Int(directory.uint16(at: at + 32))
            let next = at + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { throw ZipError.corrupt("its central directory is damaged") }
            var entry = Entry(
                name: String(decoding: directory[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self),
                method: directory.uint16(at: at + 10), flags: directory.uint16(at: at + 8),
                crc: directory.uint32(at: at + 16), compressedSize: UInt64(directory.uint32(at: at + 20)),
                size: UInt64(directory.uint32(at: at + 24)), localHeaderOffset: UInt64(directory.uint32(at: at + 42)))
            try Self.applyZip64(
                Array(directory[(at + 46 + nameLength)..<(at + 46 + nameLength + extraLength)]), to: &entry)
            if entries[entry.name] == nil {
                entries[entry.name] = entry
                names.append(entry.name)
            }
            at = next
        }
        // Each member's data is its own: entries that overlap (the trick of zip bombs, and a way to
        // have one file read as several) are refused.
        // Each from its local header to the end of its data, as reading it goes.
        var covered: UInt64 = 0
        for entry in entries.values.sorted(by: { $0.localHeaderOffset < $1.localHeaderOffset }) {
            guard entry.localHeaderOffset >= covered else { throw ZipError.corrupt("two of its members overlap") }
            covered = try dataRange(of: entry).upperBound
        }
    }

    /// Where `entry`'s data is: after its local header, whose name and extra field may differ in
    /// length from the central directory's.
    private func dataRange(of entry: Entry) throws -> Range<UInt64> {
        let local = try bytes(at: entry.localHeaderOffset, count: 30)
        guard local.uint32(at: 0) == 0x0403_4B50 else {
            throw ZipError.corrupt("\(entry.name)'s local header is missing")
        }
        let start = entry.localHeaderOffset + 30 + UInt64(local.uint16(at: 26)) + UInt64(local.uint16(at: 28))
        guard start <= fileSize, entry.compressedSize <= fileSize - start else {
            throw ZipError.corrupt("\(entry.name) runs past the end of the file")
        }
        return start..<(start + entry.compressedSize)
    }

    /// The 64-bit sizes and offset of the ZIP64 extra field (0x0001), for the fields whose 32-bit
    /// values are all ones, in the order the format gives them.
    private static func applyZip64(_ extra: [UInt8], to entry: inout Entry) throws {
        var at = 0
        while at + 4 <= extra.count {
            let id = extra.uint16(at: at)
            let length = Int(extra.uint16(at: at + 2))
            guard at + 4 + length <= extra.count else { throw ZipError.corrupt("an extra field is damaged") }
            if id == 0x0001 {
                var field = at + 4
                func next() throws -> UInt64 {
                    guard field + 8 <= at + 4 + length else { throw ZipError.corrupt("a ZIP64 field is short") }
                    defer { field += 8 }
                    return extra.uint64(at: field)
                }
                if entry.size == 0xFFFF_FFFF { entry.size = try next() }
                if entry.compressedSize == 0xFFFF_FFFF { entry.compressedSize = try next() }
                if entry.localHeaderOffset == 0xFFFF_FFFF { entry.localHeaderOffset = try next() }
            }
            at += 4 + length
        }
    }

    // MARK: A member's contents

    /// Hands `name`'s contents to `body` a piece at a time, and checks at the end that they are
    /// as long as the directory says and match its CRC-32.
    /// - Throws: ``ZipError`` for a damaged member, one that is encrypted or compressed in a way
    ///   other than stored or deflated, or one larger than `maximumBytes`.
    func read(_ name: String, maximumBytes: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let entry = entries[name] else { throw ZipError.corrupt("it has no \(name)") }
        guard entry.flags & 1 == 0 else { throw ZipError.corrupt("\(name) is encrypted") }
        guard entry.method == 0 || entry.method == 8 else {
            throw ZipError.corrupt("\(name) is compressed with method \(entry.method), not deflate")
        }
        guard entry.size <= maximumBytes else {
            throw ZipError.corrupt("\(name) is larger than \(maximumBytes >> 20) MiB")
        }
        var offset = try dataRange(of: entry).lowerBound
        let zlib = try Zlib.get()
        let inflater = entry.method == 8 ? try Inflater() : nil
        var crc: UInt32 = 0
        var produced: UInt64 = 0
        func emit(_ piece: UnsafeRawBufferPointer) throws {
            produced += UInt64(piece.count)
            // A member that inflates past its declared size is damaged, or a bomb: stop at once.
            guard produced <= entry.size else { throw ZipError.corrupt("\(name) is longer than its directory says") }
            crc = Inflater.crc32(crc, piece, zlib: zlib)
            try body(piece)
        }
        var remaining = entry.compressedSize
        while remaining > 0 {
            let piece = try bytes(at: offset, count: Int(min(remaining, 1 << 20)))
            offset += UInt64(piece.count)
            remaining -= UInt64(piece.count)
            try piece.withUnsafeBytes { raw in
                if let inflater { try inflater.inflate(raw, emit) } else { try emit(raw) }
            }
        }
        if let inflater, !inflater.finished, entry.size > 0 {
            throw ZipError.corrupt("\(name)'s compressed data ends early")
        }
        guard produced == entry.size else { throw ZipError.corrupt("\(name) is shorter than its directory says") }
        guard crc == entry.crc else { throw ZipError.corrupt("\(name) fails its CRC-32 check") }
    }
}

extension [UInt8] {
    /// Little-endian integers at a byte offset (the caller has checked the bounds).
    fileprivate func uint16(at offset: Int) -> UInt16 { UInt16(self[offset]) | UInt16(self[offset + 1]) << 8 }
    fileprivate func uint32(at offset: Int) -> UInt32 {
        UInt32(uint16(at: offset)) | UInt32(uint16(at: offset + 2)) << 16
    }
    fileprivate func uint64(at offset: Int) -> UInt64 {
        UInt64(uint32(at: offset)) | UInt64(uint32(at: offset + 4)) << 32
    }
}
