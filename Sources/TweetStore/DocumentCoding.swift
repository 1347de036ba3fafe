import FoundationEssentials

/// Converts models to document fields and back, with the store's timestamp format.
package enum DocumentCoding {
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(from: date))
        }
        return encoder
    }

    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text)\" is not an ISO 8601 timestamp")
            }
            return date
        }
        return decoder
    }

    /// The fields of an encodable model.
    package static func encode<T: Encodable>(_ value: T) throws -> JSONObject {
        let data = try makeEncoder().encode(value)
        guard case .object(let fields) = try JSONValue.parse(data) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "a document must encode as an object"))
        }
        return fields
    }

    /// Decodes a model from a document's fields; failures name the document and the key path.
    static func decode<T: Decodable>(_ type: T.Type, from fields: JSONObject, path: String) throws -> T {
        do {
            return try JSONValueDecoder().decode(T.self, from: .object(fields))
        } catch let error as DecodingError {
            throw StoreError.undecodable(path: path, reason: describe(error))
        }
    }

    /// One sentence for a `DecodingError`: the key path and what was wrong there.
    static func describe(_ error: DecodingError) -> String {
        func keyPath(_ path: [any CodingKey]) -> String {
            path.isEmpty
                ? "the document"
                : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                    .joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(keyPath(context.codingPath))"
            return "field \"\(key.stringValue)\" is missing\(parent)"
        case .typeMismatch(let type, let context):
            return "field \(keyPath(context.codingPath)) is not a \(type)"
        case .valueNotFound(let type, let context):
            return "field \(keyPath(context.codingPath)) is null where a \(type) is required"
        case .dataCorrupted(let context):
            return "field \(keyPath(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

extension JSONObject {
    /// The fields as compact JSON text.
    package func serializedObject() -> [UInt8] { JSONValue.object(self).serialized() }

    /// The fields without `id`, which the document's path already holds (Firestore's `@DocumentID`).
    package func removingID() -> JSONObject {
        var copy = self
        copy["id"] = nil
        return copy
    }
}
