import CArchive
import FoundationEssentials
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A zip file: its directory (``ZipDirectory``), and each member's contents decoded by libarchive
/// a piece at a time, from the member's own bytes, stored or compressed, checked against its
/// CRC-32. Nothing is extracted to disk, and a member's contents are never all in memory at once.
///
/// libarchive starts at the member's local header rather than at the start of the file, from where
/// it would walk every header before the member, for each member read: an archive holds thousands
/// of photos.
final class ZipArchive {
    let path: String
    private let fd: Int32
    private let library: LibArchive
    private let directory: ZipDirectory

    /// The members' names, in the directory's order.
    var names: [String] { directory.names }

    /// Opens the zip file at `path`, a regular file, and reads its directory.
    /// - Throws: ``ArchiveError/unreadable(_:reason:)``: a file that cannot be opened, a damaged
    ///   directory, or no libarchive.
    init(path: String) throws(ArchiveError) {
        self.path = path
        let fd: Int32
        switch RegularFile.open(path) {
        case .success(let opened): fd = opened
        case .failure(let refusal): throw .unreadable(path, reason: refusal.description)
        }
        switch LibArchive.shared {
        case .success(let loaded): library = loaded
        case .failure(let missing):
            close(fd)
            throw .unreadable(path, reason: missing.reason)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = FileIO.errnoText()
            close(fd)
            throw .unreadable(path, reason: reason)
        }
        do {
            directory = try ZipDirectory(fd: fd, fileSize: UInt64(info.st_size), path: path)
        } catch {
            close(fd)
            throw .unreadable(path, reason: "it is not a zip file that can be read (\(error.reason))")
        }
        // Last: a throw before this point leaves no half-made object to close the descriptor again.
        self.fd = fd
    }

    deinit { close(fd) }

    /// Whether the file starts as a zip file does.
    static func looksLikeZip(_ path: String) -> Bool {
        // Only a guess at the kind of file: one that cannot be read here is refused as no zip,
        // and a zip that cannot be read is reported by ZipArchive itself.
        guard case .success(let fd) = RegularFile.open(path) else { return false }
        defer { close(fd) }
        let start = (try? FileIO.readBytes(from: fd, offset: 0, count: 4, path: path)) ?? []
        return start == [0x50, 0x4B, 0x03, 0x04] || start == [0x50, 0x4B, 0x05, 0x06]
    }

    /// Hands `name`'s contents to `body` a piece at a time, and checks that they are as long as the
    /// directory says; libarchive checks them against their CRC-32.
    /// - Throws: ``ZipError`` for a member that is missing, damaged, encrypted, compressed in a way
    ///   libarchive does not read, or larger than `maximumBytes`; or what `body` throws.
    func read(_ name: String, maximumBytes: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let entry = directory.entries[name] else { throw ZipError.corrupt("it has no \(name)") }
        // Only what Twitter's archives use: libarchive would decode more, and each decoder is more
        // of it that a hostile file can reach.
        guard entry.flags.allSatisfy({ $0 & 1 == 0 }) else { throw ZipError.corrupt("\(name) is encrypted") }
        if let method = entry.methods.first(where: { $0 != 0 && $0 != 8 }) {
            throw ZipError.corrupt("\(name) is compressed with method \(method), not deflate")
        }
        guard entry.size <= maximumBytes else {
            throw ZipError.corrupt("\(name) is larger than \(maximumBytes >> 20) MiB")
        }
        let bytes = MemberBytes(fd: fd, path: path, from: entry.localHeaderOffset, to: entry.end)
        guard let archive = library.readNew() else { throw ZipError.corrupt("libarchive could not start reading") }
        defer { _ = library.readFree(archive) }
        func failure() -> ZipError {
            if let reason = bytes.failure { return .corrupt("the file could not be read (\(reason))") }
            let message = library.error(archive)
            // libarchive has no code of its own for this one, only its words ("ZIP bad CRC").
            if message.contains("bad CRC") { return .corrupt("\(name) fails its CRC-32 check") }
            return .corrupt("\(name) cannot be read (libarchive: \(message))")
        }
        try withExtendedLifetime(bytes) {
            let client = Unmanaged.passUnretained(bytes).toOpaque()
            guard library.supportFormatZipStreamable(archive) == ARCHIVE_OK,
                library.readOpen(archive, client, nil, { _, client, buffer in MemberBytes.next(client, buffer) }, nil)
                    == ARCHIVE_OK
            else { throw failure() }
            var header: OpaquePointer?
            // A warning here is about the header's name, which the directory gives.
            let status = library.readNextHeader(archive, &header)
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN else { throw failure() }
            var produced: UInt64 = 0
            while true {
                var piece: UnsafeRawPointer?
                var count = 0
                var offset: la_int64_t = 0
                let status = library.readDataBlock(archive, &piece, &count, &offset)
                if status == ARCHIVE_EOF { break }
                guard status == ARCHIVE_OK else { throw failure() }
                produced += UInt64(count)
                // A member that inflates past its declared size is damaged, or a bomb: stop at once.
                guard produced <= entry.size else {
                    throw ZipError.corrupt("\(name) is longer than its directory says")
                }
                try body(UnsafeRawBufferPointer(start: piece, count: count))
            }
            guard produced == entry.size else { throw ZipError.corrupt("\(name) is shorter than its directory says") }
        }
    }
}

/// One member's bytes, from its local header to the next member's data, handed to libarchive by
/// its read callback: whatever the local header claims, libarchive sees no other member's data.
/// (It may see the next member's local header: it looks a little past a member's end, for the
/// record of its sizes that may follow the data.)
private final class MemberBytes {
    private let fd: Int32
    private let path: String
    private var offset: UInt64
    private let end: UInt64
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
    /// Why the file could not be read, when it could not.
    private(set) var failure: String?

    init(fd: Int32, path: String, from offset: UInt64, to end: UInt64) {
        self.fd = fd
        self.path = path
        self.offset = offset
        self.end = end
    }

    deinit { buffer.deallocate() }

    /// libarchive's read callback: the next piece of the member's bytes, 0 at their end, -1 when
    /// the file cannot be read.
    static func next(_ client: UnsafeMutableRawPointer?, _ pointer: UnsafeMutablePointer<UnsafeRawPointer?>?) -> Int {
        guard let client, let pointer else { return -1 }
        let bytes = Unmanaged<MemberBytes>.fromOpaque(client).takeUnretainedValue()
        let count = Int(min(UInt64(bytes.buffer.count), bytes.end - bytes.offset))
        do {
            try FileIO.readExactly(
                from: bytes.fd, into: UnsafeMutableRawBufferPointer(rebasing: bytes.buffer[..<count]),
                offset: Int(bytes.offset), path: bytes.path)
        } catch {
            if case .io(_, let reason) = error as? FileError {
                bytes.failure = reason
            } else {
                bytes.failure = "\(error)"
            }
            return -1
        }
        bytes.offset += UInt64(count)
        pointer.pointee = UnsafeRawPointer(bytes.buffer.baseAddress)
        return count
    }
}
