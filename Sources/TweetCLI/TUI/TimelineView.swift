import FoundationEssentials
import TweetCore

/// The Home tab of `tweetcli tui`: the state a person moves through (the tweets loaded, the one
/// selected, the new ones waiting above) and its layout into a ``CellGrid``, with no terminal in
/// sight, so that tests assert on the grid itself.
struct TimelineView {
    /// The tweets shown, newest first, as the feed's view model loaded them.
    var tweets: [Tweet] = []
    /// Tweets that came since, newest first: counted in the bar, brought in by a key.
    var waiting: [Tweet] = []
    var selected = 0
    /// The first tweet on screen.
    var top = 0
    var following = false
    /// Whether older tweets than the last one loaded exist.
    var hasMore = false
    var unreadNotifications = 0
    /// The status line: what the last action did, or why it failed.
    var status: TerminalText = ""

    static let hints: TerminalText =
        "j/k move  l like  r retweet  b bookmark  n post  . new  f following  ? keys  q quit"

    static let help: [TerminalText] = [
        .bold("Keys"), "",
        "j, ↓          the next tweet          k, ↑        the one before",
        "g, Home       the newest              G, End      the oldest loaded",
        "PgDn, PgUp    a screen down or up     .           bring in the new tweets",
        "l             like or unlike          r           retweet or undo it",
        "b             bookmark                d           delete yours (asks first)",
        "n             post (opens $EDITOR)    f           everyone or following",
        "y             the tweet's ID to the status line, to copy",
        "Ctrl-Z        suspend (fg resumes)    q, Ctrl-C   quit",
        "", .dim("Any key closes this."),
    ]

    var selectedTweet: Tweet? { tweets.indices.contains(selected) ? tweets[selected] : nil }

    /// Moves the selection by `step` tweets, kept within those loaded.
    mutating func move(by step: Int) {
        guard !tweets.isEmpty else { return }
        selected = min(max(0, selected + step), tweets.count - 1)
    }

    /// Brings the waiting tweets in above, selecting the newest.
    mutating func showWaiting() {
        guard !waiting.isEmpty else { return }
        tweets = waiting + tweets
        waiting = []
        selected = 0
        top = 0
    }

    /// Takes the newest page as the store has it now: tweets newer than the newest shown wait
    /// above; those shown get their new counts in place; one shown that is gone from the span the
    /// page covers was deleted, and goes. The selection stays on the tweet it was on.
    mutating func merge(newest page: [Tweet]) {
        let shownIDs = Set(tweets.map(\.cursor))
        let waitingIDs = Set(waiting.map(\.cursor))
        let newestShown = tweets.first.map(Self.time) ?? .distantPast
        let arrived = page.filter {
            !shownIDs.contains($0.cursor) && !waitingIDs.contains($0.cursor) && Self.time($0) > newestShown
        }
        let pageIDs = Set(page.map(\.cursor))
        waiting = (arrived + waiting).filter { pageIDs.contains($0.cursor) || !waitingIDs.contains($0.cursor) }
        let byID = Dictionary(page.map { ($0.cursor, $0) }, uniquingKeysWith: { first, _ in first })
        let oldestInPage = page.last.map(Self.time)
        let selectedID = selectedTweet?.cursor
        tweets = tweets.compactMap { tweet in
            if let fresh = byID[tweet.cursor] { return fresh }
            // Within the page's span and not in it: deleted (or now hidden).
            // (One as old as the page's oldest may only have been cut off by its size.)
            if let oldestInPage, Self.time(tweet) > oldestInPage { return nil }
            return tweet
        }
        if let selectedID, let index = tweets.firstIndex(where: { $0.cursor == selectedID }) {
            selected = index
        } else {
            selected = min(selected, max(0, tweets.count - 1))
        }
    }

    static func time(_ tweet: Tweet) -> Date { tweet.retweetedAt ?? tweet.timestamp }

    /// The screen: the title bar, the new-tweets bar, the tweets from ``top`` with the selected
    /// one marked, the status line and the keys. Moves ``top`` so the selected tweet shows whole.
    mutating func layout(width: Int, height: Int, renderer: TweetRenderer, showingHelp: Bool = false) -> CellGrid {
        var grid = CellGrid(width: width, height: height)
        let title: TerminalText =
            " tweetcli  " + .bold("Home") + (following ? " · following" : " · everyone")
            + (unreadNotifications > 0 ? "   🔔 \(unreadNotifications)" : "")
        grid.fill(row: 0, inverse: true)
        grid.write(title, row: 0, inverse: true)
        if !waiting.isEmpty {
            let count = waiting.count
            grid.write(
                .styled("↑ \(count) new tweet\(count == 1 ? "" : "s") · press . to show", .accent), row: 1, column: 1)
        }
        let bodyTop = 2
        let bodyHeight = max(1, height - 4)
        if showingHelp {
            for (offset, line) in Self.help.enumerated() where offset < bodyHeight {
                grid.write(line, row: bodyTop + offset, column: 2)
            }
        } else if tweets.isEmpty {
            grid.write(
                .dim(following ? "No tweets from you or anyone you follow yet." : "No tweets yet."),
                row: bodyTop, column: 2)
        } else {
            // Only the tweets the screen needs are rendered: a thousand loaded cost no more per key.
            var rendered: [Int: [TerminalText]] = [:]
            func lines(_ index: Int) -> [TerminalText] {
                if let lines = rendered[index] { return lines }
                let lines = TerminalText.lines(of: renderer.render(tweets[index]).wrapped(width: max(10, width - 2)))
                rendered[index] = lines
                return lines
            }
            selected = min(max(0, selected), tweets.count - 1)
            let (chosen, first) = (selected, top)
            top = Self.top(showing: chosen, from: first, height: bodyHeight) { lines($0).count }
            var row = bodyTop
            var index = top
            while index < tweets.count, row < bodyTop + bodyHeight {
                let isSelected = index == selected
                for line in lines(index) where row < bodyTop + bodyHeight {
                    grid.write(isSelected ? .styled("▌", .accent) : " ", row: row)
                    grid.write(line, row: row, column: 2)
                    row += 1
                }
                row += 1
                index += 1
            }
            if index >= tweets.count, row < bodyTop + bodyHeight, !hasMore {
                grid.write(.dim("That is all."), row: row, column: 2)
            }
        }
        grid.write(status, row: height - 2, column: 1)
        grid.fill(row: height - 1, inverse: true)
        grid.write(Self.hints, row: height - 1, column: 1, inverse: true)
        return grid
    }

    /// Keeps the selected tweet on screen: scrolls up to it, or down just far enough that it
    /// shows whole (or starts the screen, when it is taller than the screen), counting back from it.
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
