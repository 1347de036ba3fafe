import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// The local engine's ``StoreChangeWatch``: inotify on the store's directory, woken when a commit
/// appends to the journal or a fold, merge or import replaces the journal or the manifest. The
/// kernel tells every process that watches, so no process has to know another is watching.
final class LocalChangeWatch: StoreChangeWatch {
    let fileDescriptor: Int32
    /// The names whose events mean a change: what a reader of the store reads first.
    private static let names: Set<String> = [StorageEngine.journalName, Manifest.fileName]

    init(directory: String) throws {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw StoreError.cannotOpen(path: directory, reason: "inotify: " + String(cString: strerror(errno)))
        }
        let events = UInt32(IN_MODIFY | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF)
        guard inotify_add_watch(descriptor, directory, events) >= 0 else {
            let number = errno
            close(descriptor)
            // Nothing to watch until `register` or `seed` makes it.
            if number == ENOENT { throw StoreError.noStore(path: directory) }
            throw StoreError.cannotOpen(
                path: directory, reason: "it cannot be watched: " + String(cString: strerror(number)))
        }
        fileDescriptor = descriptor
    }

    deinit { close(fileDescriptor) }

    func drain() throws -> Bool {
        var changed = false
        // Room for many events at once: each is its header and a name of at most NAME_MAX bytes.
        let capacity = 64 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1)
        var buffer = [UInt8](repeating: 0, count: capacity)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, capacity) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return changed }
                throw StoreError.io(path: "the store's change watch", reason: String(cString: strerror(errno)))
            }
            guard count > 0 else { return changed }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (mask, length) = buffer.withUnsafeBytes { bytes in
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.mask, Int(event.len))
                }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                // The directory itself gone or moved: what a view shows can no longer change,
                // and it reads again to say why.
                if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW) != 0 || Self.names.contains(name) {
                    changed = true
                }
                offset += header + length
            }
        }
    }
}
