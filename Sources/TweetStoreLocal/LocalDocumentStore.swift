import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The local engine: a log-structured store of JSON Lines files in one directory, safe to share
/// between processes (see ``StorageEngine`` and docs/STORAGE.md).
public actor LocalDocumentStore: DocumentStore {
    /// The store's directory.
    public nonisolated let directory: String
    /// `nil` while there is no store and this one may not create it: reads find nothing, writes fail.
    private var engine: StorageEngine?
    private let makeEngine: @Sendable () throws -> StorageEngine
    private let createIfMissing: Bool
    private let compaction: Compaction
    private let indexes: [IndexDefinition]

    /// Where the folds of the journal and merges of segments that writes call for run: never inside
    /// a writer's lock.
    public enum Compaction: Sendable {
        /// In the process that wrote, after its commit: other processes do not wait for it, but
        /// this one returns only when it is done.
        case inProcess
        /// Wherever `start` runs it, given the store's directory: the CLI starts a detached
        /// `tweetcli compact`, so that no command waits for a fold or a merge.
        case background(start: @Sendable (_ directory: String) -> Void)
    }

    /// Opens the store in `directory`.
    /// - Parameters:
    ///   - directory: the store's directory.
    ///   - indexes: the secondary indexes to keep (queries without one scan their collection).
    ///   - clock: the store's clock, which stamps each transaction (injectable for tests).
    ///   - foldThreshold: how many journal records are folded into a segment at once.
    ///   - compaction: where merges run (see ``Compaction``).
    ///   - createIfMissing: whether the first write creates the store (mode 0700) when there is
    ///     none; without it, writes fail with ``StoreError/noStore(path:)``. Either way a missing
    ///     store reads as empty and nothing is written to disk until a write, so a mistyped
    ///     `--store` or a command that fails before writing leaves no directory behind.
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` or an error naming a damaged file.
    public init(
        directory: String, indexes: [IndexDefinition] = [], clock: @escaping @Sendable () -> Date = Date.init,
        foldThreshold: Int = 64, compaction: Compaction = .inProcess, createIfMissing: Bool = true
    ) throws {
        self.directory = directory
        self.compaction = compaction
        self.indexes = indexes
        makeEngine = {
            try StorageEngine(directory: directory, clock: clock, indexes: indexes, foldThreshold: foldThreshold)
        }
        self.createIfMissing = createIfMissing
        // A path that is there but is not a directory is a mistake to name, not an empty store.
        var status = stat()
        if stat(directory, &status) == 0 && (status.st_mode & S_IFMT) != S_IFDIR {
            throw StoreError.cannotOpen(path: directory, reason: "it is a file, not a directory")
        }
        engine = StorageEngine.exists(in: directory) ? try makeEngine() : nil
    }

    /// Runs a write on the engine, creating the store first if there is none and this use of it
    /// may. A write that created the store and then failed removes it again, so a failed first
    /// command (a `register` or `seed` that met a full disk) leaves no store behind.
    private func writing<T>(_ body: (inout StorageEngine) throws -> T) throws -> T {
        let created = try engineForWriting()
        do {
            let result = try body(&engine!)
            committed()
            return result
        } catch {
            if created { discardCreatedStore() }
            throw error
        }
    }

    /// Opens the engine for a write, creating the store when there is none and this use of it may.
    /// - Returns: whether the store was created now.
    private func engineForWriting() throws -> Bool {
        unpin()
        if try openEngine() { return false }
        guard createIfMissing else { throw StoreError.noStore(path: directory) }
        engine = try makeEngine()
        createdHere = true
        return true
    }

    /// Whether this process created the store and has committed nothing to it yet, and the blob
    /// files it has put in it since: a bulk import that fails then removes them with the store.
    private var createdHere = false
    private var blobsPutHere: [String] = []

    /// A write committed: the store holds something now, and a later failure removes nothing.
    private func committed() {
        createdHere = false
        blobsPutHere = []
    }

    private func discardCreatedStore() {
        engine?.removeIfNothingCommitted(alsoRemoving: blobsPutHere)
        engine = nil
        createdHere = false
        blobsPutHere = []
    }

    // MARK: Transactions in this process

    /// This process's transactions, one at a time (the engine's lock is per process).
    private var gate = TransactionGate()
    /// How many ``beginConsistentReads()`` are open, and whether the engine is pinned for them.
    private var consistentReads = 0
    private var pinned = false

    /// Waits until no transaction of this process is open. A call from the task running a
    /// transaction's body would wait for itself: it is refused instead.
    private func waitForTransactions() async throws {
        if gate.isCalledFromTheOpenTransaction { throw TransactionGate.directRead(directory) }
        while gate.isOpen { await withCheckedContinuation { gate.wait($0) } }
    }

    /// A read of the open transaction `number`.
    fileprivate func transactionRead<T>(_ number: Int, _ body: (StoreSnapshot) throws -> T) throws -> T {
        guard gate.isOpen(number), let engine else { throw TransactionGate.readAfterEnd(directory) }
        return try body(engine.snapshot)
    }

    /// The engine, opened now if another process has created the store since.
    private func openEngine() throws -> Bool {
        if engine == nil, StorageEngine.exists(in: directory) { engine = try makeEngine() }
        return engine != nil
    }

    private func read<T>(orEmpty empty: T, _ body: (StoreSnapshot) throws -> T) throws -> T {
        guard try openEngine() else { return empty }
        if pinned { return try body(engine!.snapshot) }
        return try engine!.read(body)
    }

    public func beginConsistentReads() async throws {
        // Counted only once it has worked: a failed begin has no end to match it.
        if consistentReads == 0, !gate.isOpen, try openEngine() {
            try engine!.pin()
            pinned = true
        }
        consistentReads += 1
    }

    public func endConsistentReads() async {
        consistentReads = max(0, consistentReads - 1)
        if consistentReads == 0 { unpin() }
    }

    /// Lets the reads of an open ``beginConsistentReads()`` go back to locking each time: a
    /// write of this process takes the lock itself.
    private func unpin() {
        guard pinned else { return }
        engine?.unpin()
        pinned = false
    }

    /// Runs on the main actor's executor: a command's view model, services and store then share one
    /// thread, with no hop to another at each `await` (every command is one short process).
    /// Watches the store's directory (see ``LocalChangeWatch``).
    public nonisolated func watchChanges() throws -> any StoreChangeWatch {
        try LocalChangeWatch(directory: directory)
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { MainActor.sharedUnownedExecutor }

    // MARK: DocumentStore

    public func exists() async throws -> Bool {
        try await waitForTransactions()
        return try openEngine()
    }

    // MARK: Blobs

    /// `blobs/<first two digits>/<address>`: a file per blob, named by its content.
    private func blobPath(_ address: String) -> (folder: String, file: String) {
        let folder = directory + "/blobs/" + address.prefix(2)
        return (folder, folder + "/" + address)
    }

    /// Written to a file of this process's own, synced, renamed into place, and the folders synced:
    /// the name appears only with the whole content behind it, and stays after a crash. Two
    /// processes putting one blob each write their own copy; the last rename wins, with the same bytes.
    public func putBlob(_ bytes: [UInt8], address: String) async throws {
        let address = try BlobAddress.checked(address)
        try await waitForTransactions()
        let created = try engineForWriting()
        do {
            let (folder, file) = blobPath(address)
            // One there already with these bytes is kept; any other (a damaged one, which doctor
            // finds) is written over, so that restoring a backup mends it.
            // Its time is made now's, so that a collection of unnamed photos leaves it to the post
            // that puts it (see removeBlobs); if the collection took it meanwhile, it is written anew.
            var status = stat()
            if stat(file, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) == bytes.count,
                try FileIO.readFile(file) == bytes, utimensat(AT_FDCWD, file, nil, 0) == 0
            {
                return
            }
            let blobs = directory + "/blobs"
            for (made, parent) in [(blobs, directory), (folder, blobs)] where mkdir(made, 0o700) == 0 {
                FileIO.syncDirectory(parent)
            }
            let temporary = folder + "/." + address + "." + String(getpid()) + ".tmp"
            let fd = FileIO.createExclusive(temporary)
            guard fd >= 0 else { throw StoreError.io(path: temporary, reason: FileIO.errnoText()) }
            do {
                defer { close(fd) }
                try FileIO.writeAll(fd, bytes, path: temporary)
                guard FileIO.retrying({ fsync(fd) }) == 0 else {
                    throw StoreError.io(path: temporary, reason: FileIO.errnoText())
                }
            } catch {
                unlink(temporary)
                throw error
            }
            guard FileIO.retrying({ rename(temporary, file) }) == 0 else {
                let reason = FileIO.errnoText()
                unlink(temporary)
                throw StoreError.io(path: file, reason: reason)
            }
            FileIO.syncDirectory(folder)
            if createdHere { blobsPutHere.append(file) }
        } catch {
            if created { discardCreatedStore() }
            throw error
        }
    }

    public func getBlob(_ address: String) async throws -> [UInt8]? {
        let address = try BlobAddress.checked(address)
        return try FileIO.readFile(blobPath(address).file)
    }

    /// Renamed to `.<address>.damaged` beside where it was, which no listing or read takes.
    public func setBlobAside(_ address: String) async throws -> Bool {
        let address = try BlobAddress.checked(address)
        try await waitForTransactions()
        let (folder, file) = blobPath(address)
        guard FileIO.retrying({ rename(file, folder + "/." + address + ".damaged") }) == 0 else {
            if errno == ENOENT { return false }
            throw StoreError.io(path: file, reason: FileIO.errnoText())
        }
        FileIO.syncDirectory(folder)
        return true
    }

    /// The files of `blobs/*/` named as blobs are: a piece a put left, or a file someone else put
    /// there, is none.
    public func blobAddresses() async throws -> [String] {
        let blobs = directory + "/blobs"
        var addresses: [String] = []
        for folder in try Self.entries(of: blobs) where folder.utf8.count == 2 {
            addresses += try Self.entries(of: blobs + "/" + folder).filter {
                BlobAddress.isValid($0) && $0.hasPrefix(folder)
            }
        }
        return addresses
    }

    /// Each blob is first renamed aside, then its time read: one a put made new again just before
    /// (see putBlob) goes back; one a put looks for just after is not there, and is written anew.
    /// So a blob is never taken from under a post that names it.
    public func removeBlobs(_ addresses: [String], putBefore seconds: Int) async throws -> (count: Int, bytes: Int) {
        let cutoff = time(nil) - seconds
        var (count, bytes) = (0, 0)
        var folders: Set<String> = []
        putBackLeftAside()
        for address in addresses {
            let address = try BlobAddress.checked(address)
            let (folder, file) = blobPath(address)
            // This process's own name: two collections at once never take each other's file.
            let aside = folder + "/." + address + "." + String(getpid()) + ".removing"
            guard FileIO.retrying({ rename(file, aside) }) == 0 else { continue }
            folders.insert(folder)
            var status = stat()
            guard stat(aside, &status) == 0 else { continue }
            if status.st_mtim.tv_sec > cutoff {
                guard FileIO.retrying({ rename(aside, file) }) == 0 else {
                    throw StoreError.io(path: file, reason: "it could not be put back: " + FileIO.errnoText())
                }
                continue
            }
            guard unlink(aside) == 0 else { throw StoreError.io(path: aside, reason: FileIO.errnoText()) }
            (count, bytes) = (count + 1, bytes + Int(status.st_size))
        }
        // Pieces of puts that were cut short (a process killed mid-write), as old as the cutoff.
        let blobs = directory + "/blobs"
        // A blobs folder that cannot be listed has nothing to sweep that the removals above needed.
        for folder in (try? Self.entries(of: blobs)) ?? [] where folder.utf8.count == 2 {
            let path = blobs + "/" + folder
            for name in try Self.entries(of: path) where name.hasPrefix(".") && name.hasSuffix(".tmp") {
                var status = stat()
                if stat(path + "/" + name, &status) == 0, status.st_mtim.tv_sec <= cutoff,
                    unlink(path + "/" + name) == 0
                {
                    folders.insert(path)
                }
            }
        }
        for folder in folders { FileIO.syncDirectory(folder) }
        return (count, bytes)
    }

    /// Puts back what a collection killed between its rename and its decision left aside, where
    /// the blob's name is free: a post may have made it new just before, and its tweet names it.
    /// (One that was old goes at the next collection.)
    private func putBackLeftAside() {
        let blobs = directory + "/blobs"
        // A blobs folder that cannot be listed has nothing left aside that this could find.
        for folder in (try? Self.entries(of: blobs)) ?? [] where folder.utf8.count == 2 {
            let path = blobs + "/" + folder
            // As above: a folder that cannot be listed keeps what it has.
            for name in (try? Self.entries(of: path)) ?? [] where name.hasPrefix(".") && name.hasSuffix(".removing") {
                let address = String(name.dropFirst().prefix(64))
                guard BlobAddress.isValid(address) else { continue }
                let pid = name.dropFirst(66).dropLast(9)
                // A collection still running (its process alive) decides for itself.
                if let running = Int32(pid), kill(running, 0) == 0 || errno == EPERM { continue }
                var status = stat()
                if stat(path + "/" + address, &status) != 0 { rename(path + "/" + name, path + "/" + address) }
            }
        }
    }

    /// The names in `directory` but `.` and `..`; none when it does not exist.
    private static func entries(of directory: String) throws -> [String] {
        var opened = opendir(directory)
        // A signal that interrupts the open is no reason to fail: it is tried again.
        while opened == nil, errno == EINTR { opened = opendir(directory) }
        guard let stream = opened else {
            if errno == ENOENT { return [] }
            throw StoreError.io(path: directory, reason: FileIO.errnoText())
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func getDocument(_ path: DocumentPath) async throws -> DocumentSnapshot? {
        try await waitForTransactions()
        return try read(orEmpty: nil) { snapshot in
            try snapshot.document(at: path).map { DocumentSnapshot(path: path, data: $0) }
        }
    }

    public func getDocuments(_ paths: [DocumentPath]) async throws -> [DocumentSnapshot] {
        try await waitForTransactions()
        return try read(orEmpty: []) { snapshot in try snapshot.documents(at: paths) }
    }

    public func runQuery(_ query: Query) async throws -> [DocumentSnapshot] {
        try await waitForTransactions()
        return try read(orEmpty: []) { snapshot in try snapshot.query(query) }
    }

    /// Reads the queries side by side from one state of the store, each only as far as the merge
    /// takes it (see ``StoreSnapshot/mergedQuery(_:limit:)``).
    public func runMergedQuery(_ queries: [Query], limit: Int) async throws -> [(
        query: Int, snapshot: DocumentSnapshot
    )] {
        try await waitForTransactions()
        return try read(orEmpty: []) { snapshot in try snapshot.mergedQuery(queries, limit: limit) }
    }

    /// Each prefix's run of IDs read straight from each segment's sorted IDs, without the query
    /// machinery: a listing asks for one run for each row it shows.
    public func documentIDs(in collection: String, startingWith prefixes: [String], limit: Int) async throws
        -> [[String]]
    {
        try await waitForTransactions()
        return try read(orEmpty: prefixes.map { _ in [] }) { snapshot in
            try prefixes.map { try snapshot.documentIDs(in: collection, startingWith: $0, limit: limit) }
        }
    }

    /// The lengths from each segment's ID keys, reading IDs only where a start is shared.
    public func uniquePrefixLengths(in collection: String, of ids: [String], minimum: Int) async throws -> [Int] {
        try await waitForTransactions()
        return try read(orEmpty: ids.map { min($0.utf8.count, minimum) }) { snapshot in
            try snapshot.uniquePrefixLengths(in: collection, of: ids, minimum: minimum)
        }
    }

    public func count(_ query: Query) async throws -> Int {
        try await waitForTransactions()
        return try read(orEmpty: 0) { snapshot in try snapshot.query(query).count }
    }

    /// Holds the store's exclusive lock from the first read to the commit, so the body runs once.
    public func runTransaction<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T {
        try await waitForTransactions()
        unpin()
        let number = gate.open()
        defer { gate.close() }
        let created = try engineForWriting()
        let time: Date
        do {
            time = try engine!.beginTransaction()
        } catch {
            if created { discardCreatedStore() }
            throw error
        }
        do {
            let transaction = Transaction(
                reader: LocalTransactionReader(store: self, number: number), time: time)
            let result = try await body(transaction)
            let wantsCompaction = try engine!.commitTransaction(transaction.writes, time: time)
            committed()
            if wantsCompaction { startCompaction() }
            return result
        } catch {
            // A failed commit has released the lock already; releasing it again changes nothing.
            engine?.abortTransaction()
            if created { discardCreatedStore() }
            throw error
        }
    }

    /// Writes all `documents` as one new segment: atomic like a transaction, and far faster for
    /// bulk data, since nothing passes through the journal.
    public func importDocuments(_ documents: [(DocumentPath, JSONObject)], requiringEmpty collection: String?)
        async throws
    {
        let unique = Self.sortedEntries(documents)
        let guardQuery = collection.map { self.collection($0).query.limit(to: 1) }
        try await waitForTransactions()
        let wantsMerge = try writing { engine in
            try engine.importSegment { snapshot in
                if let guardQuery, let collection, try !snapshot.query(guardQuery).isEmpty {
                    throw StoreError.notEmpty(collection: collection)
                }
                return unique
            }
        }
        if wantsMerge { startCompaction() }
    }

    /// Writes the documents `produce` gives as one new segment, like
    /// ``importDocuments(_:requiringEmpty:)``, holding few of them: each becomes its segment line
    /// at once, and the lines are sorted by path on disk (``ExternalSorter``) before the segment is
    /// written from them, parsing again only those an index needs.
    public func importDocuments(
        requiringEmpty collection: String?,
        from produce: sending (_ add: (DocumentPath, JSONObject) throws -> Void) async throws -> Void
    ) async throws {
        try await waitForTransactions()
        // The directory holds the sort's temporary files: the store is made first, and removed
        // again if nothing comes of it.
        let created = try engineForWriting()
        do {
            var sorter = ExternalSorter(directory: directory)
            // The line, then its index keys, made from the fields at hand rather than parsed
            // again from the line when the segment is written; on another thread, a batch at a
            // time, while the next documents are read or made.
            var records = RecordPipeline(indexes: self.indexes)
            try await produce { path, fields in
                try records.add(path, fields) { key, record in try sorter.add(value: record) { $0 += key } }
            }
            try records.finish { key, record in try sorter.add(value: record) { $0 += key } }
            let capacity = sorter.count
            var sorted = try sorter.sorted()
            var previous: DocumentPath?
            let guardQuery = collection.map { self.collection($0).query.limit(to: 1) }
            let wantsMerge = try engine!.importSegment(capacity: capacity) { snapshot in
                if let guardQuery, let collection, try !snapshot.query(guardQuery).isEmpty {
                    throw StoreError.notEmpty(collection: collection)
                }
            } next: {
                guard let record = try sorted.nextValue() else { return nil }
                let entry = try Self.entry(record)
                if entry.path == previous { throw StoreError.duplicateDocument(path: entry.path.description) }
                previous = entry.path
                return entry
            }
            committed()
            if wantsMerge { startCompaction() }
        } catch {
            // Also when this process created the store for the photos it put first (a seed).
            if created || createdHere { discardCreatedStore() }
            throw error
        }
    }

    /// The produced documents are sorted on disk (``ExternalSorter``) and written as a segment
    /// with no lock held, so that readers and writers go on meanwhile; `finish` then runs under
    /// the exclusive lock, and its writes become a newer segment, committed with that one.
    public func bulkWrite<T: Sendable>(
        produce: sending (_ bulk: BulkWrite) async throws -> Void,
        finish: @Sendable (_ transaction: Transaction, _ changed: Bool) async throws -> T
    ) async throws -> T {
        try await waitForTransactions()
        let created = try engineForWriting()
        do {
            // Another bulk write is waited for as the store's lock is, then named.
            var taken = try CompactionLock.acquire(directory, .bulk)
            let deadline = Date().addingTimeInterval(StoreError.busyAfter)
            while taken == nil, Date() < deadline {
                usleep(50_000)
                taken = try CompactionLock.acquire(directory, .bulk)
            }
            guard let importing = taken else { throw StoreError.busy(path: directory, holder: "another import") }
            defer { CompactionLock.release(importing) }
            CompactionLock.removeAbandonedOutputs(directory, .bulk)
            let version = try engine!.committedVersion()
            var sorter = ExternalSorter(directory: directory, budget: Self.bulkSortBudget)
            var records = RecordPipeline(indexes: self.indexes, batchSize: 512)
            let aside = SpilledRecordSorter(directory: directory, budget: Self.bulkSortBudget)
            let bulk = BulkWrite(
                add: { path, fields in
                    try records.add(path, fields) { key, record in try sorter.add(value: record) { $0 += key } }
                }, sorter: aside)
            try await produce(bulk)
            try records.finish { key, record in try sorter.add(value: record) { $0 += key } }
            // What producing freed goes back to the system before the segment is written: the
            // allocator keeps it otherwise, and a bulk write's peak is in writing the segment.
            ProcessControl.trimHeap()
            let output = CompactionLock.outputName(.bulk, pid: getpid())
            let documents: Int
            do {
                let capacity = sorter.count
                var sorted = try sorter.sorted()
                var previous: DocumentPath?
                var writer = SegmentWriter(directory: directory, indexes: indexes)
                writer.sortBudget = Self.bulkSortBudget
                writer.offsetsInMemory = 1 << 16
                documents = try writer.write(
                    name: output, atMost: capacity
                ) {
                    guard let record = try sorted.nextValue() else { return nil }
                    let entry = try Self.entry(record)
                    if entry.path == previous { throw StoreError.duplicateDocument(path: entry.path.description) }
                    previous = entry.path
                    return entry
                }
            } catch {
                SegmentFormat.removeFiles(of: output, in: directory)
                throw error
            }
            let number = gate.open()
            defer { gate.close() }
            let result: T
            let wantsCompaction: Bool
            do {
                let time = try engine!.beginTransaction()
                do {
                    let changed = engine!.committedVersionUnderLock() != version
                    let transaction = Transaction(
                        reader: LocalTransactionReader(store: self, number: number), time: time)
                    result = try await finish(transaction, changed)
                    wantsCompaction = try engine!.commitBulk(
                        output: output, documents: documents, writes: transaction.writes, time: time)
                } catch {
                    engine?.abortTransaction()
                    throw error
                }
            } catch {
                SegmentFormat.removeFiles(of: output, in: directory)
                throw error
            }
            committed()
            if wantsCompaction { startCompaction() }
            return result
        } catch {
            // Also when this process created the store for the photos it put first (an import).
            if created || createdHere { discardCreatedStore() }
            throw error
        }
    }

    /// The budget of each of a bulk write's sorts (its documents, its records aside, the new
    /// segment's index keys): small, so that a bulk write of any size holds a few tens of megabytes.
    static let bulkSortBudget = 4 << 20

    /// What an import sorts for each document: its segment line's length (4 bytes, little-endian),
    /// the line, then each index key as its index's position (2 bytes), its length (4), its bytes
    /// and its tag (4).
    fileprivate static func record(_ path: DocumentPath, _ fields: JSONObject, indexes: [IndexDefinition]) -> [UInt8] {
        let line = SegmentFormat.line(path: path, data: fields)
        let keys = SegmentWriter.keys(of: fields, at: path, indexes: indexes)
        var record: [UInt8] = []
        record.reserveCapacity(4 + line.count + keys.reduce(0) { $0 + 10 + $1.key.count })
        appendLittleEndian(UInt32(line.count), to: &record)
        record += line
        for key in keys {
            record.append(UInt8(key.index & 0xFF))
            record.append(UInt8(key.index >> 8))
            appendLittleEndian(UInt32(key.key.count), to: &record)
            record += key.key
            appendLittleEndian(key.tag, to: &record)
        }
        return record
    }

    /// A sorted ``record(_:_:indexes:)`` as the entry to write: the line as it is, with its keys.
    private static func entry(_ record: ArraySlice<UInt8>) throws -> SegmentWriter.Entry {
        func number(_ at: Int, _ width: Int) -> Int {
            record[at..<(at + width)].reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        let start = record.startIndex
        let lineEnd = start + 4 + number(start, 4)
        let line = Array(record[(start + 4)..<lineEnd])
        var keys: [SegmentWriter.IndexKey] = []
        var position = lineEnd
        while position < record.endIndex {
            let length = number(position + 2, 4)
            keys.append(
                SegmentWriter.IndexKey(
                    index: number(position, 2), key: Array(record[(position + 6)..<(position + 6 + length)]),
                    tag: UInt32(number(position + 6 + length, 4))))
            position += 10 + length
        }
        let text = try line.withUnsafeBufferPointer { buffer in
            try JSONValue.parseString(in: UnsafeBufferPointer(rebasing: buffer[0..<(buffer.count - 1)]), at: 1).0
        }
        guard let path = DocumentPath(text) else {
            throw StoreError.io(path: "an import", reason: "a sorted line lost its path")
        }
        return SegmentWriter.Entry(path: path, data: nil, line: line, keys: keys)
    }

    private static func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// Writes, as one new segment, the documents the store does not have (see
    /// ``DocumentStore/mergeDocuments(_:)``), deciding under the exclusive lock which those are.
    public func mergeDocuments(_ documents: [(DocumentPath, JSONObject)]) async throws -> MergeReport {
        let unique = Self.sortedEntries(documents)
        try await waitForTransactions()
        var report = MergeReport()
        let wantsMerge = try writing { engine in
            try engine.importSegment { snapshot in
                report = MergeReport()
                var added: [SegmentWriter.Entry] = []
                for entry in unique {
                    guard let fields = entry.data else { continue }
                    if let stored = try snapshot.document(at: entry.path) {
                        report.count(stored, against: fields, at: entry.path)
                    } else {
                        added.append(entry)
                    }
                }
                report.added = added.count
                return added
            }
        }
        if wantsMerge { startCompaction() }
        return report
    }

    /// `documents` sorted by path, the later of two for one path kept (the sort is stable).
    private static func sortedEntries(_ documents: [(DocumentPath, JSONObject)]) -> [SegmentWriter.Entry] {
        var keys = SortKeyBuffer()
        for (path, _) in documents { keys.add { SortKey.path(path, into: &$0) } }
        var unique: [SegmentWriter.Entry] = []
        unique.reserveCapacity(documents.count)
        for position in keys.sortedPositions() {
            let (path, fields) = documents[position]
            if let last = unique.last, last.path == path {
                unique[unique.count - 1].data = fields
            } else {
                unique.append(SegmentWriter.Entry(path: path, data: fields))
            }
        }
        return unique
    }

    /// Folds the journal and runs the merges of segments the store wants now, here, without keeping
    /// other processes waiting (see ``Compaction``).
    /// - Returns: `false` when another process is merging the store's segments (which does the
    ///   work), or there is no store, or it cannot be written.
    @discardableResult
    public func compact() async throws -> Bool {
        try await waitForTransactions()
        unpin()
        guard try openEngine() else { return false }
        return try engine!.compact()
    }

    /// Starts the fold or merges a commit called for. The commit is done: a compaction that fails
    /// leaves the store as it was, for the next one, and is not the write's failure.
    private func startCompaction() {
        unpin()
        switch compaction {
        // Dropped on purpose: the write is committed, and a failed compaction leaves the store as it was.
        case .inProcess: _ = try? engine?.compact()
        case .background(let start): start(directory)
        }
    }

    public func exportDocuments(_ body: @Sendable ([DocumentSnapshot]) throws -> Void) async throws {
        try await waitForTransactions()
        // Each batch goes to `body` on a thread of its own while the next is read (an export's
        // serializing costs about what its reading does), one at a time and in order. Every
        // thread is joined before this returns, a thrown error too (dropping the work joins it):
        // `body` does not outlive the call.
        try withoutActuallyEscaping(body) { body in
            var handing: BackgroundWork<Void>?
            func hand(_ batch: [DocumentSnapshot]) throws {
                try handing?.wait()
                handing = try BackgroundWork { try body(batch) }
            }
            try read(orEmpty: ()) { snapshot in
                var batch: [DocumentSnapshot] = []
                batch.reserveCapacity(Self.exportBatch)
                try snapshot.forEachDocument { document in
                    batch.append(document)
                    if batch.count == Self.exportBatch {
                        try hand(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if !batch.isEmpty { try hand(batch) }
            }
            try handing?.wait()
        }
    }

    /// Documents per batch of an export: large enough to write in big chunks, small enough to stay
    /// a few megabytes.
    private static let exportBatch = 1024
}

/// Reads of one local transaction: on the store's own snapshot, under its exclusive lock.
private struct LocalTransactionReader: TransactionReader {
    let store: LocalDocumentStore
    let number: Int

    func document(at path: DocumentPath) async throws -> JSONObject? {
        try await store.transactionRead(number) { try $0.document(at: path) }
    }

    func query(_ query: Query) async throws -> [DocumentSnapshot] {
        try await store.transactionRead(number) { try $0.query(query) }
    }
}

/// An import's documents made into what its sort takes (each path's sort key, and its
/// ``LocalDocumentStore/record(_:_:indexes:)``) on other threads, a batch at a time, up to two
/// batches at once, while the caller reads or makes the next: making records is most of an
/// import's work before its sort, and this spreads it over the cores. The records reach `sink`
/// in the order the documents came.
private struct RecordPipeline {
    typealias Sink = (_ key: [UInt8], _ record: [UInt8]) throws -> Void

    let indexes: [IndexDefinition]
    /// Documents per batch: enough that starting a thread is a small part of its work.
    static let batchSize = 2048
    private let batchSize: Int
    /// Batches being made at once.
    static let depth = 2
    private var batch: [(DocumentPath, JSONObject)] = []
    /// The batches being made, oldest first.
    private var inFlight: [BackgroundWork<[(key: [UInt8], record: [UInt8])]>] = []

    /// `batchSize` smaller than the default for documents that are large in memory (a bulk
    /// write's search buckets hold 64 strings each), since three batches are held at once.
    init(indexes: [IndexDefinition], batchSize: Int = RecordPipeline.batchSize) {
        self.indexes = indexes
        self.batchSize = max(1, batchSize)
        batch.reserveCapacity(self.batchSize)
    }

    mutating func add(_ path: DocumentPath, _ fields: JSONObject, into sink: Sink) throws {
        batch.append((path, fields))
        guard batch.count >= batchSize else { return }
        if inFlight.count >= Self.depth { try drainOldest(into: sink) }
        try start()
    }

    /// Hands `sink` every record, in order, once all are made.
    mutating func finish(into sink: Sink) throws {
        if !batch.isEmpty { try start() }
        while !inFlight.isEmpty { try drainOldest(into: sink) }
    }

    /// Starts making the batch gathered.
    private mutating func start() throws {
        let (documents, indexes) = (batch, indexes)
        batch = []
        batch.reserveCapacity(batchSize)
        inFlight.append(
            try BackgroundWork {
                documents.map { path, fields in
                    var key: [UInt8] = []
                    SortKey.path(path, into: &key)
                    return (key, LocalDocumentStore.record(path, fields, indexes: indexes))
                }
            })
    }

    /// Waits for the oldest batch and hands `sink` its records.
    private mutating func drainOldest(into sink: Sink) throws {
        let made = try inFlight.removeFirst().wait()
        for (key, record) in made { try sink(key, record) }
    }
}

/// A bulk write's records sorted aside, on disk beyond `budget` bytes.
private final class SpilledRecordSorter: RecordSorter {
    private var sorter: ExternalSorter?

    init(directory: String, budget: Int) {
        sorter = ExternalSorter(directory: directory, budget: budget)
    }

    func add(key: [UInt8], value: [UInt8]) throws {
        guard sorter != nil else {
            throw StoreError.io(path: "a bulk write", reason: "its records were sorted already")
        }
        try sorter!.add(value: value) { $0 += key }
    }

    func sorted() throws -> RecordStream {
        guard let taken = sorter.take() else {
            throw StoreError.io(path: "a bulk write", reason: "its records were sorted already")
        }
        var records = try taken.sorted()
        return RecordStream {
            try records.nextKeyAndValue().map { (Array($0.key), Array($0.value)) }
        }
    }
}
