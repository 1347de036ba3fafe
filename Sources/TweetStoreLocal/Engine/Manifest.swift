import FoundationEssentials
import TweetStore
import TweetSystem

/// `MANIFEST.json`: which segments make up the store and how much of the journal they hold.
/// Replaced atomically (temp file, fsync, rename, directory fsync): the commit point of a fold or
/// a merge.
struct Manifest: Equatable {
    static let fileName = "MANIFEST.json"
    static let version: Int64 = 2

    struct SegmentInfo: Equatable {
        var name: String
        var documents: Int
    }

    /// Oldest first: a newer segment's documents replace an older one's.
    var segments: [SegmentInfo] = []
    /// Journal records up to this sequence number are in the segments.
    var foldedSequence: Int64 = 0
    /// The last transaction's time, so the store's clock never runs backwards.
    var lastTime: Date?
    /// The number the next segment's name takes.
    var nextSegment = 1
    /// Imports committed (each a segment written outside the journal): with the journal's
    /// sequence, what tells a bulk write whether anything was committed while it worked. Absent
    /// (0) from stores written before it was kept, and from older readers' view, which ignore it.
    var imports: Int64 = 0

    init() {}

    /// The store's manifest, or an empty one when the file does not exist (a new or version 1 store).
    static func load(directory: String) throws -> Manifest {
        let path = PathName.join(directory, fileName)
        guard var bytes = try StoreFiles.readFile(path) else {
            // No manifest: a new store, or one written before segments existed. Segment files
            // without one mean it was lost, and opening as empty would hide (then overwrite) them.
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: directory)
            } catch {
                throw StoreError.io(path: directory, reason: "cannot list the directory")
            }
            if names.contains(where: { StorageEngine.isSegmentFileName($0) }) {
                throw StoreError.corruptRecord(
                    file: path, line: 0, reason: "it is missing while segment files exist; restore it from a backup")
            }
            return Manifest()
        }
        guard bytes.last == 0x0A else {
            throw StoreError.corruptRecord(file: path, line: 1, reason: "the manifest is truncated")
        }
        bytes.removeLast()
        let payload: ArraySlice<UInt8>
        do {
            payload = try ChecksummedLine.decode(key: "manifest", line: bytes)
        } catch {
            throw StoreError.corruptRecord(
                file: path, line: 1, reason: error == .checksum ? "checksum mismatch" : "not a manifest")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(payload)
        } catch {
            throw StoreError.corruptRecord(file: path, line: 1, reason: "invalid JSON: \(error)")
        }
        guard case .object(let fields) = value, fields["format"]?.stringValue == StorageEngine.formatName,
            let version = fields["version"]?.integerValue,
            let folded = fields["foldedSequence"]?.integerValue, let next = fields["nextSegment"]?.integerValue,
            case .array(let list)? = fields["segments"]
        else { throw StoreError.corruptRecord(file: path, line: 1, reason: "not a manifest") }
        guard version <= Self.version else { throw StoreError.unsupportedFormat(file: path, version: String(version)) }
        var manifest = Manifest()
        manifest.foldedSequence = folded
        manifest.nextSegment = Int(next)
        manifest.lastTime = fields["lastTime"]?.stringValue.flatMap(Timestamp.date(from:))
        manifest.imports = max(0, fields["imports"]?.integerValue ?? 0)
        for item in list {
            guard case .object(let segment) = item, let name = segment["name"]?.stringValue,
                let documents = segment["documents"]?.integerValue
            else { throw StoreError.corruptRecord(file: path, line: 1, reason: "a segment entry is malformed") }
            manifest.segments.append(SegmentInfo(name: name, documents: Int(documents)))
        }
        return manifest
    }

    /// Replaces the manifest atomically.
    func save(directory: String) throws {
        let path = PathName.join(directory, Self.fileName)
        var fields: JSONObject = [
            "format": .string(StorageEngine.formatName), "version": .integer(Self.version),
            "foldedSequence": .integer(foldedSequence), "nextSegment": .integer(Int64(nextSegment)),
            "segments": .array(
                segments.map { .object(["name": .string($0.name), "documents": .integer(Int64($0.documents))]) }),
        ]
        if let lastTime { fields["lastTime"] = .string(Timestamp.string(from: lastTime)) }
        if imports > 0 { fields["imports"] = .integer(imports) }
        try StoreFiles.replaceAtomically(
            path: path,
            contents: ChecksummedLine.encode(key: "manifest", payload: JSONValue.object(fields).serialized()),
            directory: directory)
    }
}
