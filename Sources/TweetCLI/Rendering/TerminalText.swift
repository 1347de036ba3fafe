import TweetImages

/// Text on its way to a terminal: runs of characters, each with one of tweetcli's own styles.
///
/// Everything that comes from the store or from another user is untrusted, so this is the one place
/// where text becomes output. String literals in tweetcli's source are trusted; every `String`
/// that is interpolated, or passed to an initialiser, is neutralised first: C0 and C1 control
/// characters, DEL and the bidirectional embeddings, overrides and isolates are shown as visible
/// escapes (`\x1b`, `\u202e`), so they can neither run a terminal sequence nor reorder the rest of
/// the line. Escape sequences appear only when ``rendered(color:)`` applies a ``Style``.
public struct TerminalText: Equatable, Sendable, ExpressibleByStringInterpolation {
    /// tweetcli's own styles: the only source of escape sequences in the output.
    public enum Style: Equatable, Sendable {
        case plain, bold, dim, accent, like, error
        /// A line of a picture that tweetcli's own renderer drew (``Mosaic``): block characters
        /// and colours, written as they are with colour and left out without it.
        case graphics

        /// The SGR parameters of the style.
        var code: String? {
            switch self {
            case .plain: return nil
            case .bold: return "1"
            case .dim: return "2"
            case .accent: return "36"
            case .like: return "31"
            case .error: return "1;31"
            case .graphics: return nil
            }
        }
    }

    /// A stretch of neutralised text in one style.
    struct Run: Equatable, Sendable {
        var text: String
        var style: Style

        /// Whether the run stays in ``plain``: all but a picture's block characters.
        var isPlain: Bool {
            style != .graphics || PixelEscape.opensString(text.utf8.first, text.utf8.dropFirst().first)
        }
    }

    fileprivate(set) var runs: [Run]

    /// Empty text.
    public init() {
        runs = []
    }

    init(runs: [Run]) {
        // Most texts have no empty run: kept as they are, not copied.
        self.runs = runs.contains { $0.text.isEmpty } ? runs.filter { !$0.text.isEmpty } : runs
    }

    /// Untrusted text, neutralised; line breaks are kept only when `multiline` (captions, bios).
    public init(_ text: some StringProtocol, style: Style = .plain, multiline: Bool = false) {
        self.init(runs: [Run(text: Self.neutralize(text, multiline: multiline), style: style)])
    }

    /// tweetcli's own text, written in its source: trusted as it is.
    public init(stringLiteral value: String) {
        self.init(runs: [Run(text: value, style: .plain)])
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(runs: stringInterpolation.runs)
    }

    /// Builds text from literals (trusted) and interpolated values (neutralised unless they are
    /// already ``TerminalText``).
    public struct StringInterpolation: StringInterpolationProtocol {
        var runs: [Run] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            runs.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            runs.append(Run(text: literal, style: .plain))
        }

        public mutating func appendInterpolation(_ text: TerminalText) {
            runs += text.runs
        }

        /// An untrusted single-line value: a name, a username, an id.
        public mutating func appendInterpolation(_ text: some StringProtocol) {
            runs.append(Run(text: TerminalText.neutralize(text, multiline: false), style: .plain))
        }

        public mutating func appendInterpolation(_ number: Int) {
            runs.append(Run(text: String(number), style: .plain))
        }
    }

    /// The text without any styling, and without pictures in blocks (their colours are all they
    /// are); a picture in pixels stays, since it was asked for by name (`--images sixel`).
    public var plain: String {
        // The runs' bytes copied into one string made at its final size: String's append costs
        // many times a copy for each run, and a page of tweets has hundreds of runs.
        var count = 0
        for run in runs where run.isPlain { count += run.text.utf8.count }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var written = 0
            for run in runs where run.isPlain {
                var text = run.text
                text.withUTF8 { bytes in
                    guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
                    (target + written).initialize(from: source, count: bytes.count)
                    written += bytes.count
                }
            }
            return written
        }
    }

    /// The bytes to write: with SGR sequences for the styles when `color`, else the plain text.
    public func rendered(color: Bool) -> String {
        guard color else { return plain }
        var output = ""
        for run in runs {
            guard let code = run.style.code else {
                output += run.text
                continue
            }
            // Styles never span a line break, so a pager or a cut-off line cannot leak them.
            var first = true
            for line in Self.lines(of: run.text) {
                if !first { output += "\n" }
                first = false
                if !line.isEmpty { output += "\u{1B}[\(code)m\(line)\u{1B}[0m" }
            }
        }
        return output
    }

    /// `text`'s lines as `split(separator: "\n", omittingEmptySubsequences: false)` gives them (so
    /// a CR LF, one `Character`, is not a break), without walking its characters when it has no
    /// line feed, as most runs have none.
    static func lines(of text: String) -> [Substring] {
        let hasLineFeed =
            text.utf8.withContiguousStorageIfAvailable { $0.contains(0x0A) } ?? text.utf8.contains(0x0A)
        return hasLineFeed ? text.split(separator: "\n", omittingEmptySubsequences: false) : [text[...]]
    }

    /// Taking `lhs` by value lets a chain `a + b + c` append to one buffer in place instead of
    /// copying the runs at every step.
    public static func + (lhs: consuming TerminalText, rhs: TerminalText) -> TerminalText {
        var sum = lhs
        sum += rhs
        return sum
    }

    /// Appends in place: both sides' runs are already non-empty, so a page of rows joined one by
    /// one copies each run once, not once per row after it.
    public static func += (lhs: inout TerminalText, rhs: TerminalText) {
        lhs.runs.append(contentsOf: rhs.runs)
    }

    // MARK: Building in place

    /// tweetcli's own text for ``append(_:_:)``: only a literal in its source becomes one.
    struct Literal: ExpressibleByStringLiteral {
        let text: String
        init(stringLiteral value: String) { text = value }
    }

    /// Room for `count` runs, so a row built a run at a time is not copied as it grows.
    mutating func reserve(runs count: Int) {
        runs.reserveCapacity(count)
    }

    /// Appends tweetcli's own text in `style`, trusted as it is: no intermediate text is made.
    mutating func append(_ literal: Literal, _ style: Style = .plain) {
        if !literal.text.isEmpty { runs.append(Run(text: literal.text, style: style)) }
    }

    /// Appends untrusted text, neutralised, in `style` (line breaks kept only when `multiline`).
    mutating func append(untrusted text: some StringProtocol, _ style: Style = .plain, multiline: Bool = false) {
        let safe = Self.neutralize(text, multiline: multiline)
        if !safe.isEmpty { runs.append(Run(text: safe, style: style)) }
    }

    /// Appends one line of a picture tweetcli's renderer drew (see ``Style/graphics``).
    mutating func append(graphics line: String) {
        if !line.isEmpty { runs.append(Run(text: line, style: .graphics)) }
    }

    /// Appends a number (digits, nothing to neutralise) in `style`.
    mutating func append(_ number: Int, _ style: Style = .plain) {
        runs.append(Run(text: String(number), style: style))
    }

    // MARK: Styles

    /// Untrusted single-line text in `style`.
    static func styled(_ text: some StringProtocol, _ style: Style) -> TerminalText {
        TerminalText(text, style: style)
    }

    static func bold(_ text: some StringProtocol) -> TerminalText { styled(text, .bold) }
    static func dim(_ text: some StringProtocol) -> TerminalText { styled(text, .dim) }

    /// `text` with `indent` (trusted spaces) at the start of each of its lines.
    static func indenting(_ text: TerminalText, by indent: String) -> TerminalText {
        guard !indent.isEmpty else { return text }
        var runs: [Run] = [Run(text: indent, style: .plain)]
        for run in text.runs {
            let lines = Self.lines(of: run.text)
            for (number, line) in lines.enumerated() {
                if number > 0 {
                    runs.append(Run(text: "\n", style: .plain))
                    runs.append(Run(text: indent, style: .plain))
                }
                if !line.isEmpty { runs.append(Run(text: String(line), style: run.style)) }
            }
        }
        // No indent dangling after the last line break.
        if runs.last?.text == indent, runs.count > 1, runs[runs.count - 2].text == "\n" { runs.removeLast() }
        return TerminalText(runs: runs)
    }
}

extension Array where Element == TerminalText {
    /// The elements with `separator` between them.
    func joined(separator: TerminalText = TerminalText()) -> TerminalText {
        var result = TerminalText()
        result.runs.reserveCapacity(reduce(0) { $0 + $1.runs.count } + Swift.max(0, count - 1) * separator.runs.count)
        for (index, text) in enumerated() {
            if index > 0 { result += separator }
            result += text
        }
        return result
    }
}

// MARK: Neutralising

extension TerminalText {
    /// `text` with nothing a terminal would act on: every C0 and C1 control character, DEL and
    /// bidirectional control shown as a visible escape. Tabs become a space; line breaks (LF, CR LF,
    /// U+2028, U+2029) become "\n" when `multiline`, else a visible escape. Applying it twice gives
    /// the same text, since an escape is printable ASCII.
    public static func neutralize(_ text: some StringProtocol, multiline: Bool) -> String {
        guard needsNeutralizing(text) else { return String(text) }
        var output = ""
        output.reserveCapacity(text.utf8.count + 16)
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar.value {
            case 0x09:
                output += " "
            case 0x0A, 0x2028, 0x2029:
                output += multiline ? "\n" : visible(scalar)
            case 0x0D where pending == "\n" && multiline:
                continue  // CR LF is one line break.
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                output += visible(scalar)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// `\x1b` for a C0 control or DEL, `\u009b` for C1 controls and bidirectional controls.
    private static func visible(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return scalar.value < 0x80
            ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
            : "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Whether any byte could start something ``neutralize(_:multiline:)`` changes: the fast path
    /// for the usual text, which needs nothing.
    private static func needsNeutralizing(_ text: some StringProtocol) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable({ needsNeutralizing(bytes: $0) }) {
            return answer
        }
        var copy = String(text)
        return copy.withUTF8 { needsNeutralizing(bytes: $0) }
    }

    private static func needsNeutralizing(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        // Printable ASCII eight bytes at a time: no byte with its top bit set (UTF-8 past ASCII),
        // none below 0x20 (adding 0x60 carries it no higher than 0x7F), none that is DEL (adding 1
        // makes 0x80). Nothing carries from one byte into the next, since each is below 0x80.
        var index = 0
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let high: UInt64 = 0x8080_8080_8080_8080
            if word & high != 0 { break }
            if (word &+ 0x6060_6060_6060_6060) & high != high { break }
            if (word &+ 0x0101_0101_0101_0101) & high != 0 { break }
            index += 8
        }
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        while index < bytes.count {
            let byte = base[index]
            index += 1
            if byte < 0x20 || byte == 0x7F { return true }
            // C1 controls are C2 80–C2 9F in UTF-8.
            if previous == 0xC2 && byte < 0xA0 && byte >= 0x80 { return true }
            // U+2028–U+202E are E2 80 A8–AE; U+2066–U+2069 are E2 81 A6–A9.
            if beforePrevious == 0xE2 {
                if previous == 0x80 && (0xA8...0xAE).contains(byte) { return true }
                if previous == 0x81 && (0xA6...0xA9).contains(byte) { return true }
            }
            beforePrevious = previous
            previous = byte
        }
        return false
    }
}
