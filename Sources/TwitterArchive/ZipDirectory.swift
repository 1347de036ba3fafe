import TweetSystem

/// Why a zip file cannot be read: damaged, or a kind this reader does not take.
struct ZipError: Error {
    var reason: String

    static func corrupt(_ reason: String) -> ZipError { ZipError(reason: reason) }
}

/// A zip file's central directory (PKWARE's APPNOTE, with ZIP64): where each member is, checked so
/// that no two members share their data.
///
/// Read here, not by libarchive, which decodes the members: libarchive's reading of it merges
/// entries that point at one local header and reads a member hidden inside another one's data (the
/// tricks of zip bombs, and ways to have one file read as several), and shows its caller no offset
/// or compressed size to check them with.
struct ZipDirectory {
    struct Entry {
        var name: String
        var compressedSize: UInt64
        var size: UInt64
        var localHeaderOffset: UInt64
        /// The compression methods and general-purpose flags of the central directory and of the
        /// member's local header (which libarchive reads): both must be stored or deflated, and
        /// neither encrypted.
        var methods: [UInt16] = []
        var flags: [UInt16] = []
        /// Where the next member's data starts, or the file ends: libarchive is handed the bytes
        /// from this member's local header to there, so none of another member's data.
        var end: UInt64 = 0
    }

    /// The members, by name; a name given twice keeps its first entry.
    private(set) var entries: [String: Entry] = [:]
    /// Their names, in the directory's order.
    private(set) var names: [String] = []

    private let fd: Int32
    private let fileSize: UInt64
    private let path: String

    /// Reads the directory of the zip file open on `fd`.
    /// - Throws: ``ZipError`` for a directory that is damaged, or members that overlap.
    init(fd: Int32, fileSize: UInt64, path: String) throws(ZipError) {
        self.fd = fd
        self.fileSize = fileSize
        self.path = path
        try readEntries()
        // Each member's data is its own: entries that overlap are refused. Each runs from its
        // local header to the end of its data, as reading it goes.
        var covered: UInt64 = 0
        var previous: String?
        for entry in entries.values.sorted(by: { $0.localHeaderOffset < $1.localHeaderOffset }) {
            guard entry.localHeaderOffset >= covered else { throw .corrupt("two of its members overlap") }
            let (start, method, flags) = try dataStart(of: entry)
            entries[entry.name]?.methods.append(method)
            entries[entry.name]?.flags.append(flags)
            if let previous { entries[previous]?.end = start }
            previous = entry.name
            covered = start + entry.compressedSize
        }
        if let previous { entries[previous]?.end = fileSize }
    }

    private func bytes(at offset: UInt64, count: Int) throws(ZipError) -> [UInt8] {
        guard offset <= fileSize, UInt64(count) <= fileSize - offset else {
            throw .corrupt("a record points past the end of the file")
        }
        do {
            return try FileIO.readBytes(from: fd, offset: Int(offset), count: count, path: path)
        } catch {
            throw .corrupt("the file could not be read")
        }
    }

    private mutating func readEntries() throws(ZipError) {
        // The end record is in the last 22 bytes plus a comment of at most 65,535.
        let tailSize = Int(min(fileSize, 22 + 65_535))
        guard tailSize >= 22 else { throw .corrupt("it is too short") }
        let tail = try bytes(at: fileSize - UInt64(tailSize), count: tailSize)
        guard
            let end = stride(from: tailSize - 22, through: 0, by: -1).first(where: {
                tail.uint32(at: $0) == 0x0605_4B50
            })
        else { throw .corrupt("it has no end of central directory record") }
        var count = UInt64(tail.uint16(at: end + 10))
        var directorySize = UInt64(tail.uint32(at: end + 12))
        var directoryOffset = UInt64(tail.uint32(at: end + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // ZIP64: a locator just before the end record points at the 64-bit end record.
            let locatorAt = fileSize - UInt64(tailSize) + UInt64(end)
            guard locatorAt >= 20 else { throw .corrupt("its ZIP64 locator is missing") }
            let locator = try bytes(at: locatorAt - 20, count: 20)
            guard locator.uint32(at: 0) == 0x0706_4B50 else { throw .corrupt("its ZIP64 locator is missing") }
            let record = try bytes(at: locator.uint64(at: 8), count: 56)
            guard record.uint32(at: 0) == 0x0606_4B50 else { throw .corrupt("its ZIP64 end record is missing") }
            count = record.uint64(at: 32)
            directorySize = record.uint64(at: 40)
            directoryOffset = record.uint64(at: 48)
        }
        // Every entry takes at least 46 bytes; a directory of more than 256 MiB is not an archive's.
        guard directorySize <= 256 << 20, count <= directorySize / 46 + 1 else {
            throw .corrupt("its central directory is implausibly large")
        }
        let directory = try bytes(at: directoryOffset, count: Int(directorySize))
        var at = 0
        for _ in 0..<count {
            guard at + 46 <= directory.count, directory.uint32(at: at) == 0x0201_4B50 else {
                throw .corrupt("its central directory is damaged")
            }
            let nameLength = Int(directory.uint16(at: at + 28))
            let extraLength = Int(directory.uint16(at: at + 30))
            let commentLength = Int(directory.uint16(at: at + 32))
            let next = at + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { throw .corrupt("its central directory is damaged") }
            var entry = Entry(
                name: String(decoding: directory[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self),
                compressedSize: UInt64(directory.uint32(at: at + 20)), size: UInt64(directory.uint32(at: at + 24)),
                localHeaderOffset: UInt64(directory.uint32(at: at + 42)), methods: [directory.uint16(at: at + 10)],
                flags: [directory.uint16(at: at + 8)])
            try Self.applyZip64(
                Array(directory[(at + 46 + nameLength)..<(at + 46 + nameLength + extraLength)]), to: &entry)
            if entries[entry.name] == nil {
                entries[entry.name] = entry
                names.append(entry.name)
            }
            at = next
        }
    }

    /// Where `entry`'s data starts: after its local header, whose name and extra field may differ
    /// in length from the central directory's; and the local header's method and flags.
    private func dataStart(of entry: Entry) throws(ZipError) -> (UInt64, method: UInt16, flags: UInt16) {
        let local = try bytes(at: entry.localHeaderOffset, count: 30)
        guard local.uint32(at: 0) == 0x0403_4B50 else { throw .corrupt("\(entry.name)'s local header is missing") }
        let start = entry.localHeaderOffset + 30 + UInt64(local.uint16(at: 26)) + UInt64(local.uint16(at: 28))
        guard start <= fileSize, entry.compressedSize <= fileSize - start else {
            throw .corrupt("\(entry.name) runs past the end of the file")
        }
        return (start, local.uint16(at: 8), local.uint16(at: 6))
    }

    /// The 64-bit sizes and offset of the ZIP64 extra field (0x0001), for the fields whose 32-bit
    /// values are all ones, in the order the format gives them.
    private static func applyZip64(_ extra: [UInt8], to entry: inout Entry) throws(ZipError) {
        var at = 0
        while at + 4 <= extra.count {
            let id = extra.uint16(at: at)
            let length = Int(extra.uint16(at: at + 2))
            guard at + 4 + length <= extra.count else { throw .corrupt("an extra field is damaged") }
            if id == 0x0001 {
                var field = at + 4
                func next() throws(ZipError) -> UInt64 {
                    guard field + 8 <= at + 4 + length else { throw .corrupt("a ZIP64 field is short") }
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
