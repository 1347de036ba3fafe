import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Opening a file that someone else named (an archive's member folder, a followed feed): for
/// reading, without blocking, and only if it is a regular file, since a FIFO or a device named
/// there would hang the command or never end.
package enum RegularFile {
    /// Why a file could not be opened, in words for an error message.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// A descriptor open for reading on `path` (the caller closes it), or why there is none.
    package static func open(_ path: String) -> Result<Int32, Refusal> {
        // A signal that interrupts the open is no reason to fail: it is tried again.
        let fd = FileIO.retrying { Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return .failure(Refusal(description: String(cString: strerror(errno)))) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return .failure(Refusal(description: "it is not a regular file"))
        }
        return .success(fd)
    }
}
