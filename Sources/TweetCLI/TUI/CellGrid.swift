/// The full-screen app's screen as cells (issue 45): what the views draw into, what unit tests
/// read back, and what ``changes(from:color:)`` turns into the bytes that bring a terminal from
/// the last frame to this one. Text reaches it only as ``TerminalText``, so what came from the
/// store is neutralised here as in every command; pictures are left out (their escapes are not
/// cells).
struct CellGrid: Equatable {
    /// One column: a character and its style, or the right half of a wide one (`nil`).
    struct Cell: Equatable {
        var character: Character?
        var style: TerminalText.Style
        /// Shown in reverse video: the selection.
        var inverse: Bool

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
        for run in text.runs where run.style != .graphics {
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
            var current: (TerminalText.Style, Bool)? = nil
            for cell in cells[range] {
                guard let character = cell.character else { continue }
                let style = (cell.style, cell.inverse)
                if current.map({ $0 != style }) ?? true {
                    output += Self.sgr(style.0, inverse: style.1, color: color)
                    current = style
                }
                output.append(character)
            }
            output += "\u{1B}[0m"
        }
        return output
    }

    /// The SGR sequence that sets a style from nothing: without colour, bold and reverse video
    /// alone (the selection must show on any terminal).
    private static func sgr(_ style: TerminalText.Style, inverse: Bool, color: Bool) -> String {
        var codes = ["0"]
        switch style {
        case .bold: codes.append("1")
        case .dim where color: codes.append("2")
        case .accent where color: codes.append("36")
        case .like where color: codes.append("31")
        case .error: codes.append(color ? "1;31" : "1")
        default: break
        }
        if inverse { codes.append("7") }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
