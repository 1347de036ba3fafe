import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The local engine's files and the state read from them: a log-structured store.
///
/// - `journal.jsonl` holds the transactions since the last fold, one checksummed line each; a
///   process replays only these (at most ``foldThreshold`` records) when it opens the store.
/// - Every ``foldThreshold`` transactions (or ``foldBytes`` of them) a compaction, outside the
///   writers' lock, folds the journal into a new immutable segment;
///   segments of similar size are merged, so there are few of them and each lookup or page costs a
///   few binary searches over the segment files (read through ``BlockFile``), whatever the store's size.
/// - `MANIFEST.json` names the live segments; replacing it atomically commits a fold or a merge.
/// - `flock` on the directory serialises processes: shared for reads, exclusive for transactions and
///   folds (``StoreLock``).
///
/// docs/STORAGE.md is the format's contract.
struct StorageEngine {
    static let formatName = "tweetcli-store"
    static let journalVersion: Int64 = 1
    static let journalName = "journal.jsonl"

    let directory: String
    let journalPath: String
    private let clock: @Sendable () -> Date
    private let indexes: [IndexDefinition]
    /// Journal records that trigger a fold into a segment.
    let foldThreshold: Int
    /// Journal bytes that trigger a fold whatever the records' count: every process replays the
    /// whole journal, so large transactions (an archive import writes thousands of documents in
    /// each) and large documents written again and again (a user's filters, with a thousand
    /// blocked accounts, is rewritten whole by each block) must not make every command read
    /// megabytes before it starts.
    static let foldBytes = 1 << 20

    private let lock: FileDescriptor
    /// Whether opening created the store's directory.
    private var createdDirectory = false
    private var journal: FileDescriptor
    /// Whether the store can be written (not on a read-only file system).
    private var writable = true
    private var journalInode: UInt64 = 0
    private var manifest = Manifest()
    /// The manifest's inode, size and modification time when last read: an inode number alone
    /// can be reused by a later manifest.
    private var manifestStamp: FileIO.Stamp?
    private var openSegments: [String: Segment] = [:]
    private(set) var snapshot: StoreSnapshot
    /// Bytes and lines of the journal applied.
    private var offset = 0
    private var lineCount = 0
    private var sequence: Int64 = 0
    /// The last record's sequence read from this journal: each next one must follow it by one.
    private var journalSequence: Int64?
    private var lastTime = Date.distantPast

    init(directory: String, clock: @escaping @Sendable () -> Date, indexes: [IndexDefinition], foldThreshold: Int)
        throws
    {
        // The system reads a path up to its first NUL: "a\0b" would make and use "a".
        guard !directory.utf8.contains(0) else {
            throw StoreError.cannotOpen(path: directory, reason: "the path holds the character U+0000")
        }
        self.directory = directory
        self.clock = clock
        self.indexes = indexes
        self.foldThreshold = max(1, foldThreshold)
        journalPath = PathName.join(directory, Self.journalName)
        // mkdir first: the common case (the directory exists) costs one system call.
        createdDirectory = mkdir(directory, 0o700) == 0
        if !createdDirectory && errno != EEXIST {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError.cannotOpen(path: directory, reason: "cannot create the directory")
            }
        }
        let lock = try StoreLock.open(directory)
        self.lock = lock
        try StoreLock.acquire(lock.fd, exclusive: true, directory: directory)
        defer { StoreLock.release(lock.fd) }
        if access(journalPath, F_OK) != 0 {
            // A manifest without a journal is a store that lost its journal (and the writes in it),
            // not an empty one: it is an error until a repair writes a new journal.
            guard access(PathName.join(directory, Manifest.fileName), F_OK) != 0 else {
                throw StoreError.corruptRecord(
                    file: journalPath, line: 0, reason: "the journal is missing, though the manifest is there")
            }
            do {
                try StoreFiles.replaceAtomically(
                    path: journalPath, contents: Self.journalHeader(), directory: directory)
            } catch {
                Self.removeUncommitted(directory, removingDirectory: createdDirectory)
                throw error
            }
        }
        (journal, writable) = try Self.openJournal(journalPath)
        snapshot = StoreSnapshot(memtable: Memtable(), segments: [], indexes: indexes)
        try refresh(exclusive: false)  // Opening only reads: a torn write is left for the next writer.
    }

    /// Whether a store exists in `directory`: its journal or its manifest does (a manifest alone is
    /// a damaged store, which opening reports).
    /// A directory that cannot be searched (EACCES) counts as a store, so that opening it reports
    /// the error instead of reading it as empty.
    static func exists(in directory: String) -> Bool {
        for name in [journalName, Manifest.fileName] {
            if access(PathName.join(directory, name), F_OK) == 0 || (errno != ENOENT && errno != ENOTDIR) {
                return true
            }
        }
        return false
    }

    private static func journalHeader() -> [UInt8] {
        var bytes = JSONValue.object(["format": .string(formatName), "version": .integer(journalVersion)]).serialized()
        bytes.append(0x0A)
        return bytes
    }

    /// Opens the journal to append to, or only to read when the store cannot be written (a
    /// read-only file system or file): it can still be read and exported.
    private static func openJournal(_ path: String) throws -> (FileDescriptor, writable: Bool) {
        let writable = access(path, W_OK) == 0 || (errno != EROFS && errno != EACCES)
        guard let fd = try StoreFiles.openRegular(path, writable ? O_RDWR | O_APPEND : O_RDONLY) else {
            throw StoreError.cannotOpen(path: path, reason: "there is no such file")
        }
        return (FileDescriptor(fd), writable)
    }

    // MARK: Locked access

    /// Runs `body` on the current state under the store's lock, after catching up with other
    /// processes' commits, folds and merges.
    mutating func read<T>(_ body: (StoreSnapshot) throws -> T) throws -> T {
        try withLock(exclusive: false) { engine in try body(engine.snapshot) }
    }

    /// Takes the store's shared lock and catches up, so that reads of ``snapshot`` until
    /// ``unpin()`` all see this state: no other process commits, folds or merges meanwhile.
    mutating func pin() throws {
        try lockAndCatchUp(exclusive: false)
    }

    /// Releases what ``pin()`` took.
    func unpin() {
        StoreLock.release(lock.fd)
    }

    /// Starts a transaction: takes the exclusive lock and catches up. Until ``commitTransaction(_:time:)``
    /// or ``abortTransaction()``, the lock is held and ``snapshot`` is the state it reads.
    /// - Returns: the transaction's time, after every commit before it.
    mutating func beginTransaction() throws -> Date {
        try lockAndCatchUp(exclusive: true)
        return nextTime()
    }

    /// Takes the lock and catches up, keeping the lock only if catching up worked.
    private mutating func lockAndCatchUp(exclusive: Bool) throws {
        try acquire(exclusive: exclusive)
        do {
            try refresh(exclusive: exclusive)
        } catch {
            StoreLock.release(lock.fd)
            throw error
        }
    }

    /// Commits a transaction's writes (fsynced before it returns) and releases the lock.
    /// - Returns: whether the store now wants a compaction (``compact()``): a fold of the journal,
    ///   or a merge of segments.
    mutating func commitTransaction(_ writes: [Transaction.Write], time: Date) throws -> Bool {
        defer { StoreLock.release(lock.fd) }
        let operations = try Self.resolve(writes, reader: snapshot)
        guard !operations.isEmpty else { return false }
        let before = offset
        try append(operations, time: time)
        let records = snapshot.memtable.recordCount
        guard records >= Self.inlineFoldFactor * foldThreshold || offset >= Self.inlineFoldFactor * Self.foldBytes
        else {
            // Asked at the threshold (of records or of bytes), then again every few records while
            // the fold has not come (a compaction that could not start, or was killed), not at
            // every one: each request is a process started.
            let crossedBytes = before < Self.foldBytes && offset >= Self.foldBytes
            return crossedBytes || (offset >= Self.foldBytes && records % Self.foldRequestInterval == 0)
                || (records >= foldThreshold && (records - foldThreshold) % Self.foldRequestInterval == 0)
        }
        // Compactions do not keep up (or never run): this commit folds, under its lock. The
        // transaction is committed (fsynced) already: a fold that fails (a damaged older
        // segment, a full disk) must not report it as failed. The journal keeps it, the
        // next writer tries the fold again, and reads report any damage.
        do {
            try fold()
        } catch {
            manifestStamp = nil
            return false
        }
        return Self.plannedMerge(manifest.segments) != nil
    }

    /// Whether the journal is long enough to fold.
    private var wantsFold: Bool { snapshot.memtable.recordCount >= foldThreshold || offset >= Self.foldBytes }

    /// How many times ``foldThreshold`` records (or ``foldBytes``) the journal may reach, waiting for
    /// a compaction to fold it, before a commit folds it itself.
    static let inlineFoldFactor = 4
    /// Records between a commit's requests for a fold that has not come.
    static let foldRequestInterval = 16

    /// Ends a transaction without writing anything, releasing the lock.
    func abortTransaction() {
        StoreLock.release(lock.fd)
    }

    /// Writes `entries` (sorted by path, one per path) as a new segment, newer than everything
    /// committed before: one atomic step, like a transaction, without passing through the journal.
    /// - Parameter choose: runs first, under the same lock, and gives the entries to write (sorted
    ///   by path, one per path): those given, or some of them; throwing cancels the import.
    /// - Returns: whether the segments now want a merge (``compact()``).
    mutating func importSegment(choose: (StoreSnapshot) throws -> [SegmentWriter.Entry]) throws -> Bool {
        try withLock(exclusive: true) { engine in
            let entries = try choose(engine.snapshot)
            guard !entries.isEmpty else { return false }
            var iterator = entries.makeIterator()
            try engine.fold(adding: [.entries(capacity: entries.count, next: { iterator.next() })])
            return Self.plannedMerge(engine.manifest.segments) != nil
        }
    }

    /// What changes with every commit: the last journal record's sequence and the imports the
    /// manifest counts. Two equal versions mean nothing was committed between them.
    struct Version: Equatable {
        var sequence: Int64
        var imports: Int64
    }

    mutating func committedVersion() throws -> Version {
        try withLock(exclusive: false) { engine in engine.committedVersionUnderLock() }
    }

    /// ``committedVersion()`` for a caller that holds the lock and has caught up.
    func committedVersionUnderLock() -> Version { Version(sequence: sequence, imports: manifest.imports) }

    /// Commits a bulk write under the lock ``beginTransaction()`` took, then releases it: the
    /// segment written as `output` (`documents` of them; see ``CompactionLock``), then `writes`,
    /// resolved against the store as it is, as a newer segment.
    /// - Returns: whether the segments now want a merge (``compact()``).
    mutating func commitBulk(output: String, documents: Int, writes: [Transaction.Write], time: Date) throws -> Bool {
        defer { StoreLock.release(lock.fd) }
        let operations = try Self.resolve(writes, reader: snapshot)
        let unsorted = operations.map { operation in
            switch operation {
            case .set(let path, let fields): SegmentWriter.Entry(path: path, data: fields)
            case .delete(let path): SegmentWriter.Entry(path: path, data: nil)
            }
        }
        var keys = SortKeyBuffer()
        for entry in unsorted { keys.add { SortKey.path(entry.path, into: &$0) } }
        let entries = keys.sortedPositions().map { unsorted[$0] }
        lastTime = max(lastTime, time)
        var iterator = entries.makeIterator()
        try fold(adding: [
            .written(output: output, documents: documents),
            .entries(capacity: entries.count, next: { iterator.next() }),
        ])
        return Self.plannedMerge(manifest.segments) != nil
    }

    /// Writes the entries `next` gives (sorted by path, one per path, none a deletion; at most
    /// `capacity`) as a new segment, as ``importSegment(choose:)`` does, after `check`.
    mutating func importSegment(
        capacity: Int, check: (StoreSnapshot) throws -> Void, next: () throws -> SegmentWriter.Entry?
    ) throws -> Bool {
        try withLock(exclusive: true) { engine in
            try check(engine.snapshot)
            // The fold only calls it, before it returns.
            try withoutActuallyEscaping(next) { try engine.fold(adding: [.entries(capacity: capacity, next: $0)]) }
            return Self.plannedMerge(engine.manifest.segments) != nil
        }
    }

    private func acquire(exclusive: Bool) throws {
        guard writable || !exclusive else {
            throw StoreError.io(
                path: directory, reason: "the store is read-only: it can be read and exported, not changed")
        }
        try StoreLock.acquire(lock.fd, exclusive: exclusive, directory: directory)
    }

    private mutating func withLock<T>(exclusive: Bool, _ body: (inout StorageEngine) throws -> T) throws -> T {
        try acquire(exclusive: exclusive)
        defer { StoreLock.release(lock.fd) }
        try refresh(exclusive: exclusive)
        return try body(&self)
    }

    // MARK: Catching up

    /// Reloads the manifest if another process replaced it, reopens a replaced journal, and applies
    /// the journal lines appended since the last call.
    private mutating func refresh(exclusive: Bool) throws {
        let currentManifest = FileIO.stamp(of: PathName.join(directory, Manifest.fileName))
        let currentJournal = FileIO.inode(of: journalPath)
        if manifestStamp == nil || currentManifest != manifestStamp || currentJournal != journalInode {
            manifest = try Manifest.load(directory: directory)
            manifestStamp = currentManifest
            try openManifestSegments()
            (journal, writable) = try Self.openJournal(journalPath)
            journalInode = currentJournal ?? 0
            offset = 0
            lineCount = 0
            sequence = manifest.foldedSequence
            journalSequence = nil
            lastTime = manifest.lastTime ?? .distantPast
            snapshot = StoreSnapshot(memtable: Memtable(), segments: snapshot.segments, indexes: indexes)
        }
        try catchUp(exclusive: exclusive)
    }

    private mutating func openManifestSegments() throws {
        var segments: [Segment] = []
        var open: [String: Segment] = [:]
        for info in manifest.segments.reversed() {
            let segment = try openSegments[info.name] ?? Segment(directory: directory, name: info.name)
            open[info.name] = segment
            segments.append(segment)
        }
        openSegments = open
        snapshot = StoreSnapshot(memtable: snapshot.memtable, segments: segments, indexes: indexes)
    }

    private mutating func catchUp(exclusive: Bool) throws {
        var info = stat()
        guard fstat(journal.fd, &info) == 0 else { throw StoreError.io(path: journalPath, reason: FileIO.errnoText()) }
        let size = Int(info.st_size)
        if size == 0 { throw StoreError.corruptRecord(file: journalPath, line: 1, reason: "the file is empty") }
        guard size > offset else { return }
        let bytes = try StoreFiles.readBytes(from: journal.fd, offset: offset, count: size - offset, path: journalPath)
        var start = 0
        // Offset and line count advance line by line, so a damaged line is reported with the same
        // number however often it is read, and the lines before it are applied once.
        var records: [(line: Range<Int>, number: Int, outline: JournalRecord.Outline)] = []
        var failure: (any Error)?
        while let newline = Self.newline(in: bytes, from: start) {
            let line = bytes[start..<newline]
            do {
                if offset == 0 {
                    try checkHeader(line)
                } else {
                    let outline = try JournalRecord.outline(line: line, file: journalPath, lineNumber: lineCount + 1)
                    if let reason = JournalRecord.sequenceProblem(
                        outline.sequence, after: journalSequence, folded: manifest.foldedSequence)
                    {
                        throw StoreError.corruptRecord(file: journalPath, line: lineCount + 1, reason: reason)
                    }
                    journalSequence = outline.sequence
                    // Records up to foldedSequence are in the segments already (a fold that crashed
                    // after its manifest was written, before the journal was replaced).
                    if outline.sequence > manifest.foldedSequence {
                        records.append((start..<newline, lineCount + 1, outline))
                    }
                    sequence = max(sequence, outline.sequence)
                    lastTime = max(lastTime, outline.time)
                }
            } catch {
                failure = error
                break
            }
            lineCount += 1
            offset += newline + 1 - start
            start = newline + 1
        }
        // The records before a damaged one are applied, their documents left as bytes until read.
        for record in records {
            snapshot.memtable.apply(
                record.outline, line: bytes[record.line], file: journalPath, lineNumber: record.number)
        }
        if let failure { throw failure }
        // A header without its newline is not a torn record: cutting it off would leave records
        // appended after no header at all. Nothing reads or writes past it until a repair.
        if offset == 0 && start < bytes.count {
            throw StoreError.corruptRecord(file: journalPath, line: 1, reason: "its header line is unfinished")
        }
        if start < bytes.count && exclusive {
            try setAsideTornTail(Array(bytes[start...]))
        }
    }

    /// The index of the first newline at or after `start` (the C library's memchr: a journal of
    /// a hundred records is tens of kilobytes, read by every command).
    private static func newline(in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, start < buffer.count,
                let found = memchr(base + start, 0x0A, buffer.count - start)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    private func checkHeader(_ line: ArraySlice<UInt8>) throws {
        do {
            try FileHeader.check(line, format: Self.formatName, supportedVersion: Self.journalVersion)
        } catch .notAHeader(let reason) {
            throw StoreError.corruptRecord(file: journalPath, line: 1, reason: reason)
        } catch .newerVersion(let version) {
            throw StoreError.unsupportedFormat(file: journalPath, version: String(version))
        }
    }

    /// A line without its newline is a write that crashed before it was acknowledged. It is moved to
    /// a side file (never deleted) and cut off, so the next record starts on a line of its own.
    private func setAsideTornTail(_ tail: [UInt8]) throws {
        let sidePath = journalPath + ".torn-\(Int(Date().timeIntervalSince1970 * 1000))"
        let side = FileIO.retrying { open(sidePath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard side >= 0 else { throw StoreError.io(path: sidePath, reason: FileIO.errnoText()) }
        defer { close(side) }
        try StoreFiles.writeAll(side, tail, path: sidePath)
        guard FileIO.retrying({ fsync(side) }) == 0, FileIO.retrying({ ftruncate(journal.fd, off_t(offset)) }) == 0,
            FileIO.retrying({ fsync(journal.fd) }) == 0
        else {
            throw StoreError.io(path: journalPath, reason: FileIO.errnoText())
        }
        FileIO.syncDirectory(directory)
    }

    // MARK: Writing

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
            try StoreFiles.writeAll(journal.fd, line, path: journalPath)
            guard FileIO.retrying({ fsync(journal.fd) }) == 0 else {
                throw StoreError.io(path: journalPath, reason: "fsync failed: \(FileIO.errnoText())")
            }
        } catch {
            // Cut off whatever part of the line reached the file: the write is not acknowledged.
            _ = FileIO.retrying { ftruncate(journal.fd, off_t(offset)) }
            throw error
        }
        snapshot.memtable.apply(operations)
        offset += line.count
        lineCount += 1
        sequence = record.sequence
        journalSequence = record.sequence
        lastTime = time
    }

    /// Turns a transaction's writes into whole-document operations against the current state.
    static func resolve(_ writes: [Transaction.Write], reader: StoreSnapshot) throws -> [JournalRecord.Operation] {
        try Transaction.resolve(writes) { try reader.document(at: $0) }.map { path, fields in
            fields.map { .set(path, $0) } ?? .delete(path)
        }
    }

    // MARK: Folding and merging

    /// Segments beyond which a fold merges the newest ones itself, in the writer: only when
    /// compactions do not keep up (or never run), so that reads never face an unbounded number.
    static let segmentLimit = 24

    /// Writes the memtable (and `imported` entries, newer still) as segments, commits the new
    /// manifest, then starts an empty journal, all under the exclusive lock: for an import, and for
    /// a commit that finds the journal ``inlineFoldFactor`` times too long (compactions fold it
    /// otherwise, outside the lock). Merges are left to ``compact()``, outside the lock, unless
    /// there are more than ``segmentLimit`` segments.
    /// What an import adds as segments newer than the journal's.
    enum ImportedPart {
        /// Entries to write (sorted by path, one per path), at most `capacity`.
        case entries(capacity: Int, next: () throws -> SegmentWriter.Entry?)
        /// A segment written already as the compaction output `output`, of `documents` documents.
        case written(output: String, documents: Int)
    }

    private mutating func fold(adding imported: [ImportedPart] = []) throws {
        // A manifest exists before any segment file does, so segment files without one always mean
        // a lost manifest (an error), never a first fold that crashed before its commit.
        if FileIO.stamp(of: PathName.join(directory, Manifest.fileName)) == .missing {
            try manifest.save(directory: directory)
        }
        var infos = manifest.segments
        var next = manifest.nextSegment
        var created: [String: Segment] = [:]
        let writer = SegmentWriter(directory: directory, indexes: indexes)
        func add(capacity: Int, _ entries: () throws -> SegmentWriter.Entry?) throws {
            let name = SegmentFormat.segmentName(next)
            let count = try writer.write(name: name, atMost: capacity, next: entries)
            guard count > 0 else {
                // Nothing to keep: the files go, and the name is not used.
                SegmentFormat.removeFiles(of: name, in: directory)
                return
            }
            next += 1
            created[name] = try Segment(directory: directory, name: name)
            infos.append(.init(name: name, documents: count))
        }
        // Nothing older to hide: the journal's deletions need not be kept.
        let journal = try snapshot.memtable.sortedEntries().filter { !infos.isEmpty || $0.data != nil }
        if !journal.isEmpty {
            var iterator = journal.makeIterator()
            try add(capacity: journal.count) { iterator.next() }
        }
        for part in imported {
            switch part {
            case .entries(let capacity, let entries): try add(capacity: capacity, entries)
            case .written(let output, let documents):
                guard documents > 0 else {
                    SegmentFormat.removeFiles(of: output, in: directory)
                    continue
                }
                let name = SegmentFormat.segmentName(next)
                try Self.rename(output, to: name, in: directory)
                next += 1
                created[name] = try Segment(directory: directory, name: name)
                infos.append(.init(name: name, documents: documents))
            }
        }
        try mergeNewest(&infos, next: &next, created: &created)
        var updated = manifest
        // Counted, so that a bulk write can tell that something was committed while it worked.
        if !imported.isEmpty { updated.imports += 1 }
        updated.segments = infos
        updated.foldedSequence = sequence
        updated.lastTime = lastTime == .distantPast ? nil : lastTime
        updated.nextSegment = next
        try updated.save(directory: directory)  // The commit point.
        try StoreFiles.replaceAtomically(path: journalPath, contents: Self.journalHeader(), directory: directory)
        openSegments.merge(created) { old, _ in old }
        manifestStamp = nil  // Reload everything from the files just written.
        try refresh(exclusive: true)
        removeUnreferencedFiles()
    }

    /// Merges two neighbouring segments of `infos` while there are more than ``segmentLimit``, as
    /// new segments named from `next` and kept in `created`: under the exclusive lock, by a fold
    /// that finds the merges not keeping up (another process's merge into a large base segment can
    /// take minutes while folds come every 64 commits, or every few commits of a bulk import). A
    /// merge running meanwhile that read one of these finds them gone when it commits, and is
    /// dropped.
    private func mergeNewest(
        _ infos: inout [Manifest.SegmentInfo], next: inout Int, created: inout [String: Segment]
    ) throws {
        while infos.count > Self.segmentLimit {
            let older = Self.cheapestNeighbours(infos)
            let sources = try infos[older...(older + 1)].reversed().map { info in
                try created[info.name] ?? openSegments[info.name] ?? Segment(directory: directory, name: info.name)
            }
            let name = SegmentFormat.segmentName(next)
            next += 1
            var merge = try SegmentMerge(sources, dropDeletions: false, indexes: indexes)
            let count = try SegmentWriter(directory: directory, indexes: indexes).write(
                name: name, atMost: merge.capacity
            ) { try merge.next() }
            infos.replaceSubrange(older...(older + 1), with: [.init(name: name, documents: count)])
            created[name] = try Segment(directory: directory, name: name)
        }
    }

    /// The position of the older of the two neighbouring segments (oldest first) that a fold over
    /// ``segmentLimit`` merges: of the pairs whose older segment holds at most 4× the newer's (the
    /// size-tiered rule's), the one with the fewest documents together, the newest on a tie; the
    /// cheapest pair when none is. Merging always the newest two would grow one segment by every
    /// fold and rewrite it each time, making a long run of folds (a bulk import) quadratic; this
    /// rewrites each document a logarithmic number of times, and leaves a large base alone.
    static func cheapestNeighbours(_ segments: [Manifest.SegmentInfo]) -> Int {
        var best: (position: Int, documents: Int, tiered: Bool)?
        for older in stride(from: segments.count - 2, through: 0, by: -1) {
            let documents = segments[older].documents + segments[older + 1].documents
            let tiered = segments[older].documents <= 4 * segments[older + 1].documents
            if let current = best,
                (current.tiered && !tiered) || (current.tiered == tiered && current.documents <= documents)
            {
                continue
            }
            best = (older, documents, tiered)
        }
        return best?.position ?? 0
    }

    /// The merge the size-tiered rule wants next, as the position of the older of two neighbouring
    /// segments (oldest first): the newest pair whose older segment holds at most 4× the newer's
    /// documents, so each segment stays more than 4× the size of the next newer one and a store of
    /// N documents has about log₄ N of them; with more than 8, the newest pair anyway.
    static func plannedMerge(_ segments: [Manifest.SegmentInfo]) -> Int? {
        guard segments.count >= 2 else { return nil }
        for older in stride(from: segments.count - 2, through: 0, by: -1)
        where segments[older].documents <= 4 * segments[older + 1].documents {
            return older
        }
        return segments.count > 8 ? segments.count - 2 : nil
    }

    /// Folds the journal and runs the merges ``plannedMerge(_:)`` wants, without keeping writers or
    /// readers waiting: a fold writes the journal's documents as a segment, a merge streams two
    /// segments (immutable files) into one, each with no lock held, and only the commit takes the
    /// exclusive lock, to rename the new files into a segment and replace the manifest (and, for a
    /// fold, start the journal again from the records committed since). One fold and one merge
    /// run at a time (``CompactionLock``), side by side; a process killed during either leaves the
    /// store as it was, and its files are removed by the next of its kind.
    /// - Parameter beforeFoldCommit: runs between writing a fold's segment and committing it (for
    ///   tests: a commit made there must survive the fold).
    /// - Returns: whether this call ran the merges (`false`: another process is merging, or the
    ///   store cannot be written).
    /// - Throws: a fold's or a merge's error; a fold that fails still lets the merges run first.
    mutating func compact(
        beforeFoldCommit: () throws -> Void = {}, progress: @escaping ProgressHandler = { _ in }
    ) throws -> Bool {
        guard writable else { return false }
        var foldFailure: (any Error)?
        if let folding = try CompactionLock.acquire(directory, .fold) {
            defer { CompactionLock.release(folding) }
            CompactionLock.removeAbandonedOutputs(directory, .fold)
            let output = CompactionLock.outputName(.fold, pid: getpid())
            do {
                // The journal whatever its length, then again only while it is long enough to
                // want one (writers may add records as fast as folds take them).
                var always = true
                while try foldJournal(into: output, always: always, beforeCommit: beforeFoldCommit) { always = false }
            } catch {
                // A fold that cannot commit (the store busy for longer than the lock waits, a
                // full disk) is no reason to leave the segments unmerged.
                foldFailure = error
            }
        }
        let merged = try mergeWhileWanted(progress: progress)
        if let foldFailure { throw foldFailure }
        return merged
    }

    /// The merges of ``compact(beforeFoldCommit:)``, while ``plannedMerge(_:)`` wants one.
    /// - Returns: `false` if another process holds the merge lock.
    /// `progress` hears the documents merged so far, of every merge, every 4,096.
    private mutating func mergeWhileWanted(progress: @escaping ProgressHandler) throws -> Bool {
        guard let merging = try CompactionLock.acquire(directory, .merge) else { return false }
        defer { CompactionLock.release(merging) }
        let output = CompactionLock.outputName(.merge, pid: getpid())
        CompactionLock.removeAbandonedOutputs(directory, .merge)
        Self.removeMergedAwayFiles(in: directory)
        var mergedBefore = 0
        while true {
            let planned: (older: Int, names: [String], sources: [Segment])? = try withLock(exclusive: false) { engine in
                guard let older = Self.plannedMerge(engine.manifest.segments) else { return nil }
                let names = [engine.manifest.segments[older].name, engine.manifest.segments[older + 1].name]
                let sources = try names.reversed().map { name in
                    try engine.openSegments[name] ?? Segment(directory: engine.directory, name: name)
                }
                return (older, names, sources)
            }
            guard let planned else { return true }
            do {
                let (directory, indexes) = (directory, indexes)
                // On a thread of its own, behind every other process for the CPU and the disk
                // (best effort: refused, it runs as it is; the idle I/O class counts only under
                // the BFQ scheduler), while this one commits at the usual priority: a commit holds
                // the lock others wait for, and a deprioritized holder kept posts waiting in the
                // write-stall test. Its files go to the disk as they are written, so that no post's
                // fsync waits behind the whole merge's.
                let before = mergedBefore
                let count = try BackgroundWork {
                    ProcessControl.deprioritizeThisThread()
                    // The oldest segment hides nothing older: deletions go with the merge into it.
                    var merge = try SegmentMerge(planned.sources, dropDeletions: planned.older == 0, indexes: indexes)
                    var entries = 0
                    return try SegmentWriter(directory: directory, indexes: indexes, boundedWriteback: true).write(
                        name: output, atMost: merge.capacity
                    ) {
                        entries += 1
                        if entries & 4095 == 0 { progress(WorkProgress(done: before + entries)) }
                        return try merge.next()
                    }
                }.wait()
                mergedBefore += count
                let mergedAway = try withLock(exclusive: true) { engine in
                    try engine.commitMerge(of: planned.names, at: planned.older, into: output, documents: count)
                    let renamed = engine.setAsideMergedAway(planned.names)
                    // Under the lock: outside it, another process's fold could have written files
                    // this manifest does not name yet, and they would go.
                    engine.removeUnreferencedFiles()
                    return renamed
                }
                // Outside the lock, for no reader opens them again: the manifest names neither.
                mergedAway.forEach { FileIO.removeGradually($0) }
            } catch {
                // A merge that failed (a full disk, a damaged line) leaves nothing of itself behind.
                SegmentFormat.removeFiles(of: output, in: directory)
                throw error
            }
        }
    }

    /// What a fold read from the journal, under the shared lock, and what it expects to find
    /// unchanged when it commits.
    private struct FoldPlan {
        /// The journal's documents, sorted by path; deletions dropped when there is no segment.
        var entries: [SegmentWriter.Entry]
        /// The last record folded, and where the next one would start.
        var sequence: Int64
        var journalOffset: Int
        var journalInode: UInt64
        /// The manifest's, when planned: a fold committed since (by a writer that could not wait)
        /// changes it.
        var foldedSequence: Int64
        var hadSegments: Bool
    }

    /// Folds the journal, if it has any records (`always`: a compaction is asked for by a journal
    /// that wants a fold or by segments that want a merge, or run by hand, and leaves no journal to
    /// replay either way) or if it is long enough to want a fold, into a segment written as
    /// `output` outside any lock, then committed under the exclusive lock with the records that came
    /// meanwhile kept in a new journal.
    /// - Returns: whether it folded (`false`: nothing to fold, or another fold came first).
    private mutating func foldJournal(into output: String, always: Bool, beforeCommit: () throws -> Void) throws
        -> Bool
    {
        let planned: FoldPlan? = try withLock(exclusive: false) { engine in
            guard always || engine.wantsFold, engine.sequence > engine.manifest.foldedSequence else { return nil }
            let hadSegments = !engine.manifest.segments.isEmpty
            // Nothing older to hide: the journal's deletions need not be kept.
            let entries = try engine.snapshot.memtable.sortedEntries().filter { hadSegments || $0.data != nil }
            return FoldPlan(
                entries: entries, sequence: engine.sequence, journalOffset: engine.offset,
                journalInode: engine.journalInode, foldedSequence: engine.manifest.foldedSequence,
                hadSegments: hadSegments)
        }
        guard let plan = planned else { return false }
        do {
            var iterator = plan.entries.makeIterator()
            let count = try SegmentWriter(directory: directory, indexes: indexes).write(
                name: output, atMost: plan.entries.count
            ) { iterator.next() }
            try beforeCommit()
            return try withLock(exclusive: true) { engine in
                try engine.commitFold(plan, output: output, documents: count)
            }
        } catch {
            SegmentFormat.removeFiles(of: output, in: directory)
            throw error
        }
    }

    /// Adds the fold written as `output` to the manifest as the newest segment, then replaces the
    /// journal with one that holds only the records after the fold's: the manifest is the commit
    /// point, and a crash before the journal is replaced leaves records the replay skips (up to
    /// ``Manifest/foldedSequence``). If another fold came first, this one is dropped.
    /// - Returns: whether it committed.
    private mutating func commitFold(_ plan: FoldPlan, output: String, documents: Int) throws -> Bool {
        guard manifest.foldedSequence == plan.foldedSequence, journalInode == plan.journalInode,
            offset >= plan.journalOffset, manifest.segments.isEmpty != plan.hadSegments
        else {
            SegmentFormat.removeFiles(of: output, in: directory)
            return false
        }
        let tail = try StoreFiles.readBytes(
            from: journal.fd, offset: plan.journalOffset, count: offset - plan.journalOffset, path: journalPath)
        // A manifest exists before any segment file does (see ``fold(adding:)``).
        if FileIO.stamp(of: PathName.join(directory, Manifest.fileName)) == .missing {
            try manifest.save(directory: directory)
        }
        var updated = manifest
        if documents > 0 {
            let name = SegmentFormat.segmentName(updated.nextSegment)
            updated.nextSegment += 1
            try Self.rename(output, to: name, in: directory)
            updated.segments.append(.init(name: name, documents: documents))
        } else {
            SegmentFormat.removeFiles(of: output, in: directory)
        }
        // Bounded as a writer's own fold bounds them, when merges do not keep up.
        var created: [String: Segment] = [:]
        try mergeNewest(&updated.segments, next: &updated.nextSegment, created: &created)
        updated.foldedSequence = plan.sequence
        updated.lastTime = lastTime == .distantPast ? nil : lastTime
        try updated.save(directory: directory)  // The commit point; it syncs the directory too.
        try StoreFiles.replaceAtomically(path: journalPath, contents: Self.journalHeader() + tail, directory: directory)
        openSegments.merge(created) { old, _ in old }
        manifestStamp = nil
        try refresh(exclusive: true)
        // The pairs merged above: under the lock, so no other fold's files can be caught.
        if !created.isEmpty { removeUnreferencedFiles() }
        return true
    }

    /// Renames the compaction output `output`'s files to segment `name`'s.
    private static func rename(_ output: String, to name: String, in directory: String) throws {
        for file in [SegmentFormat.dataFileName, SegmentFormat.indexFileName] {
            guard Glibc.rename(PathName.join(directory, file(output)), PathName.join(directory, file(name))) == 0 else {
                throw StoreError.io(path: PathName.join(directory, file(output)), reason: FileIO.errnoText())
            }
        }
    }

    /// Replaces segments `names` (at `older` and the next) with the merge written as `output`:
    /// its files renamed to the next segment's name, then the manifest, the commit point. If the
    /// manifest no longer has the two side by side there (a fold's own merge took them), the merge
    /// is dropped and the next one planned afresh.
    private mutating func commitMerge(of names: [String], at older: Int, into output: String, documents: Int) throws {
        var updated = manifest
        guard older + 1 < updated.segments.count, updated.segments[older].name == names[0],
            updated.segments[older + 1].name == names[1]
        else {
            SegmentFormat.removeFiles(of: output, in: directory)
            return
        }
        if documents == 0 && older == 0 {
            // Nothing but deletions of nothing: both segments simply go.
            updated.segments.removeSubrange(older...(older + 1))
            SegmentFormat.removeFiles(of: output, in: directory)
        } else {
            let name = SegmentFormat.segmentName(updated.nextSegment)
            updated.nextSegment += 1
            try Self.rename(output, to: name, in: directory)
            updated.segments.replaceSubrange(older...(older + 1), with: [.init(name: name, documents: documents)])
        }
        try updated.save(directory: directory)  // The commit point; it syncs the directory too.
        manifestStamp = nil
        try refresh(exclusive: true)
    }

    /// Whether `name` is exactly a segment's data or index file (`seg-000012.jsonl`, `seg-000012.idx`):
    /// only those are ever deleted, never side files or anything else in the directory.
    static func isSegmentFileName(_ name: String) -> Bool {
        let parts = name.split(separator: ".")
        guard parts.count == 2, parts[1] == "jsonl" || parts[1] == "idx", parts[0].hasPrefix("seg-") else {
            return false
        }
        let digits = parts[0].dropFirst(4)
        return digits.count >= 6 && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
    }

    /// Removes the store again when nothing was ever committed to it (the journal holds only its
    /// header and the manifest, if there is one, no segment): the first write, which created it,
    /// failed, and a failed command leaves no store behind. Under the exclusive lock, so a store
    /// another process has written to since is left alone; files it cannot judge are left too.
    /// `blobs`: the blob files the failed command put, which nothing can name: they go too.
    func removeIfNothingCommitted(alsoRemoving blobs: [String] = []) {
        // Best effort after a failure already being reported: a lock not had, or a file that cannot
        // be read, leaves the store as it is, which is never worse than removing too much.
        guard (try? StoreLock.acquire(lock.fd, exclusive: true, directory: directory)) != nil else { return }
        defer { StoreLock.release(lock.fd) }
        guard (try? StoreFiles.readFile(journalPath)) == Self.journalHeader(),
            (try? Manifest.load(directory: directory))?.segments.isEmpty == true
        else { return }
        for file in blobs { unlink(file) }
        // Their folders, and the blobs folder, only if that left them empty.
        for folder in Set(blobs.map { String($0[..<($0.lastIndex(of: "/") ?? $0.endIndex)]) }) { rmdir(folder) }
        if !blobs.isEmpty { rmdir(PathName.join(directory, "blobs")) }
        Self.removeUncommitted(directory, removingDirectory: createdDirectory)
    }

    /// Deletes the files of a store that holds nothing committed, and the directory if it was made for it.
    private static func removeUncommitted(_ directory: String, removingDirectory: Bool) {
        // A directory that cannot be listed keeps its files: removing nothing is the safe failure.
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let own = [journalName, Manifest.fileName]
        for name in names
        where isSegmentFileName(name) || own.contains(name) || own.contains(where: { name == $0 + ".new" }) {
            unlink(PathName.join(directory, name))
        }
        if removingDirectory { rmdir(directory) }  // Only if empty: anything else in it stays.
    }

    /// What a merged-away segment file's name ends with until it is removed.
    static let mergedAwaySuffix = ".gone"

    /// Renames the files of segments `names`, which a merge just replaced, to end with
    /// ``mergedAwaySuffix``, under the exclusive lock, for the merge to remove them a few megabytes
    /// at a time with no lock held (its inputs can be the base segment, hundreds of megabytes). A
    /// segment the manifest still names (the merge was dropped) stays.
    /// - Returns: the files' new paths.
    private func setAsideMergedAway(_ names: [String]) -> [String] {
        let live = Set(manifest.segments.map(\.name))
        var renamed: [String] = []
        for name in names where !live.contains(name) {
            for file in SegmentFormat.fileNames(name) {
                let path = PathName.join(directory, file)
                if Glibc.rename(path, path + Self.mergedAwaySuffix) == 0 {
                    renamed.append(path + Self.mergedAwaySuffix)
                } else {
                    unlink(path)
                }
            }
        }
        return renamed
    }

    /// Removes, with ``FileIO/removeGradually(_:step:)``, the merged-away files a merge killed
    /// before it removed them left: under the merge lock, so that one process at a time does.
    private static func removeMergedAwayFiles(in directory: String) {
        // Best effort: an unreadable directory leaves them for the next merge.
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names
        where name.hasSuffix(mergedAwaySuffix) && isSegmentFileName(String(name.dropLast(mergedAwaySuffix.count))) {
            FileIO.removeGradually(PathName.join(directory, name))
        }
    }

    /// Deletes segment files the manifest no longer names: merged away, or left by a fold that
    /// crashed before its commit. Their data lives on in the named segments.
    private func removeUnreferencedFiles() {
        let live = Set(manifest.segments.flatMap { SegmentFormat.fileNames($0.name) })
        // Cleanup is best effort: an unreadable directory leaves the files for the next fold.
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where Self.isSegmentFileName(name) && !live.contains(name) {
            unlink(PathName.join(directory, name))
        }
    }
}
