import FoundationEssentials

/// A JSON value: what a document field holds, like Firestore's field values.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    /// The string this value holds, or `nil` for any other kind of value.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer this value holds (a whole double counts too), or `nil`.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.0e18: return Int64(value)
        default: return nil
        }
    }

    /// The fields this value holds when it is an object, or `nil`.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements this value holds when it is an array, or `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Firestore's order of value types: null < bool < number < string < array < object.
    private var typeRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .integer, .double: return 2
        case .string: return 3
        case .array: return 4
        case .object: return 5
        }
    }

    /// Orders two values the way a query's `order(by:)` does.
    static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> ComparisonResult {
        let (lr, rr) = (lhs.typeRank, rhs.typeRank)
        if lr != rr { return lr < rr ? .orderedAscending : .orderedDescending }
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)):
            return a == b ? .orderedSame : (!a ? .orderedAscending : .orderedDescending)
        case (.integer(let a), .integer(let b)):
            return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case (.string(let a), .string(let b)):
            // Byte order, as Firestore orders strings; ISO 8601 timestamps sort by time.
            return ByteOrder.compare(a, b)
        case (.array(let a), .array(let b)):
            for (x, y) in zip(a, b) {
                let order = compare(x, y)
                if order != .orderedSame { return order }
            }
            return a.count == b.count ? .orderedSame : (a.count < b.count ? .orderedAscending : .orderedDescending)
        default:
            if let a = lhs.numberValue, let b = rhs.numberValue {
                return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
            }
            return .orderedSame
        }
    }

    private var numberValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// Equality as queries see it: 1 and 1.0 are the same number.
    static func queryEquals(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        lhs == rhs || (lhs.typeRank == 2 && rhs.typeRank == 2 && compare(lhs, rhs) == .orderedSame)
    }
}
