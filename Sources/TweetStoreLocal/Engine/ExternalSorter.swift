import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Sorts more records than memory should hold (an external sort): records are gathered up to half
/// a budget of bytes, then sorted and written to a run file on another thread while the other half
/// fills; at the end the runs are merged. Keys compare as bytes (shorter first on a tie); records
/// with equal keys come out in the order they were added.
///
/// Run files are unnamed (`O_TMPFILE`, or created and unlinked at once) in the store's directory,
/// on the store's disk rather than a RAM-backed `/tmp`: a process killed while sorting leaves
/// nothing behind, since the system frees an unnamed file with its last descriptor.
struct ExternalSorter {
    /// One record: its key and its value.
    typealias Record = (key: [UInt8], value: [UInt8])

    private let directory: String
    private let budget: Int
    /// Runs of one level merged into one of the next (see ``mergeFullLevels()``).
    private let fanIn: Int
    private var keys = SortKeyBuffer()
    private var values: [UInt8] = []
    private var valueStarts: [Int] = [0]
    private var runs: [RunFile] = []
    /// Each run's level: 0 as written from memory, one more for each merge it went through.
    private var levels: [Int] = []
    /// The run being sorted and written on another thread, while records go on being added.
    private var pending: BackgroundWork<RunFile>?
    /// Records added.
    private(set) var count = 0
    /// Records written to run files, merges included: the sort's write amplification.
    private(set) var recordsWritten = 0

    /// - Parameters:
    ///   - directory: where run files go.
    ///   - budget: the bytes of records (and their bookkeeping) held at most: half of it in the
    ///     run being written, half in the records gathered meanwhile.
    ///   - fanIn: runs of one level merged into one of the next; by default as many as this
    ///     process may keep open (``defaultFanIn``).
    init(directory: String, budget: Int = 32 << 20, fanIn: Int = ExternalSorter.defaultFanIn) {
        self.directory = directory
        self.budget = max(1, budget)
        self.fanIn = max(2, fanIn)
    }

    /// Adds a record whose key `build` appends to the bytes it is given.
    mutating func add(value: some Collection<UInt8>, key build: (inout [UInt8]) -> Void) throws {
        keys.add(build)
        values.append(contentsOf: value)
        valueStarts.append(values.count)
        count += 1
        // Each record also costs its two starts and its sorted position. Half the budget fills
        // while the other half is sorted and written on another thread.
        if keys.bytes.count + values.count + keys.count * 24 >= budget / 2 { try spill() }
    }

    /// Hands the records held to another thread, which sorts them and writes them as a run, once
    /// the run before is written.
    private mutating func spill() throws {
        try finishPendingRun()
        let (held, heldValues, heldStarts, directory) = (keys, values, valueStarts, directory)
        recordsWritten += keys.count
        keys = SortKeyBuffer()
        values = []
        values.reserveCapacity(heldValues.count)
        valueStarts = [0]
        pending = try BackgroundWork { try Self.writeRun(held, heldValues, heldStarts, in: directory) }
    }

    /// Waits for the run being written, takes it in, and merges the runs that make a full level.
    private mutating func finishPendingRun() throws {
        guard let run = pending else { return }
        pending = nil
        runs.append(try run.wait())
        levels.append(0)
        try mergeFullLevels()
    }

    /// Sorts `keys` and writes them, each with its value, as a new run.
    private static func writeRun(_ keys: SortKeyBuffer, _ values: [UInt8], _ valueStarts: [Int], in directory: String)
        throws -> RunFile
    {
        let file = try RunFile(directory: directory)
        for position in keys.sortedPositions() {
            try file.append(
                key: keys.bytes[keys.starts[position]..<keys.starts[position + 1]],
                value: values[valueStarts[position]..<valueStarts[position + 1]])
        }
        try file.finishWriting()
        return file
    }

    /// Each run keeps a descriptor open, so runs are merged as they pile up, by level as a
    /// log-structured store compacts: `fanIn` runs of one level become one of the next. Each
    /// record is written once per level (about log of the runs to the base `fanIn`; once, for a
    /// sort of fewer runs than `fanIn`), never again with every merge
    /// as when each merge took in everything merged before. The runs stay oldest first, their
    /// levels falling towards the newest, so a merge of the newest runs keeps equal keys in the
    /// order they were added.
    private mutating func mergeFullLevels() throws {
        while let level = levels.last {
            let tail = levels.reversed().prefix { $0 == level }.count
            guard tail >= fanIn else { return }
            let start = runs.count - tail
            var merged = try SortedRecords(runs: Array(runs[start...]))
            let file = try RunFile(directory: directory)
            while let record = try merged.nextRecord() {
                try file.append(key: record.key[...], value: record.value[...])
                recordsWritten += 1
            }
            try file.finishWriting()
            runs.removeSubrange(start...)
            levels.removeSubrange(start...)
            runs.append(file)
            levels.append(level + 1)
        }
    }

    /// Runs of one level merged into one of the next, unless a test says otherwise. Each run
    /// holds a descriptor, and an import sorts its documents and, while it writes them, their
    /// index keys: two sorters, each with up to this many runs open, within a third of the
    /// descriptors this process may open (raised first to the hard limit, up to 8192; the
    /// processes tweetcli starts inherit the raised limit, which none of them minds). At 1024,
    /// even the ten-million-tweet seed's documents, in 16 MiB runs, are merged once, at the end,
    /// instead of being written a second time on the way.
    static let defaultFanIn: Int = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 32 }
        let wanted = min(limit.rlim_max, 8192)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            // Refused, the soft limit stays as it is, and the fan-in is sized for it.
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let usable = Int(clamping: limit.rlim_cur)
        return min(1024, max(4, (usable - 64) / 3))
    }()

    /// The records in key order, read one at a time. Without a run written, straight from memory.
    consuming func sorted() throws -> SortedRecords {
        if runs.isEmpty && pending == nil {
            return SortedRecords(memory: (keys, values, valueStarts, keys.sortedPositions()))
        }
        if keys.count > 0 { try spill() }
        try finishPendingRun()
        return try SortedRecords(runs: runs, readAhead: min(16 << 20, budget))
    }
}

/// The sorted records of an ``ExternalSorter``: one source in memory, or runs merged through a heap.
struct SortedRecords {
    private var memory: (keys: SortKeyBuffer, values: [UInt8], valueStarts: [Int], order: [Int])?
    private var next = 0
    private var runs: [RunFile] = []
    /// Each run's current record, `nil` once it is done.
    private var heads: [ExternalSorter.Record?] = []
    /// Run numbers ordered by their heads (a binary min-heap; the lower run wins a tie, since it
    /// holds the earlier records).
    private var heap: [Int] = []

    fileprivate init(memory: (SortKeyBuffer, [UInt8], [Int], [Int])) {
        self.memory = memory
    }

    /// - Parameter readAhead: the bytes all runs read ahead together.
    fileprivate init(runs: [RunFile], readAhead total: Int = 16 << 20) throws {
        self.runs = runs
        // Each run reads ahead a share of the total (at least 16 KiB), so that a merge of many
        // runs holds about as much as a merge of a few.
        let readAhead = max(16 << 10, min(SpillFile.chunk, total / max(1, runs.count)))
        for run in runs { run.readChunk = readAhead }
        heads = try runs.map { try $0.read() }
        for run in runs.indices where heads[run] != nil {
            heap.append(run)
            siftUp(heap.count - 1)
        }
    }

    /// The next record's value in key order, or `nil` at the end.
    mutating func nextValue() throws -> ArraySlice<UInt8>? {
        try nextKeyAndValue()?.value
    }

    /// The next record in key order, or `nil` at the end.
    mutating func nextKeyAndValue() throws -> (key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)? {
        if let memory {
            guard next < memory.order.count else { return nil }
            let position = memory.order[next]
            next += 1
            let (keyStart, keyEnd) = (memory.keys.starts[position], memory.keys.starts[position + 1])
            return (
                memory.keys.bytes[keyStart..<keyEnd],
                memory.values[memory.valueStarts[position]..<memory.valueStarts[position + 1]]
            )
        }
        return try nextRecord().map { ($0.key[...], $0.value[...]) }
    }

    /// The runs' next record in key order, or `nil` at the end.
    fileprivate mutating func nextRecord() throws -> ExternalSorter.Record? {
        guard let run = heap.first, let record = heads[run] else { return nil }
        heads[run] = try runs[run].read()
        if heads[run] == nil {
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
        }
        if !heap.isEmpty { siftDown(0) }
        return record
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        guard let left = heads[a]?.key, let right = heads[b]?.key else { return heads[a] != nil }
        let order = left.withUnsafeBufferPointer { l in
            right.withUnsafeBufferPointer { r in
                min(l.count, r.count) == 0 ? 0 : memcmp(l.baseAddress!, r.baseAddress!, min(l.count, r.count))
            }
        }
        if order != 0 { return order < 0 }
        return left.count < right.count || (left.count == right.count && a < b)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var smallest = parent
            let left = 2 * parent + 1
            if left < heap.count, precedes(heap[left], heap[smallest]) { smallest = left }
            if left + 1 < heap.count, precedes(heap[left + 1], heap[smallest]) { smallest = left + 1 }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// An unnamed temporary file written once, then read back from the start, through a buffer.
final class SpillFile {
    private let fd: Int32
    private let directory: String
    private var buffer: [UInt8] = []
    private var written = 0
    private var readOffset = 0
    private var readBuffer: [UInt8] = []
    private var readPosition = 0
    /// Bytes written at a time, and read at a time unless ``readChunk`` says otherwise.
    static let chunk = 1 << 18
    /// Bytes read ahead at a time.
    var readChunk = SpillFile.chunk

    init(directory: String) throws {
        self.directory = directory
        // O_TMPFILE, which Glibc shows only to _GNU_SOURCE: __O_TMPFILE (asm-generic's value, the
        // one x86-64 and arm64 use) with O_DIRECTORY.
        let unnamed: Int32 = 0o20_000_000 | O_DIRECTORY
        var fd = FileIO.retrying { open(directory, unnamed | O_RDWR | O_CLOEXEC, 0o600) }
        if fd < 0 {
            // A file system without O_TMPFILE: a named file, unlinked at once.
            let path = PathName.join(directory, "spill-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
            fd = FileIO.retrying { open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
            if fd >= 0 { unlink(path) }
        }
        guard fd >= 0 else {
            throw StoreError.io(path: directory, reason: "cannot make a temporary file: \(FileIO.errnoText())")
        }
        self.fd = fd
        buffer.reserveCapacity(Self.chunk)
    }

    deinit { close(fd) }

    func write(_ bytes: some Collection<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.chunk { try flush() }
    }

    private func flush() throws {
        try StoreFiles.writeAll(fd, buffer, path: directory)
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Ends writing: what was written is read from the start. The write buffer goes: a sort
    /// keeps hundreds of runs open.
    func finishWriting() throws {
        try flush()
        buffer = []
    }

    /// The next `count` bytes, or `nil` at the end; a file that ends inside them is an error.
    func read(_ count: Int) throws -> ArraySlice<UInt8>? {
        while readBuffer.count - readPosition < count {
            guard readOffset < written else {
                if readPosition == readBuffer.count { return nil }
                throw StoreError.io(path: directory, reason: "a temporary file ended early")
            }
            let size = min(max(readChunk, count), written - readOffset)
            // A new buffer of what is left and what comes, never one grown in place: a merge of
            // hundreds of runs keeps one for each, and grown ones keep their largest size.
            var refilled: [UInt8] = []
            refilled.reserveCapacity(readBuffer.count - readPosition + size)
            refilled += readBuffer[readPosition...]
            refilled += try StoreFiles.readBytes(from: fd, offset: readOffset, count: size, path: directory)
            readBuffer = refilled
            readPosition = 0
            readOffset += size
        }
        defer { readPosition += count }
        return readBuffer[readPosition..<(readPosition + count)]
    }
}

/// One sorted run: records as a 4-byte little-endian key length, the key, a 4-byte value length,
/// the value.
typealias RunFile = SpillFile

extension SpillFile {
    func append(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>) throws {
        try withUnsafeBytes(of: UInt32(key.count).littleEndian) { try write($0) }
        try write(key)
        try withUnsafeBytes(of: UInt32(value.count).littleEndian) { try write($0) }
        try write(value)
    }

    /// The next record, or `nil` at the end.
    func read() throws -> ExternalSorter.Record? {
        guard let keyLength = try read(4) else { return nil }
        let key = Array(try exactly(Int(Self.uint32(keyLength))))
        return (key, Array(try exactly(Int(Self.uint32(try exactly(4))))))
    }

    /// The next `count` bytes, which must be there.
    func exactly(_ count: Int) throws -> ArraySlice<UInt8> {
        guard let bytes = try read(count) else {
            throw StoreError.io(path: "a temporary file", reason: "it ended inside a record")
        }
        return bytes
    }

    private static func uint32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
