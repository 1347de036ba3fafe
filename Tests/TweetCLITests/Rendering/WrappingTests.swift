import Testing

@testable import TweetCLI

struct WrappingTests {
    func lines(_ text: TerminalText, width: Int?) -> [String] {
        text.wrapped(width: width).plain.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// A picture's line (tweetcli's own mosaic) is one cell as wide as its blocks: wrapping never
    /// cuts into its escape sequences, text around it wraps as ever, and without colour it is left
    /// out whole.
    @Test func aPictureLineIsWrappedAsOneCellAndLeftOutWithoutColour() {
        let picture = "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀▀▀▀▀▀▀▀▀▀\u{1B}[0m"
        var text = TerminalText()
        text.append(untrusted: "a caption long enough to wrap at twenty columns")
        text.append("\n")
        text.append(graphics: picture)
        text.append("\n")
        text.append(untrusted: "[photo 20×10]", .dim)
        let colored = text.wrapped(width: 20).rendered(color: true).split(separator: "\n").map(String.init)
        #expect(colored.contains(picture), "\(colored)")
        #expect(colored.count == 5, "three lines of caption, the picture, the photo line: \(colored)")
        let plain = text.wrapped(width: 20).rendered(color: false)
        #expect(!plain.contains("▀") && !plain.contains("\u{1B}"))
        #expect(plain.contains("[photo 20×10]"))
    }

    @Test(arguments: [40, 100])
    func everyLineFitsAndNoWordIsLost(_ width: Int) {
        let caption = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 6)
        let wrapped = lines(TerminalText(caption, multiline: true), width: width)
        #expect(wrapped.count > 1)
        #expect(wrapped.allSatisfy { DisplayWidth.of($0) <= width })
        #expect(wrapped.joined(separator: " ").split(separator: " ") == caption.split(separator: " "))
    }

    @Test(arguments: ["Hello from the terminal 👋 こんにちは #SwiftUI 日本 語", "📍 Paris  🔗 https://x.example", "a 漢 b"])
    func textThatFitsIsLeftExactlyAsItIs(_ text: String) {
        #expect(lines(TerminalText(text, multiline: true), width: 100) == [text])
    }

    @Test func anIndentWiderThanTheLineIsCutToHalfOfIt() {
        let wrapped = lines(TerminalText(String(repeating: " ", count: 45) + "indented", multiline: true), width: 40)
        #expect(wrapped.allSatisfy { DisplayWidth.of($0) <= 40 })
        #expect(wrapped.joined().contains("indented"))
    }

    @Test func withoutAWidthEveryLineStaysWhole() {
        let caption = String(repeating: "word ", count: 100) + "\nsecond line"
        #expect(
            lines(TerminalText(caption, multiline: true), width: nil) == caption.split(separator: "\n").map(String.init)
        )
    }

    @Test func cjkTextBreaksBetweenCharactersAndFillsTheLine() {
        let caption = "前置き " + String(repeating: "日本語の文章は空白なしで続きます", count: 3)
        let wrapped = lines(TerminalText(caption, multiline: true), width: 20)
        #expect(wrapped.allSatisfy { DisplayWidth.of($0) <= 20 })
        // The first line is not left short for want of a space: the CJK run starts on it.
        #expect(DisplayWidth.of(wrapped[0]) >= 18)
        let unspaced = { (text: String) in text.replacingOccurrences(of: " ", with: "") }
        #expect(unspaced(wrapped.joined()) == unspaced(caption))
    }

    @Test func aLongURLMovesToItsOwnLineAndBreaksOnlyWhenWiderThanALine() {
        let url = "https://example.com/" + String(repeating: "a", count: 30)
        let short = lines(TerminalText("see \(url) now", multiline: true), width: 60)
        #expect(short == ["see \(url) now"])
        let moved = lines(TerminalText("read this first \(url)", multiline: true), width: 52)
        #expect(moved == ["read this first", url])
        let long = "https://example.com/" + String(repeating: "b", count: 70)
        let broken = lines(TerminalText("x \(long)", multiline: true), width: 40)
        #expect(broken.first == "x")
        #expect(broken.dropFirst().joined() == long)
        #expect(broken.allSatisfy { $0.count <= 40 })
    }

    @Test func aContinuationLineKeepsTheIndentOfItsLine() {
        let text: TerminalText = "  --before TWEET_ID   only tweets older than this one, from the More line\n"
        let wrapped = lines(text, width: 40)
        #expect(wrapped.count >= 3)
        #expect(wrapped.dropFirst().filter { !$0.isEmpty }.allSatisfy { $0.hasPrefix("  ") && !$0.hasPrefix("   ") })
    }

    @Test func stylesSurviveWrapping() {
        let text = TerminalText("bold words that wrap", style: .bold) + " plain"
        let rendered = text.wrapped(width: 12).rendered(color: true)
        #expect(rendered == "\u{1B}[1mbold words\u{1B}[0m\n\u{1B}[1mthat wrap\u{1B}[0m\nplain")
    }
}
