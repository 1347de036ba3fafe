/// The full-screen app's screen as cells (issue 45): what the views draw into, what unit tests
/// read back, and what ``changes(from:color:)`` turns into the bytes that bring a terminal from
/// the last frame to this one. Text reaches it only as ``TerminalText``, so what came from the
/// store is neutralised here as in every command. A picture drawn in blocks becomes cells of its
/// colours (``write(_:row:column:limit:inverse:)`` reads its SGR colours); one in pixels is left
/// out, as its escapes are not cells.
struct CellGrid: Equatable {
    /// One column: a character and its style, or the right half of a wide one (`nil`).
    struct Cell: Equatable {
        var character: Character?
        var style: TerminalText.Style
        /// Shown in reverse video: the bars, or a picture's cell that asks for it.
        var inverse: Bool
        /// A picture's colours: an SGR colour's parameters (`2;R;G;B` or `5;N`), or the default.
        var foreground: String? = nil
        var background: String? = nil

        static let blank = Cell(character: " ", style: .plain, inverse: false)
    }

    let width: Int
    let height: Int
    private(set) var cells: [Cell]

    init(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    subscript(row: Int, column: Int) -> Cell { cells[row * width + column] }

    /// Row `row`'s characters as text (a wide character once), its trailing spaces kept.
    func line(_ row: Int) -> String {
        String(cells[(row * width)..<((row + 1) * width)].compactMap(\.character))
    }

    /// Every row, trailing spaces dropped: what a test compares with what it expects.
    var lines: [String] {
        (0..<height).map { row in
            var text = line(row)
            while text.last == " " { text.removeLast() }
            return text
        }
    }

    /// Writes one line of `text` (its first; tweetcli's text is wrapped before) at `row` from
    /// `column`, cut at `limit` columns (the right edge by default). A wide character that would
    /// stand across the edge is left out. Returns the column after the last written.
    @discardableResult
    mutating func write(_ text: TerminalText, row: Int, column: Int = 0, limit: Int? = nil, inverse: Bool = false)
        -> Int
    {
        guard (0..<height).contains(row) else { return column }
        let end = min(width, limit.map { column + $0 } ?? width)
        var position = max(0, column)
        for run in text.runs {
            if run.style == .graphics {
                position = writePicture(run.text, row: row, column: position, end: end)
                continue
            }
            for character in run.text {
                if character == "\n" { return position }
                let columns = DisplayWidth.of(character)
                guard columns > 0 else { continue }
                guard position + columns <= end else { return position }
                cells[row * width + position] = Cell(character: character, style: run.style, inverse: inverse)
                if columns == 2 {
                    cells[row * width + position + 1] = Cell(character: nil, style: run.style, inverse: inverse)
                }
                position += columns
            }
        }
        return position
    }

    /// Writes one line of a block picture (``Mosaic``'s, cleaned to SGR colours and characters):
    /// each character a cell with the colours in force. A picture in pixels is left out.
    private mutating func writePicture(_ line: String, row: Int, column: Int, end: Int) -> Int {
        let bytes = Array(line.utf8)
        guard bytes.first != 0x1B || bytes.count < 2 || bytes[1] == 0x5B else { return column }
        var (foreground, background, inverse): (String?, String?, Bool) = (nil, nil, false)
        var position = column
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x1B {
                var stop = index + 2
                while stop < bytes.count, bytes[stop] != 0x6D { stop += 1 }
                guard stop < bytes.count, index + 1 < bytes.count, bytes[index + 1] == 0x5B else { return position }
                let numbers = String(decoding: bytes[(index + 2)..<stop], as: UTF8.self).split(
                    separator: ";", omittingEmptySubsequences: false
                ).map { Int($0) ?? 0 }
                var at = 0
                while at < numbers.count {
                    switch numbers[at] {
                    case 0: (foreground, background, inverse) = (nil, nil, false)
                    case 7: inverse = true
                    case 27: inverse = false
                    case 39: foreground = nil
                    case 49: background = nil
                    case 38, 48:
                        let isRGB = at + 1 < numbers.count && numbers[at + 1] == 2
                        let count = isRGB ? 4 : 2
                        guard at + count < numbers.count else { at = numbers.count; continue }
                        let colour = numbers[(at + 1)...(at + count)].map { String(min(255, max(0, $0))) }
                            .joined(separator: ";")
                        if numbers[at] == 38 { foreground = colour } else { background = colour }
                        at += count
                    default: break
                    }
                    at += 1
                }
                index = stop + 1
                continue
            }
            // A character: its UTF-8 bytes, one cell (block characters are one column each).
            var length = 1
            while index + length < bytes.count, bytes[index + length] & 0xC0 == 0x80 { length += 1 }
            let text = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
            index += length
            guard position < end, let character = text.first else { continue }
            cells[row * width + position] = Cell(
                character: character, style: .plain, inverse: inverse, foreground: foreground, background: background)
            position += 1
        }
        return position
    }

    /// Fills `row` from `column` to the right edge with blanks in reverse video or not.
    mutating func fill(row: Int, from column: Int = 0, inverse: Bool) {
        guard (0..<height).contains(row) else { return }
        for position in max(0, column)..<width {
            cells[row * width + position] = Cell(character: " ", style: .plain, inverse: inverse)
        }
    }

    /// The bytes that turn a terminal showing `previous` into this grid: each row that differs,
    /// written whole from its first column (a row is the unit a terminal redraws cheaply), and
    /// every row when there is no previous frame or its size differs.
    func changes(from previous: CellGrid?, color: Bool) -> String {
        let whole = previous.map { $0.width != width || $0.height != height } ?? true
        var output = whole ? "\u{1B}[0m\u{1B}[2J" : ""
        for row in 0..<height {
            let range = (row * width)..<((row + 1) * width)
            if !whole, let previous, previous.cells[range] == cells[range] { continue }
            output += "\u{1B}[\(row + 1);1H"
            var current: Cell?
            for cell in cells[range] {
                guard let character = cell.character else { continue }
                if current.map({
                    $0.style != cell.style || $0.inverse != cell.inverse || $0.foreground != cell.foreground
                        || $0.background != cell.background
                }) ?? true {
                    output += Self.sgr(cell, color: color)
                    current = cell
                }
                output.append(character)
            }
            output += "\u{1B}[0m"
        }
        return output
    }

    /// The SGR sequence that sets a style from nothing: without colour, bold and reverse video
    /// alone (the selection must show on any terminal).
    private static func sgr(_ cell: Cell, color: Bool) -> String {
        var codes = ["0"]
        switch cell.style {
        case .bold: codes.append("1")
        case .dim where color: codes.append("2")
        case .accent where color: codes.append("36")
        case .like where color: codes.append("31")
        case .error: codes.append(color ? "1;31" : "1")
        default: break
        }
        if cell.inverse { codes.append("7") }
        if color, let foreground = cell.foreground { codes.append("38;" + foreground) }
        if color, let background = cell.background { codes.append("48;" + background) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
