import FoundationEssentials
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Files of tweetcli's caches (`$XDG_CACHE_HOME/tweetcli/…`): folders of mode 0700, and files
/// written whole to a name of this process's own, then renamed into place. Best effort: a cache
/// that cannot be written leaves the command as it was, and costs only time later.
enum CacheFiles {
    /// Makes `directory` (0700) and the folders above it.
    static func makeDirectory(_ directory: String) {
        if mkdir(directory, 0o700) != 0, errno == ENOENT {
            // The cache's folders first; if they cannot be made, what is written next fails quietly.
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    /// Puts `bytes` at `path` in `directory`, whole or not at all.
    static func replace(_ path: String, with bytes: [UInt8], in directory: String) {
        makeDirectory(directory)
        let temporary = path + ".\(getpid()).tmp"
        let fd = FileIO.createExclusive(temporary)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // A write that fails leaves nothing behind: the temporary file goes.
        guard (try? FileIO.writeAll(fd, bytes, path: temporary)) != nil, rename(temporary, path) == 0 else {
            unlink(temporary)
            return
        }
    }
}
