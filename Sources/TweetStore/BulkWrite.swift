/// What the `produce` step of ``DocumentStore/bulkWrite(produce:finish:)`` works with: it hands
/// over the documents to write, and it can sort records of its own aside (an index's postings,
/// say) on the engine's scratch space, for more of them than memory should hold.
public final class BulkWrite {
    private let addDocument: (DocumentPath, JSONObject) throws -> Void
    private let sorter: any RecordSorter

    /// For engines: `add` takes each document, `sorter` the records sorted aside.
    public init(add: @escaping (DocumentPath, JSONObject) throws -> Void, sorter: any RecordSorter) {
        addDocument = add
        self.sorter = sorter
    }

    /// Writes `fields` as the whole document at `path` when the bulk write commits. A path given
    /// twice is ``StoreError/duplicateDocument(path:)``, and then nothing is written.
    public func setData(_ fields: JSONObject, at path: DocumentPath) throws {
        try addDocument(path, fields)
    }

    /// Sorts a record aside, by `key`'s bytes (equal keys in the order they came).
    public func addRecord(key: [UInt8], value: [UInt8]) throws {
        try sorter.add(key: key, value: value)
    }

    /// The records sorted aside, in order, each once: call once, after the last ``addRecord(key:value:)``.
    public func sortedRecords() throws -> RecordStream {
        try sorter.sorted()
    }
}

/// Records sorted by their keys, one at a time.
public struct RecordStream {
    private let nextRecord: () throws -> (key: [UInt8], value: [UInt8])?

    public init(next: @escaping () throws -> (key: [UInt8], value: [UInt8])?) {
        nextRecord = next
    }

    /// The next record, or `nil` after the last.
    public func next() throws -> (key: [UInt8], value: [UInt8])? {
        try nextRecord()
    }
}

/// An engine's way of sorting records aside for a bulk write.
public protocol RecordSorter: AnyObject {
    func add(key: [UInt8], value: [UInt8]) throws
    func sorted() throws -> RecordStream
}

/// Sorts in memory: the default engines' sorter, for what they hold in memory anyway.
public final class MemoryRecordSorter: RecordSorter {
    private var records: [(key: [UInt8], value: [UInt8])] = []

    public init() {}

    public func add(key: [UInt8], value: [UInt8]) throws {
        records.append((key, value))
    }

    public func sorted() throws -> RecordStream {
        let sorted = records.enumerated().sorted { first, second in
            first.element.key.lexicographicallyPrecedes(second.element.key)
                || (first.element.key == second.element.key && first.offset < second.offset)
        }
        records = []
        var position = sorted.startIndex
        return RecordStream {
            guard position < sorted.endIndex else { return nil }
            defer { position += 1 }
            return sorted[position].element
        }
    }
}
