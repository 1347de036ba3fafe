import TweetStore

/// One `data/*.js` file of a Twitter archive: JavaScript that assigns one JSON value,
/// `window.YTD.tweets.part0 = [ … ]` (or `window.__THAR_CONFIG = { … }` for the manifest). The
/// value's items are handed over one at a time as the file is read, so a file of any size takes
/// the memory of its largest item.
struct ArchiveScript {
    /// The most bytes one item may have: a tweet with all its entities takes a few kilobytes.
    static let maximumItemBytes = 16 << 20

    private enum State {
        /// Before the `=`: the name the value is assigned to.
        case assignment
        /// After the `=`, before the value.
        case value
        /// Inside the list, between items.
        case list
        /// Inside an item (the list's, or the whole value when it is an object).
        case item
        /// After the value: only white space and a `;` may follow.
        case end
    }

    private let file: String
    private var state = State.assignment
    private var wholeObject = false
    private var offset = 0
    private var item: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var index = 0
    private var itemStart = 0

    private init(file: String) { self.file = file }

    /// Reads `name` from `files` and hands each item of its list (or its one object) to `body`,
    /// with its place in the list (0 for the first).
    /// - Throws: ``ArchiveError/malformed(file:place:reason:)`` naming the file and the item or
    ///   byte, ``ArchiveError/unreadable(_:reason:)``, or what `body` throws.
    static func read(
        _ name: String, in files: ArchiveFiles, _ body: (_ index: Int, _ value: JSONValue) throws -> Void
    ) throws {
        try readItems(name, in: files) { index, item, notJSON in
            let value: JSONValue
            do throws(JSONParseError) {
                value = try JSONValue.parse(item)
            } catch {
                throw notJSON(error)
            }
            try body(index, value)
        }
    }

    /// ``read(_:in:_:)`` handing over each item's bytes unparsed, with the error that names a
    /// parse's failure in it, for a reader that builds only what it takes.
    static func readItems(
        _ name: String, in files: ArchiveFiles,
        _ body: (_ index: Int, _ item: UnsafeBufferPointer<UInt8>, _ notJSON: (JSONParseError) -> ArchiveError) throws
            -> Void
    ) throws {
        var script = ArchiveScript(file: name)
        try files.read(name) { piece in try script.consume(piece.bindMemory(to: UInt8.self), body) }
        guard case .end = script.state else {
            throw ArchiveError.malformed(
                file: name, place: "its end", reason: "it ends before its value does (the file is cut short)")
        }
    }

    private func malformed(_ reason: String, at byte: Int? = nil) -> ArchiveError {
        let place = byte.map { "byte \($0 + 1)" } ?? "item \(index + 1)"
        return .malformed(file: file, place: place, reason: reason)
    }

    private mutating func consume(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ body: (Int, UnsafeBufferPointer<UInt8>, (JSONParseError) -> ArchiveError) throws -> Void
    ) throws {
        var at = 0
        var segment = 0  // where the current item's bytes in this piece start
        defer { offset += bytes.count }
        while at < bytes.count {
            let byte = bytes[at]
            switch state {
            case .assignment:
                if byte == UInt8(ascii: "=") {
                    state = .value
                } else if offset + at > 4096 {
                    throw malformed("it does not start with an assignment such as window.YTD.tweets.part0 = [", at: 0)
                }
            case .value, .list:
                if Self.isSpace(byte) || (state == .list && byte == UInt8(ascii: ",")) { break }
                if state == .value && byte == UInt8(ascii: "[") {
                    state = .list
                } else if state == .list && byte == UInt8(ascii: "]") {
                    state = .end
                } else if byte == UInt8(ascii: "{") {
                    wholeObject = state == .value
                    state = .item
                    depth = 1
                    item.removeAll(keepingCapacity: true)
                    segment = at
                    itemStart = offset + at
                } else {
                    throw malformed(
                        state == .value ? "the value assigned is not a list or an object" : "it is not an object",
                        at: state == .value ? offset + at : nil)
                }
            case .item:
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    depth += 1
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 {
                        item.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment...at]))
                        try finishItem(body)
                    }
                }
            case .end:
                guard Self.isSpace(byte) || byte == UInt8(ascii: ";") else {
                    throw malformed("something follows the value", at: offset + at)
                }
            }
            at += 1
        }
        if case .item = state {
            item.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment..<bytes.count]))
            guard item.count <= Self.maximumItemBytes else {
                throw malformed("it is longer than \(Self.maximumItemBytes >> 20) MiB")
            }
        }
    }

    private mutating func finishItem(
        _ body: (Int, UnsafeBufferPointer<UInt8>, (JSONParseError) -> ArchiveError) throws -> Void
    ) throws {
        let (start, file, index) = (itemStart, file, index)
        try item.withUnsafeBufferPointer { bytes in
            try body(index, bytes) { error in
                ArchiveError.malformed(
                    file: file, place: "item \(index + 1)",
                    reason: "it is not JSON (\(error), counting from byte \(start + 1) of the file)")
            }
        }
        self.index += 1
        state = wholeObject ? .end : .list
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
