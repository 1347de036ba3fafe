import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Why a file operation failed: the file and the system's words.
package enum FileError: Error, Equatable {
    /// The file could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// Reading or writing it failed.
    case io(path: String, reason: String)
}

/// The few POSIX file operations tweetcli needs, each retried after EINTR, with errors as ``FileError``.
package enum FileIO {
    package static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Runs a system call again for as long as a signal interrupts it (EINTR), as every call the
    /// store makes is run.
    @discardableResult
    package static func retrying(_ call: () -> Int32) -> Int32 {
        var result: Int32
        repeat { result = call() } while result < 0 && errno == EINTR
        return result
    }

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var done = 0
        try bytes.withUnsafeBytes { buffer in
            while done < buffer.count {
                let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw FileError.io(path: path, reason: errnoText()) }
                done += n
            }
        }
    }

    package static func readBytes(from fd: Int32, offset: Int, count: Int, path: String) throws -> [UInt8] {
        // Uninitialized, then filled by pread: zeroing first cost as much as the reads themselves.
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try readExactly(from: fd, into: UnsafeMutableRawBufferPointer(buffer), offset: offset, path: path)
            initialized = count
        }
    }

    /// Fills `buffer` with the file's bytes from `offset`, or throws (an end of file too soon is an error).
    package static func readExactly(
        from fd: Int32, into buffer: UnsafeMutableRawBufferPointer, offset: Int, path: String
    ) throws {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw FileError.io(path: path, reason: n == 0 ? "unexpected end of file" : errnoText())
            }
            done += n
        }
    }

    /// The reason ``openRegular(_:_:)`` gives for a FIFO, a device or a folder.
    package static let notRegular = "it is not a regular file"

    /// Opens a file the store reads or appends to, refusing anything but a regular file: a FIFO or
    /// a device where a store file should be is an error, never a hang (O_NONBLOCK makes the open
    /// itself return, and fstat says what it is).
    /// - Returns: The descriptor, or `nil` when there is no file.
    /// - Throws: ``FileError/cannotOpen(path:reason:)``.
    package static func openRegular(_ path: String, _ flags: Int32) throws -> Int32? {
        let fd = retrying { open(path, flags | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw FileError.cannotOpen(path: path, reason: errnoText())
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw FileError.cannotOpen(path: path, reason: errnoText())
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileError.cannotOpen(path: path, reason: notRegular)
        }
        // O_NONBLOCK stays: on a regular file it changes nothing, and clearing it costs two calls.
        return fd
    }

    /// Creates a new file for the store's own writing: never through a symlink and never one that
    /// is already there (O_EXCL | O_NOFOLLOW), so nobody can point it at another file. A stale copy
    /// left by a crash is removed first (unlink removes a link, not what it points to).
    package static func createExclusive(_ path: String) -> Int32 {
        unlink(path)  // Nothing there is the usual case.
        return retrying { open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
    }

    /// The whole file at `path`, or `nil` when there is none.
    package static func readFile(_ path: String) throws -> [UInt8]? {
        guard let fd = try openRegular(path, O_RDONLY) else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError.io(path: path, reason: errnoText()) }
        return info.st_size == 0 ? [] : try readBytes(from: fd, offset: 0, count: Int(info.st_size), path: path)
    }

    /// Writes `contents` to `path` so that readers see the old file or the new one, never a mix:
    /// a temporary file, fsync, rename, and an fsync of the directory.
    package static func replaceAtomically(path: String, contents: [UInt8], directory: String) throws {
        let temporary = path + ".new"
        let fd = createExclusive(temporary)
        guard fd >= 0 else { throw FileError.io(path: temporary, reason: errnoText()) }
        defer { close(fd) }
        try writeAll(fd, contents, path: temporary)
        guard retrying({ fsync(fd) }) == 0, retrying({ rename(temporary, path) }) == 0 else {
            throw FileError.io(path: path, reason: errnoText())
        }
        syncDirectory(directory)
    }

    /// Deletes a large file a few megabytes at a time: cut from its end, each cut synced, then
    /// unlinked. On ext4 mounted with `discard`, as this machine's disk is, unlinking a file of
    /// hundreds of megabytes frees all its blocks in one journal commit, and another process's
    /// fsync of a few bytes made meanwhile waits for it (`Scripts/unlink-stall.py` shows the wait,
    /// and how much shorter it is beside a file cut a step at a time). Best effort, like any removal
    /// of a file nothing reads: what is left goes at the next try.
    /// - Parameter step: bytes cut at a time.
    package static func removeGradually(_ path: String, step: Int = 4 << 20) {
        let fd = retrying { open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        if fd >= 0 {
            defer { close(fd) }
            var info = stat()
            // Each cut from the size it finds, so that two removals of one file never lengthen it.
            while fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 {
                guard retrying({ ftruncate(fd, max(0, info.st_size - off_t(step))) }) == 0 else { break }
                _ = retrying { fsync(fd) }
            }
        }
        unlink(path)
    }

    package static func syncDirectory(_ path: String) {
        let fd = retrying { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { return }
        _ = retrying { fsync(fd) }  // Best effort: some file systems refuse fsync on directories.
        close(fd)
    }

    /// What tells one version of a file from another: inode, size and modification time.
    package struct Stamp: Equatable {
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
        /// No file.
        package static let missing = Stamp(inode: 0, size: -1, seconds: 0, nanoseconds: 0)
    }

    /// The stamp of the file at `path`, or `.missing` when there is none.
    package static func stamp(of path: String) -> Stamp {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        return Stamp(
            inode: UInt64(info.st_ino), size: Int64(info.st_size), seconds: Int(info.st_mtim.tv_sec),
            nanoseconds: Int(info.st_mtim.tv_nsec))
    }

    /// The inode of the file at `path`, or `nil` when there is none.
    package static func inode(of path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }
}

/// A file descriptor closed when the last reference goes.
package final class FileDescriptor: Sendable {
    package let fd: Int32

    package init(_ fd: Int32) {
        self.fd = fd
    }

    deinit { close(fd) }
}
