import Foundation

/// One line of `tweetcli export`: a document's fields and its path, `collection/id` or
/// `collection/id/subcollection/id`.
struct ExportRecord: Decodable {
    /// A field's value, as far as SQL needs it.
    enum Value: Decodable, Equatable {
        case null
        case string(String)
        case integer(Int64)
        case number(Double)
        case bool(Bool)
        /// An object of string lists (a tweet's entities), kept as JSON text for `json_each`.
        case lists([String: [String]])
        /// Any other object or array: no column holds one, so it is exported as `NULL`.
        case nested

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            // Type probing: each failed `try?` means "not this kind of value", and the next is tried.
            if container.decodeNil() {
                self = .null
            } else if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let integer = try? container.decode(Int64.self) {
                self = .integer(integer)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let lists = try? container.decode([String: [String]].self) {
                self = .lists(lists)
            } else {
                self = .nested
            }
        }

        /// The value as an SQL literal.
        var sql: String {
            switch self {
            case .null, .nested: return "NULL"
            case .string(let text): return SQL.literal(text)
            case .integer(let integer): return String(integer)
            case .number(let number): return number.isFinite ? String(number) : "NULL"
            case .bool(let flag): return flag ? "1" : "0"
            case .lists(let lists):
                // Sorted keys: the same text for the same lists. Lists of strings always serialize,
                // so the empty fallback is never taken.
                let data = (try? JSONSerialization.data(withJSONObject: lists, options: [.sortedKeys])) ?? Data()
                return SQL.literal(String(decoding: data, as: UTF8.self))
            }
        }
    }

    /// The document's fields (its ID is not among them: it is the path's last component).
    let data: [String: Value]
    /// Where the document lives.
    let path: String
}
