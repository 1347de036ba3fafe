import Foundation
import Testing
import TweetCore
import TwitterText

@testable import TweetCLI

/// The full-screen app's view layer without a terminal: keys from bytes, the timeline laid out
/// into cells, and the bytes that bring a screen from one frame to the next.
@MainActor
struct TUIViewTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    func tweet(_ number: Int, caption: String? = nil, likes: Int = 0) -> Tweet {
        Tweet(
            id: "tweet\(number)", uid: "uid", caption: caption ?? "caption \(number)", likes: likes,
            timestamp: now.addingTimeInterval(Double(number) * 60 - 3600),
            user: User(id: "uid", email: nil, username: "ada", fullname: "Ada"))
    }

    var renderer: TweetRenderer { TweetRenderer(now: now) }

    func render(_ row: Row) -> TerminalText {
        guard case .tweet(let tweet) = row else { return "" }
        return renderer.render(tweet)
    }

    func rows(_ tweets: [Tweet]) -> [Row] { tweets.map(Row.tweet) }

    @Test func keysFromBytesIncludingSequencesSplitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(
            decoder.keys(from: Array("jk q".utf8)) == [
                .character("j"), .character("k"), .character(" "), .character("q"),
            ])
        #expect(decoder.keys(from: [0x1B, 0x5B, 0x41, 0x1B, 0x4F, 0x42]) == [.up, .down])
        #expect(decoder.keys(from: [0x1B, 0x5B, 0x36]) == [], "half a Page Down waits")
        #expect(decoder.keys(from: [0x7E, 0x03, 0x1A, 0x0D]) == [.pageDown, .control("c"), .control("z"), .enter])
        #expect(decoder.keys(from: [0x1B]) == [.escape])
        // Escape and then a key, read together while the app was busy, are both kept.
        #expect(
            decoder.keys(from: Array("\u{1B}/n\u{1B}\u{1B}".utf8)) == [
                .escape, .character("/"), .character("n"), .escape, .escape,
            ])
        // An unknown sequence is dropped whole, never read as the keys it is made of.
        #expect(decoder.keys(from: Array("\u{1B}[99;5uq".utf8)) == [.character("q")])
        // Clicks and the wheel, as SGR mouse reports; a release is not a press.
        #expect(
            decoder.keys(from: Array("\u{1B}[<0;12;5M\u{1B}[<0;12;5m\u{1B}[<65;1;1M".utf8)) == [
                .mouse(button: 0, column: 11, row: 4, press: true), .mouse(button: 0, column: 11, row: 4, press: false),
                .mouse(button: 65, column: 0, row: 0, press: true),
            ])
        // UTF-8 split across reads.
        let cat = Array("猫".utf8)
        #expect(decoder.keys(from: cat.prefix(2)) == [])
        #expect(decoder.keys(from: cat.dropFirst(2)) == [.character("猫")])
    }

    @Test func wideCharactersKeepTheirColumnsAndStoredEscapesAreInert() {
        var grid = CellGrid(width: 12, height: 2)
        grid.write("猫が好き", row: 0)
        #expect(grid.lines[0] == "猫が好き")
        #expect(grid[0, 1].character == nil && grid[0, 8].character == " ")
        // A wide character across the edge is left out, not cut in half.
        grid.write("abcdefghijk猫", row: 1)
        #expect(grid.lines[1] == "abcdefghijk")
        var hostile = CellGrid(width: 40, height: 1)
        hostile.write(TerminalText("\u{1B}]0;owned\u{07}\u{1B}[2J"), row: 0)
        let bytes = hostile.changes(from: nil, color: true)
        #expect(!bytes.contains("\u{1B}]0;") && !bytes.contains("\u{07}"), "\(bytes.debugDescription)")
    }

    @Test func aBlockPictureBecomesCellsOfItsColoursAndPixelsAreLeftOut() {
        var text = TerminalText()
        text.append(graphics: "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀▀\u{1B}[0m\u{1B}[7;38;5;196m▄")
        text.append(" after")
        var grid = CellGrid(width: 20, height: 2)
        grid.write(text, row: 0)
        #expect(grid.lines[0] == "▀▀▄ after")
        #expect(grid[0, 0].foreground == "2;255;0;0" && grid[0, 1].background == "2;0;0;255")
        #expect(grid[0, 2].inverse && grid[0, 2].foreground == "5;196" && grid[0, 2].background == nil)
        #expect(grid[0, 4].foreground == nil)
        let bytes = grid.changes(from: nil, color: true)
        #expect(bytes.contains("38;2;255;0;0") && bytes.contains("48;2;0;0;255") && bytes.contains("7;38;5;196"))
        #expect(!grid.changes(from: nil, color: false).contains("38;2"), "no colour without colour")
        // A picture in pixels (a DCS of sixels) is no cells.
        var pixels = TerminalText()
        pixels.append(graphics: "\u{1B}Pq#0;2;0;0;0~~\u{1B}\\")
        var other = CellGrid(width: 20, height: 1)
        other.write(pixels + "x", row: 0)
        #expect(other.lines[0] == "x")
    }

    @Test func onlyTheRowsThatChangedAreWritten() {
        var first = CellGrid(width: 20, height: 5)
        for row in 0..<5 { first.write("row \(row)", row: row) }
        var second = first
        second.write("ROW 3", row: 3)
        let bytes = second.changes(from: first, color: false)
        #expect(bytes.hasPrefix("\u{1B}[4;1H") && bytes.contains("ROW 3"), "\(bytes.debugDescription)")
        #expect(!bytes.contains("row 0") && !bytes.contains("\u{1B}[2J"))
        #expect(second.changes(from: second, color: false).isEmpty)
        // A new size, or no frame before, is the whole screen.
        #expect(first.changes(from: nil, color: false).contains("\u{1B}[2J"))
        #expect(CellGrid(width: 21, height: 5).changes(from: first, color: false).contains("\u{1B}[2J"))
    }

    @Test func theSelectionMovesAndTheScreenScrollsToKeepItWhole() {
        var view = TimelineView()
        view.rows = rows((1...30).reversed().map { tweet($0) })
        var grid = view.layout(width: 100, height: 20, render: render)
        #expect(grid.lines[0].contains("Home"))
        #expect(grid.lines[2].hasPrefix("▌ Ada @ada"), "\(grid.lines.joined(separator: "\n"))")
        #expect(grid.lines[3] == "▌ caption 30")
        #expect(grid.lines[19].contains("j/k move"))
        // Where each tab's label stands, for a click on it.
        #expect(view.tabColumns.count == 5)
        let title = Array(grid.lines[0])
        #expect(String(title[view.tabColumns[2]]) == "3 Notifications", "\(view.tabColumns)")
        view.move(by: 1)
        grid = view.layout(width: 60, height: 20, render: render)
        #expect(grid.lines[3] == "  caption 30" && grid.lines.contains("▌ caption 29"))
        view.move(by: 10)
        grid = view.layout(width: 60, height: 20, render: render)
        #expect(view.top > 0 && grid.lines.contains("▌ caption 19"), "\(grid.lines.joined(separator: "\n"))")
        #expect(!grid.lines.contains("  caption 30"))
        view.move(by: -100)
        grid = view.layout(width: 60, height: 20, render: render)
        #expect(view.selected == 0 && view.top == 0 && grid.lines[3] == "▌ caption 30")
    }

    @Test func newTweetsWaitAboveCountsChangeInPlaceAndDeletedOnesGo() {
        var view = TimelineView()
        view.rows = rows([tweet(5), tweet(4), tweet(3), tweet(2), tweet(1)])
        view.move(by: 2)
        // Two new ones, tweet 4 liked, tweet 2 deleted.
        view.merge(newest: rows([tweet(7), tweet(6), tweet(5), tweet(4, likes: 9), tweet(3), tweet(1)]))
        #expect(view.waiting.compactMap(\.tweet?.id) == ["tweet7", "tweet6"])
        #expect(view.rows.compactMap(\.tweet?.id) == ["tweet5", "tweet4", "tweet3", "tweet1"])
        #expect(view.rows[1].tweet?.likes == 9)
        #expect(view.selectedTweet?.id == "tweet3", "the selection stays on its tweet")
        let grid = view.layout(width: 60, height: 24, render: render)
        #expect(grid.lines[1] == " ↑ 2 new tweets · press . to show")
        #expect(!grid.lines.contains { $0.contains("caption 7") }, "not moved in until asked")
        // The same change seen again adds nothing.
        view.merge(newest: rows([tweet(7), tweet(6), tweet(5), tweet(4, likes: 9), tweet(3), tweet(1)]))
        #expect(view.waiting.count == 2)
        view.showWaiting()
        #expect(view.rows.compactMap(\.tweet?.id) == ["tweet7", "tweet6", "tweet5", "tweet4", "tweet3", "tweet1"])
        #expect(view.selected == 0 && view.waiting.isEmpty)
    }

    @Test func fortyColumnsWrapsCaptionsWithinTheScreen() {
        var view = TimelineView()
        view.rows = rows([tweet(1, caption: String(repeating: "word ", count: 30))])
        let grid = view.layout(width: 40, height: 20, render: render)
        #expect(grid.lines.allSatisfy { DisplayWidth.of($0) <= 40 })
        #expect(grid.lines.filter { $0.hasPrefix("▌ word") }.count >= 3, "\(grid.lines.joined(separator: "\n"))")
    }
}

/// The composer sheet: its text and cursor, the count as `post --dry-run` gives it, and the
/// entities coloured as they are typed.
@MainActor
struct ComposerSheetTests {
    /// The count as the parser gives it, made as `post --dry-run`'s JSON has it.
    func preview(_ text: String) throws -> CaptionPreview {
        let parsed = TweetText.parse(text)
        let json = """
            {"caption": "", "weightedLength": \(parsed.weightedLength), "limit": 280, "isValid": true,
             "entities": {"mentions": [], "hashtags": [], "urls": []}}
            """
        return try JSONDecoder().decode(CaptionPreview.self, from: Data(json.utf8))
    }

    @Test func typingMovingAndDeletingEditTheTextAtTheCursor() {
        var sheet = ComposerSheet(text: "helo")
        sheet.moveCursor(by: -1)
        sheet.insert("l")
        #expect(sheet.text == "hello" && sheet.cursor == 4)
        sheet.moveCursorToEnd(true)
        sheet.deleteBackward()
        sheet.insert("!")
        #expect(sheet.text == "hell!")
        sheet.moveCursorToEnd(false)
        sheet.deleteBackward()
        #expect(sheet.text == "hell!" && sheet.cursor == 0)
    }

    @Test func theCountAndTheEntitiesShowAsTheyAreTyped() throws {
        let sheet = ComposerSheet(text: "hi @ada #swift 猫")
        var grid = CellGrid(width: 60, height: 12)
        sheet.draw(
            into: &grid, top: 1, bottom: 11, preview: try preview(sheet.text), renderer: TweetRenderer(now: Date()))
        #expect(grid.lines[1] == " New tweet")
        #expect(grid.lines[3].hasPrefix(" hi @ada #swift 猫"), "\(grid.lines.joined(separator: "\n"))")
        #expect(grid[3, 4].style == .accent && grid[3, 1].style == .plain, "the mention is coloured")
        #expect(grid[3, 9].style == .accent, "the hashtag is coloured")
        // The cursor after the last character, in reverse video.
        #expect(grid[3, 18].inverse)
        #expect(grid.lines[10].hasPrefix(" 17/280 · 263 left"), "\(grid.lines[10])")
        let long = ComposerSheet(text: String(repeating: "猫", count: 141))
        var over = CellGrid(width: 60, height: 12)
        long.draw(
            into: &over, top: 1, bottom: 11, preview: try preview(long.text), renderer: TweetRenderer(now: Date()))
        #expect(over.lines[10].hasPrefix(" 282/280 · 2 over: cut 2 to post"), "\(over.lines[10])")
        #expect(over[10, 1].style == .error)
        // The author's picture beside the heading, in its colours.
        var pictured = ComposerSheet(text: "hi")
        pictured.avatar = ["\u{1B}[38;2;1;2;3m▀▀▀▀\u{1B}[0m", "\u{1B}[38;2;4;5;6m▄▄▄▄\u{1B}[0m"]
        var withPicture = CellGrid(width: 60, height: 12)
        pictured.draw(
            into: &withPicture, top: 1, bottom: 11, preview: try preview(pictured.text),
            renderer: TweetRenderer(now: Date()))
        #expect(withPicture.lines[1] == " ▀▀▀▀ New tweet" && withPicture.lines[2] == " ▄▄▄▄")
        #expect(withPicture[1, 1].foreground == "2;1;2;3" && withPicture[2, 4].foreground == "2;4;5;6")
        #expect(withPicture.lines[4].hasPrefix(" hi"), "\(withPicture.lines.joined(separator: "\n"))")
    }
}
