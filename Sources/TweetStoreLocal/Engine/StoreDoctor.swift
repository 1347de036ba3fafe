import FoundationEssentials
import TweetStore

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
        try withLock {
            let (manifest, manifestProblems) = try inspectManifest()
            // Without the manifest the journal's records cannot be placed after the segments'.
            var problems = try manifest.map { try inspectJournal(folded: $0.foldedSequence).problems } ?? []
            problems += manifestProblems
            for info in manifest?.segments ?? [] { problems += try inspectSegment(info.name).problems }
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
        guard StorageEngine.exists(in: directory) else { throw StoreError.noStore(path: directory) }
        var engine = try StorageEngine(
            directory: directory, clock: Date.init, indexes: indexes, foldThreshold: foldThreshold)
        return try engine.compact()
    }

    public func repair() throws -> RepairReport {
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
                        try FileIO.replaceAtomically(path: side, contents: journal.removed, directory: directory)
                        report.sideFiles.append(side)
                    }
                    try FileIO.replaceAtomically(path: journalPath, contents: journal.kept, directory: directory)
                    report.repaired += journal.problems
                } else {
                    report.unrepaired += journal.problems
                }
            }
            let (loaded, manifestProblems) = try inspectManifest()
            report.unrepaired += manifestProblems
            guard var manifest = loaded, manifest.foldedSequence == folded else { return report }
            var replaced: [String] = []
            for (position, info) in manifest.segments.enumerated() {
                let segment = try inspectSegment(info.name)
                guard !segment.problems.isEmpty else { continue }
                guard segment.problems.allSatisfy(\.isRepairable) else {
                    report.unrepaired += segment.problems
                    continue
                }
                if !segment.removed.isEmpty {
                    let side = PathName.join(directory, "damaged-\(info.name)-\(stamp).jsonl")
                    try FileIO.replaceAtomically(path: side, contents: segment.removed, directory: directory)
                    report.sideFiles.append(side)
                }
                let name = SegmentFormat.segmentName(manifest.nextSegment)
                manifest.nextSegment += 1
                let count = try SegmentWriter(directory: directory, indexes: indexes).write(
                    name: name, entries: segment.kept)
                manifest.segments[position] = .init(name: name, documents: count)
                replaced.append(info.name)
                report.repaired += segment.problems
            }
            if !replaced.isEmpty {
                try manifest.save(directory: directory)
                // Every byte of the replaced segments is now in the new ones or in a side file.
                for name in replaced {
                    unlink(PathName.join(directory, SegmentFormat.dataFileName(name)))
                    unlink(PathName.join(directory, SegmentFormat.indexFileName(name)))
                }
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
        guard let bytes = try FileIO.readFile(journalPath) else {
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

    /// A segment's problems, its intact entries (what a rewrite keeps) and its damaged lines.
    /// - Throws: ``StoreError/io(path:reason:)`` when the segment is there but cannot be read.
    private func inspectSegment(_ name: String) throws -> (
        problems: [StoreProblem], kept: [SegmentWriter.Entry], removed: [UInt8]
    ) {
        let dataPath = PathName.join(directory, SegmentFormat.dataFileName(name))
        guard let bytes = try FileIO.readFile(dataPath) else {
            return (
                [
                    StoreProblem(
                        file: dataPath, reason: "the segment is missing; restore it from a backup", isRepairable: false)
                ], [], []
            )
        }
        var problems: [StoreProblem] = []
        var kept: [SegmentWriter.Entry] = []
        var removed: [UInt8] = []
        var lineStarts: [Int] = []
        var outOfOrder = false
        /// Each kept line's bytes, from the first out-of-order line on (what a repeated path sets aside).
        var texts: [[UInt8]] = []
        var start = 0
        var line = 0
        bytes.withUnsafeBufferPointer { buffer in
            while start < buffer.count {
                line += 1
                let end = buffer[start...].firstIndex(of: 0x0A) ?? buffer.count
                defer { start = end + 1 }
                let text = UnsafeBufferPointer(rebasing: buffer[start..<end])
                if line == 1 {
                    // The header; anything else there (a damaged newline can merge it with the first
                    // document) is moved aside like any damaged line, never dropped.
                    let header = Result { () throws(FileHeader.Problem) in
                        try FileHeader.check(
                            text, format: SegmentFormat.formatName, supportedVersion: SegmentFormat.dataVersion)
                    }
                    guard case .failure(let problem) = header else { continue }
                    switch problem {
                    case .notAHeader(let why):
                        problems.append(StoreProblem(file: dataPath, line: 1, reason: why, isRepairable: true))
                    case .newerVersion(let version):
                        // A newer tweetcli's segment is never rewritten by this one.
                        problems.append(
                            StoreProblem(
                                file: dataPath, line: 1, reason: "written by a newer tweetcli (format \(version))",
                                isRepairable: false))
                    }
                    // An intact document there is kept (the header was lost or moved); anything else goes aside.
                    if case .newerVersion = problem {
                        removed += Array(text) + [0x0A]
                        continue
                    }
                    // Whether it parses as a document decides where it goes; the reason is not needed.
                    if (try? SegmentFormat.parseLine(text)) == nil {
                        removed += Array(text) + [0x0A]
                        continue
                    }
                }
                do throws(SegmentFormat.LineError) {
                    let (path, fields) = try SegmentFormat.parseLine(text)
                    // An intact line out of place is kept: the repair sorts the segment again.
                    if let last = kept.last, SegmentFormat.comparePaths(last.path, path) != .orderedAscending {
                        problems.append(
                            StoreProblem(file: dataPath, line: line, reason: "out of order", isRepairable: true))
                        outOfOrder = true
                    }
                    kept.append(SegmentWriter.Entry(path: path, data: fields))
                    if outOfOrder || !texts.isEmpty { texts.append(Array(text)) }
                    lineStarts.append(start)
                } catch {
                    let reason = end == buffer.count ? "the last line is truncated" : error.reason
                    problems.append(StoreProblem(file: dataPath, line: line, reason: reason, isRepairable: true))
                    removed += Array(text) + [0x0A]
                }
            }
        }
        if outOfOrder {
            // Sorted again by path (line order breaking ties); a path twice keeps its first line,
            // and the other copies go to the side file.
            let firstTexted = kept.count - texts.count
            let sorted = kept.enumerated().sorted {
                let order = SegmentFormat.comparePaths($0.element.path, $1.element.path)
                return order == .orderedAscending || (order == .orderedSame && $0.offset < $1.offset)
            }
            kept = []
            for (position, entry) in sorted {
                if let last = kept.last, SegmentFormat.comparePaths(last.path, entry.path) == .orderedSame,
                    position >= firstTexted
                {
                    removed += texts[position - firstTexted] + [0x0A]
                } else {
                    kept.append(entry)
                }
            }
        }
        if problems.isEmpty {
            do {
                let segment = try Segment(directory: directory, name: name)
                var consistent = segment.count == kept.count
                for ordinal in 0..<min(segment.count, kept.count) where consistent {
                    consistent = try segment.path(at: ordinal) == kept[ordinal].path
                }
                for index in indexes where consistent && !segment.hasIndex(index) { consistent = false }
                if consistent, let bytes = try FileIO.readFile(segment.indexPath),
                    bytes.count >= SegmentFormat.headerSize
                {
                    let stored = bytes[40..<48].withUnsafeBytes {
                        UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))
                    }
                    consistent = stored == SegmentFormat.indexChecksum(of: bytes)
                }
                if !consistent {
                    problems.append(
                        StoreProblem(
                            file: segment.indexPath, reason: "the index does not match its segment", isRepairable: true)
                    )
                }
            } catch {
                let reason = (error as? StoreError)?.errorDescription ?? "\(error)"
                problems.append(
                    StoreProblem(
                        file: PathName.join(directory, SegmentFormat.indexFileName(name)), reason: reason,
                        isRepairable: true))
            }
        }
        return (problems, kept, removed)
    }
}
