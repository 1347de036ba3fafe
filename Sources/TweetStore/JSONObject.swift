import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The fields of one document, or of an object inside one: each key once, in the order it was
/// first set.
///
/// A list, not a `Dictionary`: a document has a dozen fields or so, and a dictionary hashed each
/// key twice, once when a parse set it and once when a model read it (SipHash over all its bytes
/// each time), where a key is found here by comparing two words with each field's. Past
/// ``indexedCount`` fields (a user's filters, with an entry per blocked account, or a hostile
/// document) a large object in its keys' byte order, as every stored one is written, is searched by
/// halves; one out of order keeps a dictionary of positions, so every lookup and insertion stays
/// cheap either way.
///
/// Keys are the same when their UTF-8 bytes are, as JSON and PostgreSQL's `jsonb` compare them
/// (`String`'s `==` would also match two spellings of one accented letter, and took its slow path
/// for every two short keys that differ). Equality and hashing ignore the order, as a
/// dictionary's do: two objects with the same fields are equal however they were built.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: JSONValue)
    public typealias Index = Int

    private var entries: [Entry]

    /// A field, with its key's ``Probe``.
    private struct Entry: Sendable {
        var key: String
        var value: JSONValue
        var probe: Probe
    }
    /// The position of each key, kept only past ``indexedCount`` entries that are not in order.
    private var positions: [ByteKey: Int]?
    /// Whether each key's bytes sort after the one before it: true of any object parsed from
    /// stored text, and of one built key by key in that order. Reading a large object then hashes
    /// none of its keys.
    private var isOrdered = true

    /// A key's first fifteen UTF-8 bytes and its length, in two words: for a key of up to fifteen
    /// bytes (almost every key) the same probe means the same bytes, and comparing two costs two
    /// integer comparisons; longer keys with the same probe are compared whole.
    struct Probe: Equatable, Sendable {
        private(set) var head: UInt64 = 0
        private(set) var tail: UInt64 = 0

        init(_ key: String) {
            var key = key
            self = key.withUTF8 { Probe(bytes: $0) }
        }

        /// The probe of the key whose UTF-8 bytes are `bytes` (a parse makes it from the text).
        init(bytes: UnsafeBufferPointer<UInt8>) {
            var words: (UInt64, UInt64) = (0, UInt64(Swift.min(bytes.count, 255)) << 56)
            if let base = bytes.baseAddress {
                withUnsafeMutableBytes(of: &words) { raw in
                    raw.baseAddress!.copyMemory(from: base, byteCount: Swift.min(bytes.count, 15))
                }
            }
            (head, tail) = words
        }

        var isWhole: Bool { tail >> 56 <= 15 }

        /// The order of two keys' first eight bytes, read as big-endian numbers; `nil` when those
        /// are the same.
        func headOrder(against other: Probe) -> ComparisonResult? {
            guard head != other.head else { return nil }
            return UInt64(bigEndian: head) < UInt64(bigEndian: other.head) ? .orderedAscending : .orderedDescending
        }
    }

    /// A key compared and hashed by its bytes, through its probe where that is the whole key.
    private struct ByteKey: Hashable {
        let text: String
        let probe: Probe

        init(_ text: String, _ probe: Probe) {
            self.text = text
            self.probe = probe
        }

        static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
            lhs.probe == rhs.probe && (lhs.probe.isWhole || JSONObject.sameBytes(lhs.text, rhs.text))
        }

        func hash(into hasher: inout Hasher) {
            guard probe.isWhole else {
                var text = text
                text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
                return
            }
            // Both words, not one folded from them: keys crafted to fold alike would all collide.
            hasher.combine(probe.head)
            hasher.combine(probe.tail)
        }
    }

    /// Whether two strings have the same UTF-8 bytes.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        var (a, b) = (a, b)
        return a.withUTF8 { x in
            b.withUTF8 { y in
                x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
    }

    /// The order of `entry`'s key against `key` (whose probe is `probe`), by bytes.
    private static func order(_ entry: Entry, _ key: String, _ probe: Probe) -> ComparisonResult {
        entry.probe.headOrder(against: probe) ?? ByteOrder.compare(entry.key, key)
    }

    private static func positions(of entries: [Entry]) -> [ByteKey: Int] {
        var positions: [ByteKey: Int] = [:]
        positions.reserveCapacity(entries.count * 4)  // room to grow before it rehashes
        for (position, entry) in entries.enumerated() { positions[ByteKey(entry.key, entry.probe)] = position }
        return positions
    }

    /// Objects up to this many fields are searched in order; larger ones through ``positions``.
    static let indexedCount = 24

    public init() {
        entries = []
    }

    public init(minimumCapacity: Int) {
        self.init()
        entries.reserveCapacity(minimumCapacity)
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(minimumCapacity: elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// The fields of `pairs`; a key given twice keeps its last value.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    /// The fields of `dictionary` (in its order, which no comparison or serialisation depends on).
    public init(_ dictionary: [String: JSONValue]) {
        self.init(minimumCapacity: dictionary.count)
        for (key, value) in dictionary { self[key] = value }
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }
    public subscript(position: Int) -> Element { (entries[position].key, entries[position].value) }

    // MARK: Keys

    /// The position of `key`'s entry, if the object has it.
    public func index(forKey key: String) -> Int? {
        position(of: key, Probe(key))
    }

    /// The position of the key whose probe is `probe`: through the table of positions when kept,
    /// by halves in a large object in order, else one by one.
    private func position(of key: String, _ probe: Probe) -> Int? {
        if let positions { return positions[ByteKey(key, probe)] }
        if entries.count > Self.indexedCount {  // and in order, since it has no positions
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                switch Self.order(entries[middle], key, probe) {
                case .orderedSame: return middle
                case .orderedAscending: low = middle + 1
                case .orderedDescending: high = middle
                }
            }
            return nil
        }
        for position in entries.indices where entries[position].probe == probe {
            if probe.isWhole || Self.sameBytes(entries[position].key, key) { return position }
        }
        return nil
    }

    public subscript(key: String) -> JSONValue? {
        get { index(forKey: key).map { entries[$0].value } }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets `key`'s value, returning the value it replaced.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        updateValue(value, forKey: key, probe: Probe(key))
    }

    /// ``updateValue(_:forKey:)`` with the key's probe made already (by a parse, from the text).
    @discardableResult
    mutating func updateValue(_ value: JSONValue, forKey key: String, probe: Probe) -> JSONValue? {
        // A key after the last of an object in order (each of a parse's, in stored text) is new.
        let follows = isOrdered && entries.last.map { Self.order($0, key, probe) == .orderedAscending } ?? true
        if !follows, let position = position(of: key, probe) {
            let old = entries[position].value
            entries[position].value = value
            return old
        }
        entries.append(Entry(key: key, value: value, probe: probe))
        if positions != nil {
            positions?[ByteKey(key, probe)] = entries.count - 1
        } else if !follows {
            isOrdered = false
            if entries.count > Self.indexedCount { positions = Self.positions(of: entries) }
        }
        return nil
    }

    /// Removes `key`'s field, returning its value.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = index(forKey: key) else { return nil }
        let old = entries.remove(at: position).value
        // Removing keeps the order; an object out of order rebuilds its positions, or needs none.
        if positions != nil { positions = entries.count > Self.indexedCount ? Self.positions(of: entries) : nil }
        return old
    }

    public var keys: [String] { entries.map(\.key) }

    // MARK: Building others

    /// The fields that pass `isIncluded`.
    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> JSONObject {
        var result = JSONObject(minimumCapacity: entries.count)
        for entry in entries where try isIncluded((entry.key, entry.value)) { result.entries.append(entry) }
        result.isOrdered = isOrdered  // a subsequence keeps the order
        if !isOrdered, result.entries.count > Self.indexedCount {
            result.positions = Self.positions(of: result.entries)
        }
        return result
    }

    /// These fields and `other`'s; where both have a key, `combine` picks the value.
    public func merging(_ other: JSONObject, uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue)
        rethrows -> JSONObject
    {
        var result = self
        for (key, value) in other {
            if let existing = result[key] {
                result[key] = try combine(existing, value)
            } else {
                result[key] = value
            }
        }
        return result
    }

    // MARK: Equality

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        for entry in lhs.entries {
            guard let position = rhs.position(of: entry.key, entry.probe), rhs.entries[position].value == entry.value
            else { return false }
        }
        return true
    }

    /// Each entry hashed on its own (its key by its bytes) and combined by addition, so the order
    /// does not count.
    public func hash(into hasher: inout Hasher) {
        var sum = 0
        for entry in entries {
            var entryHasher = Hasher()
            entryHasher.combine(ByteKey(entry.key, entry.probe))
            entryHasher.combine(entry.value)
            sum &+= entryHasher.finalize()
        }
        hasher.combine(entries.count)
        hasher.combine(sum)
    }
}

extension JSONObject: CustomStringConvertible, CustomDebugStringConvertible {
    /// As a dictionary prints itself: `["key": value]`, `[:]` when empty.
    public var description: String {
        isEmpty
            ? "[:]"
            : "[" + map { "\($0.key.debugDescription): \(String(reflecting: $0.value))" }.joined(separator: ", ") + "]"
    }

    public var debugDescription: String { description }
}
