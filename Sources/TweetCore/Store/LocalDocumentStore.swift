import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The local engine: every committed transaction is one checksummed line appended to a JSON Lines
/// journal in the store's directory, and the documents are the journal replayed.
///
/// - A transaction holds an exclusive `flock` on `store.lock` from its first read to its fsync, so
///   concurrent `tweetcli` processes are serialised and none loses a write.
/// - A write is acknowledged only after its whole line, newline included, is fsynced; a crash
///   mid-append leaves a line without a newline, which readers ignore and the next writer moves
///   to a side file before appending.
/// - Readers hold a shared lock while they catch up with lines appended since their last read.
///
/// docs/STORAGE.md describes the format.
public actor LocalDocumentStore: DocumentStore {
    /// The store's directory.
    public nonisolated let directory: String
    private var journal: Journal

    /// Opens the store in `directory`, creating it (mode 0700) when it does not exist yet.
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` or a format error naming the file.
    /// - Parameters:
    ///   - directory: the store's directory.
    ///   - clock: the store's clock, which stamps each transaction (injectable for tests).
    public init(directory: String, clock: @escaping @Sendable () -> Date = Date.init) throws {
        self.directory = directory
        journal = try Journal(directory: directory, clock: clock)
    }

    // MARK: DocumentStore

    public func getDocument(_ path: DocumentPath) async throws -> DocumentSnapshot? {
        try journal.locked(exclusive: false) { documents in
            documents.document(at: path).map { DocumentSnapshot(path: path, data: $0) }
        }
    }

    public func getDocuments(_ paths: [DocumentPath]) async throws -> [DocumentSnapshot] {
        try journal.locked(exclusive: false) { documents in
            paths.compactMap { path in documents.document(at: path).map { DocumentSnapshot(path: path, data: $0) } }
        }
    }

    public func runQuery(_ query: Query) async throws -> [DocumentSnapshot] {
        try journal.locked(exclusive: false) { documents in documents.query(query) }
    }

    public func count(_ query: Query) async throws -> Int {
        try journal.locked(exclusive: false) { documents in
            query.orders.isEmpty && query.limit == nil && query.startAfter == nil
                ? documents.candidates(for: query).lazy.filter(query.matches).count
                : documents.query(query).count
        }
    }

    public func runTransaction<T: Sendable>(_ body: @Sendable (Transaction) throws -> T) async throws -> T {
        try journal.transaction(body)
    }

    /// Writes every document as JSON Lines, `{"data":{…},"path":"collection/id"}` in path order,
    /// to the open file descriptor `output` (a backup, or input for another database).
    public func export(to output: Int32) async throws {
        try journal.locked(exclusive: false) { documents in
            var buffer: [UInt8] = []
            for snapshot in documents.allDocuments() {
                JSONValue.object(["path": .string(snapshot.path.description), "data": .object(snapshot.data)])
                    .write(into: &buffer)
                buffer.append(0x0A)
                if buffer.count >= 1 << 16 {
                    try Journal.writeAll(output, buffer, path: "the export")
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try Journal.writeAll(output, buffer, path: "the export")
        }
    }
}

/// The journal file, its lock and the documents replayed from it.
struct Journal {
    /// The journal's first line: names the format and its version.
    static let formatName = "tweetcli-store"
    static let formatVersion: Int64 = 1
    static let journalName = "journal.jsonl"
    static let lockName = "store.lock"

    let directory: String
    let journalPath: String
    private let clock: @Sendable () -> Date
    private let documents = DocumentCache()
    /// Closes both descriptors when the last copy of the journal goes away.
    private let files: OpenFiles
    private var journal: Int32 { files.journal }
    private var lock: Int32 { files.lock }
    /// Bytes and lines of the journal applied to `documents`.
    private var offset = 0
    private var lineCount = 0
    private var sequence: Int64 = 0
    /// The time of the last record, so the clock never runs backwards across records.
    private var lastTime = Date.distantPast

    init(directory: String, clock: @escaping @Sendable () -> Date) throws {
        self.directory = directory
        self.clock = clock
        journalPath = (directory as NSString).appendingPathComponent(Self.journalName)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError.cannotOpen(path: directory, reason: "cannot create the directory")
        }
        let lockPath = (directory as NSString).appendingPathComponent(Self.lockName)
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw StoreError.cannotOpen(path: lockPath, reason: Self.errnoText()) }
        guard flock(lock, LOCK_EX) == 0 else {
            Glibc.close(lock)
            throw StoreError.cannotOpen(path: lockPath, reason: Self.errnoText())
        }
        defer { flock(lock, LOCK_UN) }
        let journal: Int32
        do {
            journal = try Self.openJournal(at: journalPath, directory: directory)
        } catch {
            Glibc.close(lock)
            throw error
        }
        files = OpenFiles(journal: journal, lock: lock)
        try catchUp(exclusive: true)
    }

    /// Runs `body` under the store's file lock, after catching up with other processes' writes.
    mutating func locked<T>(exclusive: Bool, _ body: (DocumentCache) throws -> T) throws -> T {
        guard flock(lock, exclusive ? LOCK_EX : LOCK_SH) == 0 else {
            throw StoreError.io(path: directory, reason: "cannot lock the store: \(Self.errnoText())")
        }
        defer { flock(lock, LOCK_UN) }
        try catchUp(exclusive: exclusive)
        return try body(documents)
    }

    mutating func transaction<T>(_ body: (Transaction) throws -> T) throws -> T {
        guard flock(lock, LOCK_EX) == 0 else {
            throw StoreError.io(path: directory, reason: "cannot lock the store: \(Self.errnoText())")
        }
        defer { flock(lock, LOCK_UN) }
        try catchUp(exclusive: true)
        let transaction = Transaction(reader: documents, time: nextTime())
        let result = try body(transaction)
        let operations = try documents.resolve(transaction.writes)
        if !operations.isEmpty { try append(operations, time: transaction.time) }
        return result
    }

    /// Creates the journal with its header line, atomically (temp file, fsync, rename), if missing.
    private static func openJournal(at path: String, directory: String) throws -> Int32 {
        if access(path, F_OK) != 0 {
            let temporary = path + ".new"
            let header: JSONValue = .object([
                "format": .string(formatName), "version": .integer(formatVersion),
            ])
            var bytes = header.serialized()
            bytes.append(0x0A)
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw StoreError.cannotOpen(path: temporary, reason: errnoText()) }
            defer { Glibc.close(fd) }
            try writeAll(fd, bytes, path: temporary)
            guard fsync(fd) == 0, rename(temporary, path) == 0 else {
                throw StoreError.cannotOpen(path: path, reason: errnoText())
            }
            syncDirectory(directory)
        }
        let fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.cannotOpen(path: path, reason: errnoText()) }
        return fd
    }

    /// Applies journal lines appended since the last call.
    private mutating func catchUp(exclusive: Bool) throws {
        var info = stat()
        guard fstat(journal, &info) == 0 else {
            throw StoreError.io(path: journalPath, reason: Self.errnoText())
        }
        let size = Int(info.st_size)
        if size == 0 {
            throw StoreError.corruptRecord(file: journalPath, line: 1, reason: "the file is empty")
        }
        guard size > offset else { return }
        let bytes = try readBytes(from: journal, offset: offset, count: size - offset)
        var start = 0
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            let line = bytes[start..<newline]
            lineCount += 1
            if offset == 0 && start == 0 {
                try checkHeader(line)
            } else {
                let record = try JournalRecord(line: line, file: journalPath, lineNumber: lineCount)
                documents.apply(record.operations)
                sequence = max(sequence, record.sequence)
                lastTime = max(lastTime, record.time)
            }
            start = newline + 1
        }
        offset += start
        if start < bytes.count && exclusive {
            try setAsideTornTail(Array(bytes[start...]))
        }
    }

    private func checkHeader(_ line: ArraySlice<UInt8>) throws {
        guard case .object(let header)? = try? JSONValue.parse(line),  // an unparsable header is reported below
            header["format"]?.stringValue == Self.formatName, let version = header["version"]?.integerValue
        else {
            throw StoreError.corruptRecord(file: journalPath, line: 1, reason: "not a tweetcli store header")
        }
        guard version <= Self.formatVersion else {
            throw StoreError.unsupportedFormat(file: journalPath, version: String(version))
        }
    }

    /// A line without its newline is a write that crashed before it was acknowledged. It is moved to
    /// a side file (never deleted) and cut off, so the next record starts on a line of its own.
    private func setAsideTornTail(_ tail: [UInt8]) throws {
        let sidePath = journalPath + ".torn-\(Int(Date().timeIntervalSince1970 * 1000))"
        let side = open(sidePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard side >= 0 else { throw StoreError.io(path: sidePath, reason: Self.errnoText()) }
        defer { Glibc.close(side) }
        try Self.writeAll(side, tail, path: sidePath)
        guard fsync(side) == 0, ftruncate(journal, off_t(offset)) == 0, fsync(journal) == 0 else {
            throw StoreError.io(path: journalPath, reason: Self.errnoText())
        }
        Self.syncDirectory(directory)
    }

    /// The clock's time in whole milliseconds (the journal's precision), strictly after the last record's.
    private func nextTime() -> Date {
        let now = (clock().timeIntervalSince1970 * 1000).rounded()
        let last = (lastTime.timeIntervalSince1970 * 1000).rounded()
        return Date(timeIntervalSince1970: max(now, last + 1) / 1000)
    }

    private mutating func append(_ operations: [JournalRecord.Operation], time: Date) throws {
        let record = JournalRecord(sequence: sequence + 1, time: time, operations: operations)
        let line = record.line()
        do {
            try Self.writeAll(journal, line, path: journalPath)
            guard fsync(journal) == 0 else {
                throw StoreError.io(path: journalPath, reason: "fsync failed: \(Self.errnoText())")
            }
        } catch {
            // Cut off whatever part of the line reached the file: the write is not acknowledged.
            _ = ftruncate(journal, off_t(offset))
            throw error
        }
        documents.apply(operations)
        offset += line.count
        lineCount += 1
        sequence = record.sequence
        lastTime = time
    }

    private func readBytes(from fd: Int32, offset: Int, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        try bytes.withUnsafeMutableBytes { buffer in
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw StoreError.io(path: journalPath, reason: Self.errnoText()) }
                done += n
            }
        }
        return bytes
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var done = 0
        try bytes.withUnsafeBytes { buffer in
            while done < buffer.count {
                let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw StoreError.io(path: path, reason: errnoText()) }
                done += n
            }
        }
    }

    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)  // Best effort: some file systems refuse fsync on directories.
        Glibc.close(fd)
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// The journal's and the lock file's descriptors, closed together when no longer used.
private final class OpenFiles: Sendable {
    let journal: Int32
    let lock: Int32

    init(journal: Int32, lock: Int32) {
        self.journal = journal
        self.lock = lock
    }

    deinit {
        Glibc.close(journal)
        Glibc.close(lock)
    }
}
