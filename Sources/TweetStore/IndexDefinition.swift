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

    public init(_ collectionID: String, _ fields: [String], scope: Scope = .collection) {
        self.collectionID = collectionID
        self.fields = fields
        self.scope = scope
        name = "\(collectionID)\(scope == .collectionGroup ? "*" : "")(\(fields.concatenated(separator: ",")))"
    }

    /// Whether documents of `collection` belong in this index.
    package func covers(collection: String) -> Bool {
        collection == collectionID || collection.hasSuffix("/" + collectionID)
    }

    /// The document's key in this index, or `nil` when the document is not indexed.
    package func key(collection: String, documentID: String, data: JSONObject) -> [JSONValue]? {
        guard covers(collection: collection) else { return nil }
        var key: [JSONValue] = []
        key.reserveCapacity(fields.count + 2)
        if scope == .collection { key.append(.string(collection)) }
        for field in fields {
            if field.hasSuffix("?") {
                let value = data[String(field.dropLast())]
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
