import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Checks every file of a local store and repairs what can be repaired: every intact record is
/// kept, and whatever is removed is moved, byte for byte, to a side file beside it, never deleted.
///
/// It works on the files directly (a damaged store cannot be opened), under the store's
/// exclusive lock.
public struct StoreDoctor: StoreMaintenance {
    public let directory: String
    private let indexes: [IndexDefinition]
    private let foldThreshold: Int

    /// - Parameters:
    ///   - directory: the store's directory.
    ///   - indexes: the indexes rebuilt segments get (the same the store is opened with).
    ///   - foldThreshold: the journal records ``compact()`` folds at (the store's own).
    public init(directory: String, indexes: [IndexDefinition], foldThreshold: Int = 128) {
        self.directory = directory
        self.indexes = indexes
        self.foldThreshold = foldThreshold
    }

    private var journalPath: String { PathName.join(directory, StorageEngine.journalName) }

    /// Every problem in the store's files; empty for a healthy store.
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` when there is no store at all.
    public func check() throws -> [StoreProblem] {
        try check(progress: { _ in })
    }

    /// ``check()``, telling `progress` the files checked (the manifest and journal as one, then
    /// each segment) of all.
    public func check(progress: @escaping ProgressHandler) throws -> [StoreProblem] {
        try withLock {
            let (manifest, manifestProblems) = try inspectManifest()
            let segments = manifest?.segments ?? []
            // Without the manifest the journal's records cannot be placed after the segments'.
            var problems = try manifest.map { try inspectJournal(folded: $0.foldedSequence).problems } ?? []
            problems += manifestProblems
            progress(WorkProgress(done: 1, total: segments.count + 1))
            for (position, info) in segments.enumerated() {
                problems += try inspectSegment(info.name).problems
                progress(WorkProgress(done: position + 2, total: segments.count + 1))
            }
            return problems
        }
    }

    /// Fixes what ``check()`` finds: damaged journal records and a torn write move to a side file
    /// and the journal is rewritten with the intact ones; a segment with damaged lines or a bad
    /// index is rewritten from its intact lines (damaged ones to a side file), under a new name
    /// committed by the manifest. A damaged manifest or a file from a newer version is left alone.
    /// Folds the journal and runs the merges the segments want (see
    /// ``StorageEngine/compact(beforeFoldCommit:)``); a directory without a store is left as it is.
    public func compact() throws -> Bool {
        try compact(progress: { _ in })
    }

    /// ``compact()``, telling `progress` the documents merged so far.
    public func compact(progress: @escaping ProgressHandler) throws -> Bool {
        guard StorageEngine.exists(in: directory) else { throw StoreError.noStore(path: directory) }
        var engine = try StorageEngine(
            directory: directory, clock: Date.init, indexes: indexes, foldThreshold: foldThreshold)
        return try engine.compact(progress: progress)
    }

    public func repair() throws -> RepairReport {
        try repair(progress: { _ in })
    }

    /// ``repair()``, telling `progress` the files done (the manifest and journal as one, then each
    /// segment) of all.
    public func repair(progress: @escaping ProgressHandler) throws -> RepairReport {
        try withLock {
            var report = RepairReport()
            let stamp = Int(Date().timeIntervalSince1970 * 1000)
            // Nothing is rewritten when the manifest cannot be read: where the journal continues
            // the segments, and which segments are live, is only known from it.
            let (first, firstProblems) = try inspectManifest()
            guard let folded = first?.foldedSequence else {
                report.unrepaired += firstProblems
                return report
            }
            let journal = try inspectJournal(folded: folded)
            if !journal.problems.isEmpty {
                if journal.problems.allSatisfy(\.isRepairable) {
                    if !journal.removed.isEmpty {
                        let side = journalPath + ".damaged-\(stamp)"
                        try StoreFiles.replaceAtomically(path: side, contents: journal.removed, directory: directory)
                        report.sideFiles.append(side)
                    }
                    try StoreFiles.replaceAtomically(path: journalPath, contents: journal.kept, directory: directory)
                    report.repaired += journal.problems
                } else {
                    report.unrepaired += journal.problems
                }
            }
            let (loaded, manifestProblems) = try inspectManifest()
            report.unrepaired += manifestProblems
            guard var manifest = loaded, manifest.foldedSequence == folded else { return report }
            var replaced: [String] = []
            let files = manifest.segments.count + 1
            progress(WorkProgress(done: 1, total: files))
            for (position, info) in manifest.segments.enumerated() {
                defer { progress(WorkProgress(done: position + 2, total: files)) }
                let segment = try inspectSegment(info.name)
                guard !segment.problems.isEmpty else { continue }
                guard segment.problems.allSatisfy(\.isRepairable) else {
                    report.unrepaired += segment.problems
                    continue
                }
                let side = PathName.join(directory, "damaged-\(info.name)-\(stamp).jsonl")
                let name = SegmentFormat.segmentName(manifest.nextSegment)
                manifest.nextSegment += 1
                let (count, wroteSide) = try rewriteSegment(info.name, as: name, inspection: segment, side: side)
                if wroteSide { report.sideFiles.append(side) }
                manifest.segments[position] = .init(name: name, documents: count)
                replaced.append(info.name)
                report.repaired += segment.problems
            }
            if !replaced.isEmpty {
                try manifest.save(directory: directory)
                // Every byte of the replaced segments is now in the new ones or in a side file.
                for name in replaced { SegmentFormat.removeFiles(of: name, in: directory) }
            }
            return report
        }
    }

    // MARK: Inspection

    private func withLock<T>(_ body: () throws -> T) throws -> T {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory else {
            throw StoreError.cannotOpen(path: directory, reason: "there is no store there")
        }
        let lock = try StoreLock.open(directory)
        try StoreLock.acquire(lock.fd, exclusive: true, directory: directory)
        defer { StoreLock.release(lock.fd) }
        return try body()
    }

    /// The journal's problems, the bytes a repair keeps (header and intact records) and the bytes it moves aside.
    /// - Throws: ``StoreError/io(path:reason:)`` when the journal is there but cannot be read: a
    ///   repair never rewrites what it could not read.
    /// - Parameter folded: the manifest's `foldedSequence`, where the journal's records continue.
    private func inspectJournal(folded: Int64) throws -> (problems: [StoreProblem], kept: [UInt8], removed: [UInt8]) {
        let header =
            JSONValue.object([
                "format": .string(StorageEngine.formatName), "version": .integer(StorageEngine.journalVersion),
            ]).serialized() + [0x0A]
        guard let bytes = try StoreFiles.readFile(journalPath) else {
            return ([StoreProblem(file: journalPath, reason: "the journal is missing", isRepairable: true)], header, [])
        }
        if bytes.isEmpty {
            return (
                [StoreProblem(file: journalPath, line: 1, reason: "the file is empty", isRepairable: true)], header, []
            )
        }
        var problems: [StoreProblem] = []
        var kept: [UInt8] = []
        var removed: [UInt8] = []
        var headerKept = false
        var records: [JournalRecord] = []
        var start = 0
        var line = 0
        while start < bytes.count {
            line += 1
            guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
                problems.append(
                    StoreProblem(
                        file: journalPath, line: line,
                        reason: "an unfinished write of \(bytes.count - start) bytes at the end, never acknowledged",
                        isRepairable: true))
                removed += bytes[start...] + [0x0A]
                break
            }
            let text = bytes[start..<newline]
            let whole = Array(bytes[start...newline])
            start = newline + 1
            if line == 1 {
                do {
                    try FileHeader.check(
                        text, format: StorageEngine.formatName, supportedVersion: StorageEngine.journalVersion)
                    kept += whole
                    headerKept = true
                    continue
                } catch .newerVersion(let version) {
                    // A newer tweetcli's journal is never rewritten by this one.
                    let reason = "written by a newer tweetcli (format \(version))"
                    problems.append(StoreProblem(file: journalPath, line: 1, reason: reason, isRepairable: false))
                    return (problems, [], [])
                } catch .notAHeader(let reason) {
                    // A damaged header is set aside, and the records after it are still checked and
                    // kept; so is the first line itself when it is an intact record (the header
                    // was lost or moved).
                    problems.append(StoreProblem(file: journalPath, line: 1, reason: reason, isRepairable: true))
                    // Only whether it parses matters here: the record itself is read again below.
                    guard (try? JournalRecord(line: text, file: journalPath, lineNumber: line)) != nil else {
                        removed += whole
                        continue
                    }
                }
            }
            do {
                let record = try JournalRecord(line: text, file: journalPath, lineNumber: line)
                if let reason = JournalRecord.sequenceProblem(
                    record.sequence, after: records.last?.sequence, folded: folded)
                {
                    problems.append(StoreProblem(file: journalPath, line: line, reason: reason, isRepairable: true))
                }
                records.append(record)
                kept += whole
            } catch let StoreError.corruptRecord(_, _, reason) {
                problems.append(StoreProblem(file: journalPath, line: line, reason: reason, isRepairable: true))
                removed += whole
            } catch {
                problems.append(StoreProblem(file: journalPath, line: line, reason: "\(error)", isRepairable: true))
                removed += whole
            }
        }
        // Whatever happened to the first line, the repaired journal starts with a header.
        if !headerKept { kept = header + kept }
        if problems.contains(where: { $0.isRepairable }) {
            kept = header + Self.renumbered(records, folded: folded, removed: &removed)
        }
        return (problems, kept, removed)
    }

    /// The intact records in sequence order, each once (a repeated one moves aside), numbered again
    /// from the first (or right after the segments, if the first is gone) so they follow one another: a record that is gone cannot come back, but the
    /// ones around it are kept and the journal replays again.
    private static func renumbered(_ records: [JournalRecord], folded: Int64, removed: inout [UInt8]) -> [UInt8] {
        var seen: Set<Int64> = []
        var unique: [JournalRecord] = []
        for record in records.sorted(by: { $0.sequence < $1.sequence }) {
            if seen.insert(record.sequence).inserted {
                unique.append(record)
            } else {
                removed += record.line()
            }
        }
        // They continue the segments (the first may be at or below what is folded, never past it).
        guard let first = unique.first.map({ min($0.sequence, folded + 1) }) else { return [] }
        var bytes: [UInt8] = []
        for (position, record) in unique.enumerated() {
            var copy = record
            copy.sequence = first + Int64(position)
            bytes += copy.line()
        }
        return bytes
    }

    private func inspectManifest() throws -> (Manifest?, [StoreProblem]) {
        do {
            return (try Manifest.load(directory: directory), [])
        } catch StoreError.io(let path, let reason) {
            // Not damage: the file could not be read this time, and nothing is decided from that.
            throw StoreError.io(path: path, reason: reason)
        } catch {
            let path = PathName.join(directory, Manifest.fileName)
            var reason = (error as? StoreError)?.errorDescription ?? "\(error)"
            if !reason.hasSuffix("from a backup") { reason += "; restore it from a backup" }
            return (nil, [StoreProblem(file: path, reason: reason, isRepairable: false)])
        }
    }

    /// What ``inspectSegment(_:)`` found in a segment.
    private struct SegmentInspection {
        var problems: [StoreProblem] = []
        /// Its intact documents.
        var documents = 0
        /// Whether they come in strictly increasing path order, so a rewrite takes them as they come.
        var inOrder = true
    }

    /// What one line of a segment's data file is to the doctor.
    private enum SegmentLine {
        /// The file's header (line 1), as it should be.
        case header
        /// An intact document line; on line 1, why it is not the header it should be.
        case document(DocumentPath, JSONObject?, headerProblem: String?)
        /// A line moved aside by a repair, and why (a header from a newer version cannot be repaired).
        case damaged(String, isRepairable: Bool)
    }

    /// How line `number` of a segment's data file (without its newline) reads; `unterminated` when
    /// the file ends without its newline. A damaged header is moved aside, unless the line is an
    /// intact document (the header was lost or moved); a newer version's header is never rewritten.
    private static func classify(_ text: UnsafeBufferPointer<UInt8>, number: Int, unterminated: Bool) -> SegmentLine {
        var headerProblem: String?
        if number == 1 {
            let header = Result { () throws(FileHeader.Problem) in
                try FileHeader.check(
                    text, format: SegmentFormat.formatName, supportedVersion: SegmentFormat.dataVersion)
            }
            switch header {
            case .success: return .header
            case .failure(.newerVersion(let version)):
                return .damaged("written by a newer tweetcli (format \(version))", isRepairable: false)
            case .failure(.notAHeader(let why)): headerProblem = why
            }
        }
        do throws(SegmentFormat.LineError) {
            let (path, fields) = try SegmentFormat.parseLine(text)
            return .document(path, fields, headerProblem: headerProblem)
        } catch {
            return .damaged(
                headerProblem ?? (unterminated ? "the last line is truncated" : error.reason), isRepairable: true)
        }
    }

    /// The lines of a file, read a megabyte at a time, so that a segment of any size is checked
    /// and rewritten in bounded memory (a line is held whole).
    private struct LineCursor {
        let fd: Int32
        let size: Int
        let path: String
        private var buffer: [UInt8] = []
        /// The first byte of `buffer` not yet handed out, and the next byte of the file to read.
        private var position = 0
        private var offset = 0
        /// The number of the line handed out last (from 1).
        private(set) var number = 0

        init(fd: Int32, size: Int, path: String) {
            (self.fd, self.size, self.path) = (fd, size, path)
        }

        /// The next line without its newline, and whether the file ends without one; `nil` at the end.
        mutating func next() throws -> (text: [UInt8], unterminated: Bool)? {
            while true {
                if let newline = buffer[position...].firstIndex(of: 0x0A) {
                    number += 1
                    defer { position = newline + 1 }
                    return (Array(buffer[position..<newline]), false)
                }
                if offset >= size {
                    guard position < buffer.count else { return nil }
                    number += 1
                    defer { position = buffer.count }
                    return (Array(buffer[position...]), true)
                }
                buffer.removeFirst(position)
                position = 0
                let count = min(1 << 20, size - offset)
                buffer += try StoreFiles.readBytes(from: fd, offset: offset, count: count, path: path)
                offset += count
            }
        }

        /// How the line handed out last reads (``StoreDoctor/classify(_:number:unterminated:)``).
        func classify(_ line: (text: [UInt8], unterminated: Bool)) -> SegmentLine {
            line.text.withUnsafeBufferPointer {
                StoreDoctor.classify($0, number: number, unterminated: line.unterminated)
            }
        }
    }

    /// The segment's data file, open, and its size; `nil` when it is missing.
    private func openData(_ name: String) throws -> (fd: Int32, size: Int, path: String)? {
        let path = PathName.join(directory, SegmentFormat.dataFileName(name))
        guard let fd = try StoreFiles.openRegular(path, O_RDONLY) else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw StoreError.io(path: path, reason: FileIO.errnoText())
        }
        return (fd, Int(info.st_size), path)
    }

    /// A segment's problems: its lines read one at a time, in bounded memory, each intact one's path
    /// held only until the next is compared with it, and the index checked against them.
    /// - Throws: ``StoreError/io(path:reason:)`` when the segment is there but cannot be read.
    private func inspectSegment(_ name: String) throws -> SegmentInspection {
        guard let data = try openData(name) else {
            let path = PathName.join(directory, SegmentFormat.dataFileName(name))
            let problem = StoreProblem(
                file: path, reason: "the segment is missing; restore it from a backup", isRepairable: false)
            return SegmentInspection(problems: [problem])
        }
        defer { close(data.fd) }
        var inspection = SegmentInspection()
        // The index, when it opens, is checked against the lines as they come: its line offsets
        // must name them in order.
        let segment = Result { try Segment(directory: directory, name: name) }
        // An index that does not open is reported below, with its error.
        var matchesIndex = (try? segment.get()) != nil
        var last: DocumentPath?
        var lines = LineCursor(fd: data.fd, size: data.size, path: data.path)
        while let line = try lines.next() {
            let number = lines.number
            switch lines.classify(line) {
            case .header: break
            case .damaged(let reason, let isRepairable):
                inspection.problems.append(
                    StoreProblem(file: data.path, line: number, reason: reason, isRepairable: isRepairable))
            case .document(let path, _, let headerProblem):
                if let headerProblem {
                    // An intact document where the header should be: kept, the header written again.
                    inspection.problems.append(
                        StoreProblem(file: data.path, line: 1, reason: headerProblem, isRepairable: true))
                }
                // An intact line out of place is kept: the repair sorts the segment again.
                if let last, SegmentFormat.comparePaths(last, path) != .orderedAscending {
                    inspection.problems.append(
                        StoreProblem(file: data.path, line: number, reason: "out of order", isRepairable: true))
                    inspection.inOrder = false
                }
                if matchesIndex, case .success(let segment) = segment {
                    // A line the index cannot give back is a mismatch, reported as one.
                    matchesIndex =
                        inspection.documents < segment.count && (try? segment.path(at: inspection.documents)) == path
                }
                inspection.documents += 1
                last = path
            }
        }
        guard inspection.problems.isEmpty else { return inspection }
        switch segment {
        case .success(let segment):
            var consistent = matchesIndex && segment.count == inspection.documents
            for index in indexes where consistent && !segment.hasIndex(index) { consistent = false }
            if consistent, let holds = try SegmentFormat.indexChecksumHolds(path: segment.indexPath) {
                consistent = holds
            }
            if !consistent {
                inspection.problems.append(
                    StoreProblem(
                        file: segment.indexPath, reason: "the index does not match its segment", isRepairable: true))
            }
        case .failure(let error):
            let reason = (error as? StoreError)?.errorDescription ?? "\(error)"
            inspection.problems.append(
                StoreProblem(
                    file: PathName.join(directory, SegmentFormat.indexFileName(name)), reason: reason,
                    isRepairable: true))
        }
        return inspection
    }

    /// Writes segment `name`'s intact documents as segment `newName`, and its damaged lines (and
    /// the later copies of a path it holds twice), byte for byte, to the side file `side`: a line at
    /// a time, the documents sorted again on disk (``ExternalSorter``) when they were out of order.
    /// - Returns: the documents written, and whether there was anything to move aside.
    private func rewriteSegment(_ name: String, as newName: String, inspection: SegmentInspection, side: String)
        throws -> (documents: Int, wroteSide: Bool)
    {
        guard let data = try openData(name) else { throw StoreError.noStore(path: directory) }
        defer { close(data.fd) }
        let sideOutput = PathName.join(directory, ".\(SegmentFormat.dataFileName(newName)).side")
        unlink(sideOutput)  // One a repair that crashed left (the store's lock is held).
        var aside: FileOutput?
        func moveAside(_ text: some Collection<UInt8>) throws {
            if aside == nil { aside = try FileOutput(path: sideOutput) }
            try aside!.write(Array(text) + [0x0A])
        }
        do {
            var lines = LineCursor(fd: data.fd, size: data.size, path: data.path)
            let writer = SegmentWriter(directory: directory, indexes: indexes)
            let count: Int
            if inspection.inOrder {
                // The documents go to the writer as the lines come.
                count = try writer.write(name: newName, atMost: inspection.documents) {
                    while let line = try lines.next() {
                        switch lines.classify(line) {
                        case .header: continue
                        case .damaged: try moveAside(line.text)
                        case .document(let path, let fields, _): return SegmentWriter.Entry(path: path, data: fields)
                        }
                    }
                    return nil
                }
            } else {
                // Sorted by path on disk first, each line's number breaking ties, so that a path twice
                // keeps its first line and the later copies go aside.
                var sorter = ExternalSorter(directory: directory)
                while let line = try lines.next() {
                    switch lines.classify(line) {
                    case .header: continue
                    case .damaged: try moveAside(line.text)
                    case .document(let path, _, _):
                        let number = UInt64(lines.number).bigEndian
                        try sorter.add(value: line.text) { key in
                            SortKey.path(path, into: &key)
                            withUnsafeBytes(of: number) { key += $0 }
                        }
                    }
                }
                var sorted = try sorter.sorted()
                var previous: [UInt8]?
                count = try writer.write(name: newName, atMost: inspection.documents) {
                    while let (key, value) = try sorted.nextKeyAndValue() {
                        let pathKey = Array(key.dropLast(8))
                        if let previous, previous == pathKey {
                            try moveAside(value)
                            continue
                        }
                        previous = pathKey
                        let (path, fields) = try Array(value).withUnsafeBufferPointer { bytes throws in
                            try SegmentFormat.parseLine(bytes)
                        }
                        return SegmentWriter.Entry(path: path, data: fields)
                    }
                    return nil
                }
            }
            if let aside {
                try aside.finish()
                guard rename(sideOutput, side) == 0 else { throw StoreError.io(path: side, reason: FileIO.errnoText()) }
                FileIO.syncDirectory(directory)
            }
            return (count, aside != nil)
        } catch {
            unlink(sideOutput)
            SegmentFormat.removeFiles(of: newName, in: directory)
            throw error
        }
    }
}
