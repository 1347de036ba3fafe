import FoundationEssentials
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A random secret of this device, kept beside the session files (mode 0600) and never in a
/// store: what tells a record this device wrote from one someone else put in the store (a merged
/// backup, another machine on the same server). A local twtxt feed is followed with a proof made
/// from it, so that a planted follow can never make `feed --following` read a file it chose.
struct DeviceKey: Sendable {
    /// The file that holds the key.
    let path: String

    /// The key beside the session file at `sessionPath`.
    init(besideSession sessionPath: String) {
        path = PathName.join(PathName.parent(sessionPath), "device.key")
    }

    /// The proof that this device's user `uid` chose `text`: the keyed hash of both, which nobody
    /// without the key can make.
    /// - Parameter creating: whether a missing key is made (following), or means no proof (reading).
    /// - Returns: `nil` when there is no key and `creating` is false.
    func proof(of text: String, for uid: String, creating: Bool) throws -> String? {
        guard let key = try read() ?? (creating ? try make() : nil) else { return nil }
        return try PasswordHasher.tokenName(key + "\n" + uid + "\n" + text)
    }

    /// The key, or `nil` when there is none yet.
    private func read() throws -> String? {
        // Only a regular file: a FIFO there must not hang the command.
        guard let bytes = try FileIO.readFile(path) else { return nil }
        let key = String(decoding: bytes, as: UTF8.self).trimmed()
        guard key.utf8.count == 64, key.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { throw FileError.io(path: path, reason: "it is not a device key") }
        return key
    }

    /// Makes the key: 256 random bits written to a file of its own, then linked into place, which
    /// fails if another process made one first (then that one is the key).
    private func make() throws -> String {
        let directory = PathName.parent(path)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var generator = SystemRandomNumberGenerator()
        let key = (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        let temporary = path + ".new-\(getpid())"
        let fd = FileIO.createExclusive(temporary)
        guard fd >= 0 else { throw FileError.io(path: temporary, reason: FileIO.errnoText()) }
        defer { unlink(temporary) }
        do {
            defer { close(fd) }
            try FileIO.writeAll(fd, Array((key + "\n").utf8), path: temporary)
            guard FileIO.retrying({ fsync(fd) }) == 0 else {
                throw FileError.io(path: temporary, reason: FileIO.errnoText())
            }
        }
        if link(temporary, path) == 0 { return key }
        guard errno == EEXIST, let made = try read() else { throw FileError.io(path: path, reason: FileIO.errnoText()) }
        return made
    }
}
