import FoundationEssentials

/// A secondary index the engine keeps, like one of Firestore's composite indexes.
///
/// Entries are ordered by their key: for a collection-scoped index
/// `(collection path, field values…, document ID)`, for a collection-group index
/// `(field values…, full document path)`. A document lacking one of the fields is not indexed,
/// as in Firestore.
public struct IndexDefinition: Sendable, Hashable {
    /// Whether the index serves queries on one collection or on every collection with the ID.
    public enum Scope: Sendable, Hashable {
        case collection
        case collectionGroup
    }

    /// The last component of the indexed collections' paths: `"tweets"`, `"user-likes"`.
    public let collectionID: String
    /// The indexed fields, in key order; equality filters come first, the order field last.
    /// A field written `name?` indexes whether `name` holds a value other than null (a boolean),
    /// which serves `whereField(name, isNotEqualTo: .null)` and narrows `isEqualTo: .null`.
    public let fields: [String]
    public let scope: Scope
    /// A stable name, stored in segment index files: `tweets(uid,timestamp)`, `user-likes*(tweetId)`.
    /// Made once: every index probe looks its index up by it.
    package let name: String
    /// A top-level field whose value each entry carries as a 32-bit ``tag(of:)``, so that a scan of
    /// the index with an `in` filter on it skips most entries without reading their documents
    /// (the following feed reads the newest tweets of the few users its reader follows). Not part of
    /// ``name``: a segment written without tags still serves the index, and a query reads its lines.
    public let taggedField: String?
    /// ``collectionIDHash(_:)`` of ``collectionID``: a document whose collection's last
    /// component hashes otherwise is not in this index, found without comparing strings.
    package let collectionIDHash: UInt64
    /// ``fields`` as read from a document: each name without its `?`, and whether it had one.
    private let keyFields: [(name: String, isPresence: Bool)]

    public init(
        _ collectionID: String, _ fields: [String], scope: Scope = .collection, tagging taggedField: String? = nil
    ) {
        self.collectionID = collectionID
        self.fields = fields
        self.scope = scope
        // A segment's index table keeps 32 bytes of the name, zero-padded: a longer or empty one,
        // or one with a zero byte, tags nothing.
        self.taggedField = taggedField.flatMap { (1...32).contains($0.utf8.count) && !$0.utf8.contains(0) ? $0 : nil }
        var id = collectionID
        collectionIDHash = id.withUTF8 { Self.collectionIDHash($0) }
        keyFields = fields.map { $0.hasSuffix("?") ? (String($0.dropLast()), true) : ($0, false) }
        name = "\(collectionID)\(scope == .collectionGroup ? "*" : "")(\(fields.concatenated(separator: ",")))"
    }

    public static func == (lhs: IndexDefinition, rhs: IndexDefinition) -> Bool {
        (lhs.collectionID, lhs.fields, lhs.scope, lhs.taggedField)
            == (rhs.collectionID, rhs.fields, rhs.scope, rhs.taggedField)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(collectionID)
        hasher.combine(fields)
        hasher.combine(scope)
        hasher.combine(taggedField)
    }

    /// The tag an entry carries for a document whose ``taggedField`` holds `value`: FNV-1a of the
    /// string's UTF-8 bytes when it is ASCII (never 0), else 0, which says "read the document" (a
    /// string past ASCII may equal another with other bytes, so bytes cannot decide it).
    package static func tag(of value: JSONValue?) -> UInt32 {
        guard case .string(var string)? = value else { return 0 }
        return string.withUTF8 { tag(ofBytes: $0) } ?? 0
    }

    /// FNV-1a (32 bits) of `bytes`, 1 for a hash of 0; `nil` when a byte is past ASCII.
    package static func tag(ofBytes bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var hash: UInt32 = 0x811c_9dc5
        for byte in bytes {
            guard byte < 0x80 else { return nil }
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return hash == 0 ? 1 : hash
    }

    /// FNV-1a (64 bits) of a collection ID's UTF-8 bytes.
    package static func collectionIDHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// Whether documents of `collection` belong in this index: its last component is
    /// ``collectionID``. Compared as bytes, without making `"/" + collectionID`: an import asks
    /// every index about every document.
    package func covers(collection: String) -> Bool {
        var (whole, last) = (collection, collectionID)
        return whole.withUTF8 { whole in
            last.withUTF8 { last in
                guard whole.count >= last.count else { return false }
                let start = whole.count - last.count
                guard start == 0 || whole[start - 1] == UInt8(ascii: "/") else { return false }
                for offset in 0..<last.count where whole[start + offset] != last[offset] { return false }
                return true
            }
        }
    }

    /// The document's key in this index, or `nil` when the document is not indexed.
    package func key(collection: String, documentID: String, data: JSONObject) -> [JSONValue]? {
        guard covers(collection: collection) else { return nil }
        var key: [JSONValue] = []
        key.reserveCapacity(fields.count + 2)
        if scope == .collection { key.append(.string(collection)) }
        for (field, isPresence) in keyFields {
            if isPresence {
                let value = data[field]
                key.append(.bool(value != nil && value != .null))
                continue
            }
            guard let value = data[field] else { return nil }
            key.append(value)
        }
        key.append(.string(scope == .collection ? documentID : collection + "/" + documentID))
        return key
    }
}

/// Compares keys element by element; a key that is a prefix of the other compares by `prefixOrder`.
package func compareKeys(_ lhs: [JSONValue], _ rhs: [JSONValue]) -> ComparisonResult {
    for (a, b) in zip(lhs, rhs) {
        let order = JSONValue.compare(a, b)
        if order != .orderedSame { return order }
    }
    return .orderedSame
}
