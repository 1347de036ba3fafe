import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The lock processes take turns with: `flock` on the store's directory itself, which cannot be
/// deleted from under a running process the way a lock file could (deleting `store.lock` while
/// writers ran once let two of them write at once). Waiting is bounded: a holder that has stopped
/// (`kill -STOP`) makes others give up after a few seconds and say which process it is.
enum StoreLock {
    /// How long to wait for another process before giving up.
    static let patience = StoreError.busyAfter

    /// Opens the directory to lock it.
    /// - Throws: ``StoreError/cannotOpen(path:reason:)``.
    static func open(_ directory: String) throws -> FileDescriptor {
        let fd = FileIO.retrying { Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw StoreError.cannotOpen(path: directory, reason: FileIO.errnoText()) }
        return FileDescriptor(fd)
    }

    /// Takes the lock, shared or exclusive, waiting at most ``patience``.
    /// - Throws: ``StoreError/busy(path:holder:)`` when another process keeps it that long.
    static func acquire(_ fd: Int32, exclusive: Bool, directory: String) throws {
        let operation = exclusive ? LOCK_EX : LOCK_SH
        let deadline = Date().addingTimeInterval(patience)
        // Polled, since flock cannot wait with a deadline: often enough that a commit waiting behind
        // another (a few milliseconds of fsyncs) starts within a millisecond of its release, and
        // a try is one system call, so a thousand a second over the whole patience cost nothing.
        var pause: useconds_t = 100
        while flock(fd, operation | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw StoreError.io(path: directory, reason: FileIO.errnoText())
            }
            guard Date() < deadline else { throw StoreError.busy(path: directory, holder: holder(of: fd)) }
            usleep(pause)
            pause = min(pause * 2, 1_000)
        }
    }

    static func release(_ fd: Int32) {
        flock(fd, LOCK_UN)
    }

    /// A process holding a lock on the file `fd` is open on, from /proc/locks: "pid 4242 (tweetcli)".
    static func holder(of fd: Int32) -> String? {
        var status = stat()
        guard fstat(fd, &status) == 0, let locks = FileManager.default.contents(atPath: "/proc/locks") else {
            return nil
        }
        let inode = String(status.st_ino)
        for line in String(decoding: locks, as: UTF8.self).split(separator: "\n") {
            // "1: FLOCK  ADVISORY  WRITE 4242 00:2f:1234 0 EOF"
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK",
                fields[5].split(separator: ":").last.map(String.init) == inode,
                let pid = Int32(fields[4]), pid != getpid()
            else { continue }
            let name = FileManager.default.contents(atPath: "/proc/\(pid)/comm").map {
                String(decoding: $0, as: UTF8.self).trimmed()
            }
            return "pid \(pid)" + (name.map { " (\($0))" } ?? "")
        }
        return nil
    }
}
