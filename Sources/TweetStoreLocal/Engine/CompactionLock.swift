import FoundationEssentials
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// What lets one compaction run at a time: `flock` on `compaction.lock` in the store's directory
/// (the store's own lock is on the directory, and is for readers and writers), taken without
/// waiting: a compaction that finds another one running leaves the work to it.
///
/// A compaction writes its merge as `compaction-PID.jsonl` and `.idx`, names no segment ever has,
/// so that nothing else deletes them while it works; holding the lock, it removes those of a
/// compaction that was killed. Even if the lock file were deleted and two ran at once, each
/// commit checks that its inputs are still in the manifest, so the second would only be dropped.
enum CompactionLock {
    static let fileName = "compaction.lock"
    private static let outputPrefix = "compaction-"

    /// The lock, or `nil` when another process holds it.
    /// - Throws: ``StoreError/io(path:reason:)`` when the lock file cannot be opened or locked.
    static func acquire(_ directory: String) throws -> FileDescriptor? {
        let path = PathName.join(directory, fileName)
        let fd = FileIO.retrying { open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw StoreError.io(path: path, reason: FileIO.errnoText()) }
        let descriptor = FileDescriptor(fd)
        guard FileIO.retrying({ flock(fd, LOCK_EX | LOCK_NB) }) == 0 else {
            if errno == EWOULDBLOCK { return nil }
            throw StoreError.io(path: path, reason: FileIO.errnoText())
        }
        return descriptor
    }

    static func release(_ descriptor: FileDescriptor) {
        flock(descriptor.fd, LOCK_UN)
    }

    /// The name a compaction's merge is written under until its commit renames it.
    static func outputName(pid: Int32) -> String { outputPrefix + String(pid) }

    /// Whether `name` is exactly a compaction's data or index file (`compaction-4242.jsonl`).
    static func isOutputFileName(_ name: String) -> Bool {
        let parts = name.split(separator: ".")
        guard parts.count == 2, parts[1] == "jsonl" || parts[1] == "idx", parts[0].hasPrefix(outputPrefix) else {
            return false
        }
        let digits = parts[0].dropFirst(outputPrefix.count)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Removes the files of compactions that did not finish (killed, or failed): called holding
    /// the lock, so no compaction is writing any of them.
    static func removeAbandonedOutputs(_ directory: String) {
        // Best effort: files left now are removed by the next compaction.
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where isOutputFileName(name) { unlink(PathName.join(directory, name)) }
    }
}
