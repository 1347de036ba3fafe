import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What lets one compaction of each kind run at a time: `flock` on its lock file in the store's
/// directory (the store's own lock is on the directory, and is for readers and writers), taken
/// without waiting: a compaction that finds another one of its kind running leaves it the work.
///
/// The two kinds run side by side: a fold of the journal never waits for a merge, which can take
/// seconds, and the two commit different changes to the manifest (a segment added as the newest;
/// two neighbours replaced by one), each checked under the exclusive lock against the manifest
/// it finds there.
///
/// A compaction writes its output as `fold-PID` or `compaction-PID` (`.jsonl` and `.idx`), names no
/// segment ever has, so that nothing else deletes them while it works; holding its lock, it removes
/// those of its kind a killed compaction left. Even if a lock file were deleted and two ran at once,
/// each commit checks that its inputs are still what the manifest has, so the second would only be
/// dropped.
enum CompactionLock {
    enum Kind {
        /// Folding the journal into a new segment.
        case fold
        /// Merging two neighbouring segments into one.
        case merge
        /// A bulk write's produced documents (``LocalDocumentStore/bulkWrite(produce:finish:)``):
        /// one at a time, so that each finds only abandoned outputs of its kind.
        case bulk

        var fileName: String {
            switch self {
            case .fold: "fold.lock"
            case .merge: "compaction.lock"
            case .bulk: "import.lock"
            }
        }

        var outputPrefix: String {
            switch self {
            case .fold: "fold-"
            case .merge: "compaction-"
            case .bulk: "import-"
            }
        }
    }

    /// The lock, or `nil` when another process holds it.
    /// - Throws: ``StoreError/io(path:reason:)`` when the lock file cannot be opened or locked.
    static func acquire(_ directory: String, _ kind: Kind) throws -> FileDescriptor? {
        let path = PathName.join(directory, kind.fileName)
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

    /// The name a compaction's output is written under until its commit renames it.
    static func outputName(_ kind: Kind, pid: Int32) -> String { kind.outputPrefix + String(pid) }

    /// Whether `name` is exactly the data or index file of a compaction of `kind` (`compaction-4242.jsonl`).
    static func isOutputFileName(_ name: String, _ kind: Kind) -> Bool {
        let parts = name.split(separator: ".")
        guard parts.count == 2, parts[1] == "jsonl" || parts[1] == "idx", parts[0].hasPrefix(kind.outputPrefix) else {
            return false
        }
        let digits = parts[0].dropFirst(kind.outputPrefix.count)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Removes the files of compactions of `kind` that did not finish (killed, or failed): called
    /// holding that kind's lock, so no compaction is writing any of them.
    static func removeAbandonedOutputs(_ directory: String, _ kind: Kind) {
        // Best effort: files left now are removed by the next compaction.
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where isOutputFileName(name, kind) { unlink(PathName.join(directory, name)) }
    }
}
