import TweetImages

extension TerminalText {
    /// The text's lines broken to at most `width` columns: at spaces where it can, between two
    /// wide (CJK) characters, and inside a word (a long URL) only when the word is wider than a
    /// whole line. A continuation line keeps the leading spaces of the line it continues (up to half
    /// the width, which is also as much indent as a first line keeps).
    /// - Parameter width: Columns; `nil` leaves every line whole (output that is not a terminal).
    public func wrapped(width: Int?) -> TerminalText {
        guard let columns = width else { return self }
        let width = max(columns, 10)
        var output: [Cell] = []
        var firstLine = true
        for line in cellLines() {
            if !firstLine { output.append(Cell(character: "\n", style: .plain)) }
            firstLine = false
            for (index, row) in Self.wrap(line, width: width).enumerated() {
                if index > 0 { output.append(Cell(character: "\n", style: .plain)) }
                output += row
            }
        }
        return TerminalText(cells: output)
    }

    /// One character and its style: what wrapping moves around. A line of a picture is one cell
    /// as wide as the picture, so that wrapping never cuts into its escape sequences.
    private struct Cell {
        var character: Character
        var style: Style
        var graphics: (line: String, columns: Int)?
        var columns: Int { graphics?.columns ?? DisplayWidth.of(character) }
        var isSpace: Bool { graphics == nil && character == " " }
        var isWide: Bool { graphics == nil && columns == 2 && !character.isASCII }

        init(character: Character, style: Style, graphics: (line: String, columns: Int)? = nil) {
            self.character = character
            self.style = style
            self.graphics = graphics
        }
    }

    private init(cells: [Cell]) {
        var runs: [Run] = []
        for cell in cells {
            if let graphics = cell.graphics {
                runs.append(Run(text: graphics.line, style: .graphics))
            } else if let last = runs.last, last.style == cell.style {
                runs[runs.count - 1].text.append(cell.character)
            } else {
                runs.append(Run(text: String(cell.character), style: cell.style))
            }
        }
        self.init(runs: runs)
    }

    private func cellLines() -> [[Cell]] {
        var lines: [[Cell]] = [[]]
        for run in runs {
            if run.style == .graphics {
                // Its visible characters are block characters, one column each.
                let columns = Mosaic.visibleCount(run.text)
                lines[lines.count - 1].append(
                    Cell(character: " ", style: .graphics, graphics: (run.text, columns)))
                continue
            }
            for character in run.text {
                if character == "\n" {
                    lines.append([])
                } else {
                    lines[lines.count - 1].append(Cell(character: character, style: run.style))
                }
            }
        }
        return lines
    }

    /// Words: the cells between spaces, and each wide character on its own, since CJK text breaks
    /// between any two characters. `space` is the space that stood before the word, if one did.
    private static func words(_ line: ArraySlice<Cell>) -> [(cells: [Cell], space: Cell?)] {
        var words: [(cells: [Cell], space: Cell?)] = []
        var current: [Cell] = []
        var space: Cell?
        func flush(next: Cell?) {
            if !current.isEmpty || next != nil { words.append((current, space)) }
            current = []
            space = next
        }
        for cell in line {
            if cell.isSpace {
                flush(next: cell)
            } else if cell.isWide {
                if !current.isEmpty { flush(next: nil) }  // Else a space before it stays its own.
                current = [cell]
                flush(next: nil)
            } else {
                current.append(cell)
            }
        }
        if !current.isEmpty { words.append((current, space)) }
        return words
    }

    private static func wrap(_ line: [Cell], width: Int) -> [[Cell]] {
        // The indent, kept on every row: spaces, and a quote's or thread's gutter among them.
        let indentCount = line.prefix { $0.isSpace || $0.character == "│" }.count
        let indent = Array(line.prefix(min(indentCount, width / 2)))
        var rows: [[Cell]] = []
        var row = indent
        var rowWidth = row.count
        var rowHasWords = false
        func newRow() {
            rows.append(row)
            row = indent
            rowWidth = indent.count
            rowHasWords = false
        }
        for (cells, space) in words(line.dropFirst(indentCount)) {
            let wordWidth = cells.reduce(0) { $0 + $1.columns }
            let separator = space != nil && rowHasWords ? 1 : 0
            if rowWidth + separator + wordWidth > width && rowHasWords {
                newRow()
            } else if separator == 1, let space {
                row.append(space)
                rowWidth += 1
            }
            // A word wider than a whole line breaks where it must.
            for cell in cells {
                if rowWidth + cell.columns > width && rowWidth > indent.count { newRow() }
                row.append(cell)
                rowWidth += cell.columns
                rowHasWords = true
            }
        }
        rows.append(row)
        return rows
    }
}
