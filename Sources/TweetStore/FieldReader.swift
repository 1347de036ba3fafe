import FoundationEssentials

/// A model that reads itself straight from a document's fields.
///
/// `Decodable` goes through `KeyedDecodingContainer<CodingKeys>`, a generic type the runtime
/// instantiates on first use by scanning every protocol conformance in the binary, once for each
/// type, and through a dictionary copy to add the `id`.
/// A command that shows a page pays that for each model it decodes; lookups by key do not.
public protocol DocumentDecodable: Decodable {
    init(reading fields: FieldReader) throws(FieldReader.Failure)
}

/// A document's fields (or a nested object's), read with the store's types and the same sentences
/// as ``DocumentCoding/describe(_:)`` gives `Decodable`'s errors.
public struct FieldReader {
    /// Why a field could not be read: one sentence that names it by its key path.
    public struct Failure: Error, Equatable {
        public let reason: String
    }

    public let fields: JSONObject
    /// The document's ID, which `"id"` reads (Firestore's `@DocumentID`); `nil` in a nested object.
    let documentID: String?
    /// The keys from the document down to these fields.
    let keyPath: [String]

    public init(fields: JSONObject, documentID: String?) {
        self.init(fields: fields, documentID: documentID, keyPath: [])
    }

    private init(fields: JSONObject, documentID: String?, keyPath: [String]) {
        self.fields = fields
        self.documentID = documentID
        self.keyPath = keyPath
    }

    public func string(_ key: String) throws(Failure) -> String {
        if key == "id", let documentID { return documentID }
        guard case .string(let text) = try value(key) else { throw mismatch(key, "String") }
        return text
    }

    public func optionalString(_ key: String) throws(Failure) -> String? {
        if key == "id", let documentID { return documentID }
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw mismatch(key, "String")
        }
    }

    public func int(_ key: String) throws(Failure) -> Int {
        guard let number = Self.integer(try value(key)) else { throw mismatch(key, "Int") }
        return number
    }

    public func optionalInt(_ key: String) throws(Failure) -> Int? {
        guard let value = present(key) else { return nil }
        guard let number = Self.integer(value) else { throw mismatch(key, "Int") }
        return number
    }

    public func optionalBool(_ key: String) throws(Failure) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(key, "Bool") }
        return flag
    }

    public func date(_ key: String) throws(Failure) -> Date {
        guard case .string(let text) = try value(key) else { throw mismatch(key, "Date") }
        guard let date = Timestamp.date(from: text) else {
            throw Failure(reason: "field \(name(key)): \"\(text)\" is not an ISO 8601 timestamp")
        }
        return date
    }

    public func strings(_ key: String) throws(Failure) -> [String] {
        guard case .array(let values) = try value(key) else { throw mismatch(key, "Array<JSONValue>") }
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            guard case .string(let text) = value else { throw mismatch("\(key).[\(index)]", "String") }
            strings.append(text)
        }
        return strings
    }

    /// The object at `key` read as `T`, or `nil` when it is absent or null.
    public func optional<T: DocumentDecodable>(_ type: T.Type, _ key: String) throws(Failure) -> T? {
        guard let value = present(key) else { return nil }
        guard case .object(let nested) = value else { throw mismatch(key, "Dictionary<String, JSONValue>") }
        return try T(reading: FieldReader(fields: nested, documentID: nil, keyPath: keyPath + [key]))
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = fields[key], value != .null else { return nil }
        return value
    }

    private func value(_ key: String) throws(Failure) -> JSONValue {
        guard let value = fields[key] else {
            let parent = keyPath.isEmpty ? "" : " in \(keyPath.joined(separator: "."))"
            throw Failure(reason: "field \"\(key)\" is missing\(parent)")
        }
        return value
    }

    private static func integer(_ value: JSONValue) -> Int? {
        value.integerValue.flatMap { Int(exactly: $0) }
    }

    private func name(_ key: String) -> String { (keyPath + [key]).joined(separator: ".") }

    private func mismatch(_ key: String, _ type: String) -> Failure {
        Failure(reason: "field \(name(key)) is not a \(type)")
    }
}

extension DocumentSnapshot {
    /// Reads the document as `T`, with its ID as the `id` field, without `Decodable`'s generic
    /// containers: overload resolution picks this over the `Decodable` one for every model that
    /// reads itself.
    /// - Throws: ``StoreError/undecodable(path:reason:)`` naming the document and the key path.
    public func data<T: DocumentDecodable>(as type: T.Type) throws -> T {
        do {
            return try T(reading: FieldReader(fields: data, documentID: path.documentID))
        } catch {
            throw StoreError.undecodable(path: path.description, reason: error.reason)
        }
    }
}
