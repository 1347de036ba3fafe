import TweetCore
import TwitterText

/// The full-screen app's composer (the course's `NewTweetView`): a text area over the list, with
/// the tweet it replies to or quotes above, mentions, hashtags and links coloured as they are
/// typed, and the weighted count as `post --dry-run` gives it. Its state and layout, as
/// ``TimelineView``'s, need no terminal.
struct ComposerSheet {
    /// The text, a character at a time, and the cursor: the index of the character it is before.
    private(set) var characters: [Character] = []
    private(set) var cursor = 0
    /// The tweet replied to or quoted, shown above.
    var replyTo: Tweet?
    var quote: Tweet?
    /// The author's picture (two lines of blocks) beside the heading, as the course's composer
    /// shows the signed-in user's; none where pictures are not drawn.
    var avatar: [String] = []

    init(text: String = "", replyTo: Tweet? = nil, quote: Tweet? = nil) {
        characters = Array(text)
        cursor = characters.count
        self.replyTo = replyTo
        self.quote = quote
    }

    var text: String { String(characters) }

    static let hints: TerminalText = "Ctrl-S post  Ctrl-E $EDITOR  Esc close (kept as a draft)  ←/→ move"

    mutating func insert(_ character: Character) {
        characters.insert(character, at: cursor)
        cursor += 1
    }

    mutating func deleteBackward() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    mutating func moveCursor(by step: Int) {
        cursor = min(max(0, cursor + step), characters.count)
    }

    mutating func moveCursorToEnd(_ end: Bool) {
        cursor = end ? characters.count : 0
    }

    /// Draws the sheet over rows `top` to `bottom` (exclusive) of `grid`: the context, a line, the
    /// text with its cursor, and the count (red when over).
    func draw(
        into grid: inout CellGrid, top: Int, bottom: Int, preview: CaptionPreview, renderer: TweetRenderer
    ) {
        let width = grid.width
        for row in top..<bottom { grid.fill(row: row, inverse: false) }
        var row = top
        let heading: TerminalText =
            replyTo.map { .bold("Reply to ") + TerminalText("@" + ($0.user?.username ?? "someone")) }
            ?? (quote != nil ? .bold("Quote") : .bold("New tweet"))
        if avatar.isEmpty {
            grid.write(heading, row: row, column: 1)
            row += 1
        } else {
            for (offset, line) in avatar.prefix(2).enumerated() {
                var picture = TerminalText()
                picture.append(graphics: line)
                grid.write(picture, row: row + offset, column: 1)
            }
            grid.write(heading, row: row, column: 6)
            row += 2
        }
        if let context = replyTo ?? quote {
            let lines = TerminalText.lines(of: renderer.render(context).wrapped(width: max(10, width - 6)))
            for line in lines.prefix(max(0, (bottom - top) / 3)) {
                grid.write(.dim("│ "), row: row, column: 1)
                grid.write(line, row: row, column: 3)
                row += 1
            }
        }
        grid.write(.dim(String(repeating: "─", count: max(0, width - 2))), row: row, column: 1)
        row += 1
        let textTop = row
        let textBottom = max(textTop + 1, bottom - 2)
        // Hard-wrapped at the width a character at a time, so the cursor's cell is known; each
        // character in its entity's style.
        let styles = Self.styles(characters)
        var (line, column) = (textTop, 1)
        let right = width - 1
        for (index, character) in characters.enumerated() {
            if index == cursor { grid.write(.styled(" ", .plain), row: line, column: column, inverse: true) }
            if character == "\n" {
                (line, column) = (line + 1, 1)
                continue
            }
            let columns = max(1, DisplayWidth.of(character))
            if column + columns > right { (line, column) = (line + 1, 1) }
            guard line < textBottom else { break }
            let isCursor = index == cursor
            grid.write(
                TerminalText(String(character), style: styles[index]), row: line, column: column, inverse: isCursor)
            column += columns
        }
        if cursor == characters.count, line < textBottom {
            grid.write(" ", row: line, column: min(column, right - 1), inverse: true)
        }
        let left = preview.remaining
        let count: TerminalText =
            left >= 0
            ? .dim("\(preview.weightedLength)/\(preview.limit) · \(left) left")
            : .styled("\(preview.weightedLength)/\(preview.limit) · \(-left) over: cut \(-left) to post", .error)
        grid.write(count, row: bottom - 1, column: 1)
        let countWidth = DisplayWidth.of(count.plain)
        if countWidth + 4 + DisplayWidth.of(Self.hints.plain) < width {
            grid.write(.dim(Self.hints.plain), row: bottom - 1, column: countWidth + 4)
        }
    }

    /// Each character's style: mentions, hashtags, cashtags and links as the rows colour them.
    private static func styles(_ characters: [Character]) -> [TerminalText.Style] {
        var styles = Array(repeating: TerminalText.Style.plain, count: characters.count)
        let text = String(characters)
        for entity in TweetText.extractEntitiesWithIndices(text) {
            guard let range = entity.stringRange(in: text) else { continue }
            let start = text.distance(from: text.startIndex, to: range.lowerBound)
            let end = text.distance(from: text.startIndex, to: range.upperBound)
            for index in max(0, start)..<min(characters.count, end) { styles[index] = .accent }
        }
        return styles
    }
}
