import FoundationEssentials
import TweetCore

/// One row of a list the full-screen app shows: a tweet, a notification or a user.
enum Row {
    case tweet(Tweet)
    case notification(ActivityNotification)
    case user(User)

    /// What tells two versions of the same row apart from other rows.
    var key: String {
        switch self {
        case .tweet(let tweet): "t:" + tweet.cursor
        case .notification(let notification): "n:" + notification.id
        case .user(let user): "u:" + user.id
        }
    }

    /// When it happened, for the lists newest first; `nil` for a user.
    var time: Date? {
        switch self {
        case .tweet(let tweet): tweet.retweetedAt ?? tweet.timestamp
        case .notification(let notification): notification.timestamp
        case .user: nil
        }
    }

    /// The tweet the actions act on: the row's own, or the one a notification is about.
    var tweet: Tweet? {
        switch self {
        case .tweet(let tweet): tweet
        case .notification(let notification): notification.tweet
        case .user: nil
        }
    }

    /// The user a row leads to with `p`: a tweet's author, who a notification is from, the user.
    var user: User? {
        switch self {
        case .tweet(let tweet): tweet.user
        case .notification(let notification): notification.from
        case .user(let user): user
        }
    }
}

/// A list of the full-screen app (the Home feed, the bell, a profile, bookmarks, explore, a
/// thread): the rows a person moves through, the one selected, the new ones waiting above, and
/// its layout into a ``CellGrid``, with no terminal in sight, so that tests assert on the grid.
struct TimelineView {
    /// The rows shown, in the list's order (newest first, but for a thread).
    var rows: [Row] = []
    /// Rows that came since, newest first: counted in the bar, brought in by a key.
    var waiting: [Row] = []
    var selected = 0
    /// The first row on screen.
    var top = 0
    /// Whether more rows than those loaded exist (a page further down).
    var hasMore = false
    /// Lines above the rows (a profile's header), not selectable.
    var header: [TerminalText] = []
    /// What the title bar names, after "tweetcli".
    var title: TerminalText = .bold("Home")
    var unreadNotifications = 0
    /// What an empty list says.
    var empty: TerminalText = .dim("No tweets yet.")
    /// The status line: what the last action did, or why it failed.
    var status: TerminalText = ""
    /// Which row of the list each screen row showed at the last layout, and which of its lines,
    /// for a click.
    private(set) var rowAtScreenRow: [Int: (index: Int, line: Int)] = [:]
    /// The columns of each tab's label in the title bar at the last layout, for a click.
    private(set) var tabColumns: [Range<Int>] = []

    static let tabs: TerminalText = "1 Home  2 Explore  3 Notifications  4 Profile  5 Bookmarks"

    static let hints: TerminalText =
        "j/k move  ⏎ open  l like  t retweet  r reply  n post  / search  ? keys  q quit"

    static let help: [TerminalText] = [
        .bold("Keys"), "",
        "j, ↓          the next row            k, ↑        the one before",
        "g, Home       the first               G, End      the last loaded",
        "PgDn, PgUp    a screen down or up     .           bring in the new rows",
        "Enter         the tweet's thread, or the user's profile",
        "p             the author's profile    Esc, ⌫      back",
        "l             like or unlike          t           retweet or undo it",
        "r             reply                   Q           quote",
        "b             bookmark                d           delete yours (asks first)",
        "n             a new tweet             f           Home: everyone or following",
        "              (the composer: Ctrl-S posts, Ctrl-E opens $EDITOR, Esc keeps a draft)",
        "y             copy the tweet's link   /           search (on Explore: people)",
        "Mouse         a click selects a row, the wheel moves",
        "1 … 5, Tab    Home, Explore, Notifications, Profile, Bookmarks",
        "Ctrl-Z        suspend (fg resumes)    q, Ctrl-C   quit",
        "", .dim("Any key closes this."),
    ]

    var selectedRow: Row? { rows.indices.contains(selected) ? rows[selected] : nil }
    var selectedTweet: Tweet? { selectedRow?.tweet }

    /// Moves the selection by `step` rows, kept within those loaded.
    mutating func move(by step: Int) {
        guard !rows.isEmpty else { return }
        selected = min(max(0, selected + step), rows.count - 1)
    }

    /// Brings the waiting rows in above, selecting the newest.
    mutating func showWaiting() {
        guard !waiting.isEmpty else { return }
        rows = waiting + rows
        waiting = []
        selected = 0
        top = 0
    }

    /// Takes the newest page as the store has it now, for a list newest first: rows newer than
    /// the newest shown wait above; those shown get their new counts in place; one shown that is
    /// gone from the span the page covers was deleted, and goes. The selection stays on its row.
    mutating func merge(newest page: [Row]) {
        let shownKeys = Set(rows.map(\.key))
        let waitingKeys = Set(waiting.map(\.key))
        let newestShown = rows.first?.time ?? .distantPast
        let arrived = page.filter {
            !shownKeys.contains($0.key) && !waitingKeys.contains($0.key) && ($0.time ?? .distantPast) > newestShown
        }
        let pageKeys = Set(page.map(\.key))
        waiting = arrived + waiting.filter { pageKeys.contains($0.key) }
        let byKey = Dictionary(page.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let oldestInPage = page.last?.time
        replace(
            rows.compactMap { row in
                if let fresh = byKey[row.key] { return fresh }
                // Newer than the page's oldest and not in it: deleted (or now hidden). One as old
                // as the page's oldest may only have been cut off by its size.
                if let oldestInPage, let time = row.time, time > oldestInPage { return nil }
                return row
            })
    }

    /// The rows anew (a list read again), the selection kept on its row where it still is.
    mutating func replace(_ fresh: [Row]) {
        let selectedKey = selectedRow?.key
        rows = fresh
        if let selectedKey, let index = rows.firstIndex(where: { $0.key == selectedKey }) {
            selected = index
        } else {
            selected = min(selected, max(0, rows.count - 1))
        }
    }

    /// The screen: the title bar, the new-rows bar, the header and the rows from ``top`` with the
    /// selected one marked, the status line and the keys. Moves ``top`` so the selection shows whole.
    mutating func layout(
        width: Int, height: Int, render: (Row) -> TerminalText, showingHelp: Bool = false
    ) -> CellGrid {
        var grid = CellGrid(width: width, height: height)
        let bell: TerminalText = unreadNotifications > 0 ? "   🔔 \(unreadNotifications)" : ""
        grid.fill(row: 0, inverse: true)
        let end = grid.write(" tweetcli  " + title + bell, row: 0, inverse: true)
        tabColumns = []
        if end + 2 + DisplayWidth.of(Self.tabs.plain) <= width {
            var column = width - DisplayWidth.of(Self.tabs.plain) - 1
            grid.write(Self.tabs, row: 0, column: column, inverse: true)
            for label in Self.tabs.plain.components(separatedBy: "  ") {
                tabColumns.append(column..<(column + DisplayWidth.of(label)))
                column += DisplayWidth.of(label) + 2
            }
        }
        if !waiting.isEmpty {
            let count = waiting.count
            let what = waiting.first.map { if case .notification = $0 { "notification" } else { "tweet" } } ?? "tweet"
            grid.write(
                .styled("↑ \(count) new \(what)\(count == 1 ? "" : "s") · press . to show", .accent), row: 1, column: 1)
        }
        var bodyTop = 2
        let bodyEnd = max(bodyTop + 1, height - 2)
        if showingHelp {
            for (offset, line) in Self.help.enumerated() where bodyTop + offset < bodyEnd {
                grid.write(line, row: bodyTop + offset, column: 2)
            }
        } else {
            for line in header.flatMap({ TerminalText.lines(of: $0.wrapped(width: max(10, width - 2))) })
            where bodyTop < bodyEnd - 1 {
                grid.write(line, row: bodyTop, column: 2)
                bodyTop += 1
            }
            if !header.isEmpty { bodyTop += 1 }
            if rows.isEmpty {
                grid.write(empty, row: bodyTop, column: 2)
            } else {
                layoutRows(into: &grid, from: bodyTop, to: bodyEnd, width: width, render: render)
            }
        }
        grid.write(status, row: height - 2, column: 1)
        grid.fill(row: height - 1, inverse: true)
        grid.write(Self.hints, row: height - 1, column: 1, inverse: true)
        return grid
    }

    private mutating func layoutRows(
        into grid: inout CellGrid, from bodyTop: Int, to bodyEnd: Int, width: Int, render: (Row) -> TerminalText
    ) {
        // Only the rows the screen needs are rendered: a thousand loaded cost no more per key.
        var rendered: [Int: [TerminalText]] = [:]
        func lines(_ index: Int) -> [TerminalText] {
            if let lines = rendered[index] { return lines }
            let lines = TerminalText.lines(of: render(rows[index]).wrapped(width: max(10, width - 2)))
            rendered[index] = lines
            return lines
        }
        selected = min(max(0, selected), rows.count - 1)
        let (chosen, first) = (selected, top)
        top = Self.top(showing: chosen, from: first, height: bodyEnd - bodyTop) { lines($0).count }
        var row = bodyTop
        var index = top
        rowAtScreenRow = [:]
        while index < rows.count, row < bodyEnd {
            let isSelected = index == selected
            for (number, line) in lines(index).enumerated() where row < bodyEnd {
                grid.write(isSelected ? .styled("▌", .accent) : " ", row: row)
                grid.write(line, row: row, column: 2)
                rowAtScreenRow[row] = (index, number)
                row += 1
            }
            row += 1
            index += 1
        }
        if index >= rows.count, row < bodyEnd, !hasMore {
            grid.write(.dim("That is all."), row: row, column: 2)
        }
    }

    /// The first row to show so that `selected` shows whole (or starts the screen, when it is
    /// taller than the screen): `top` if it does already, else as far down as needed, counted
    /// back from the selection.
    private static func top(showing selected: Int, from top: Int, height: Int, lines: (Int) -> Int) -> Int {
        guard selected > top else { return selected }
        var used = lines(selected)
        var first = selected
        while first > top {
            let above = lines(first - 1) + 1
            guard used + above <= height else { break }
            used += above
            first -= 1
        }
        return first
    }
}

extension TerminalText {
    /// `text`'s lines, each its own text with its runs' styles.
    static func lines(of text: TerminalText) -> [TerminalText] {
        var lines: [[Run]] = [[]]
        for run in text.runs {
            var first = true
            for part in Self.lines(of: run.text) {
                if !first { lines.append([]) }
                first = false
                if !part.isEmpty { lines[lines.count - 1].append(Run(text: String(part), style: run.style)) }
            }
        }
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map { TerminalText(runs: $0) }
    }
}
