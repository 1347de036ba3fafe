import Foundation
import Testing

@testable import TweetCLI

/// Whether `output` could make a terminal do anything but print: any ESC but tweetcli's own SGR
/// styles, any other C0 or C1 control but the line feed, or a bidirectional control.
func isInert(_ output: String) -> Bool {
    let withoutStyles = output.replacingOccurrences(
        of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    return !withoutStyles.unicodeScalars.contains { scalar in
        switch scalar.value {
        case 0x0A: return false
        case 0x00...0x1F, 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

/// Text someone stored to take over the reader's terminal.
let hostile = [
    "evil \u{1B}]0;pwned\u{07} \u{1B}[2J", "\u{1B}[31mred\u{1B}[0m", "nul\u{0}byte", "del\u{7F}",
    "c1 csi \u{9B}2J", "bell\u{07}", "back\u{08}space", "carriage\rreturn", "rtl \u{202E}gnp.exe",
    "isolate \u{2066}x\u{2069}", "line\u{2028}separator", "two\nlines", "tab\there",
]

struct TerminalTextTests {
    @Test(arguments: hostile)
    func neutralisedTextIsInertInEveryMode(_ text: String) {
        for multiline in [false, true] {
            let safe = TerminalText.neutralize(text, multiline: multiline)
            #expect(isInert(safe), "\(safe.debugDescription)")
            if !multiline { #expect(!safe.contains("\n")) }
            // Neutralising twice changes nothing more: an escape is printable text.
            #expect(TerminalText.neutralize(safe, multiline: multiline) == safe)
        }
    }

    /// The fast path passes over printable ASCII eight bytes at a time: a control anywhere in a
    /// long line, at every offset from a chunk's start, is still found. (Every C0 control, DEL,
    /// a C1 control, a bidirectional override, an isolate and a line separator.)
    @Test func aControlIsFoundAtEveryOffsetOfALongLine() {
        let controls =
            (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + [
                "\u{7F}", "\u{9B}", "\u{202E}", "\u{2066}", "\u{2028}",
            ]
        for control in controls {
            for offset in 0..<20 {
                for tail in ["", "after", "é"] {
                    let line = String(repeating: "a", count: offset) + control + tail
                    let safe = TerminalText.neutralize(line, multiline: false)
                    #expect(safe != line && isInert(safe), "\(line.debugDescription) at \(offset)")
                }
            }
        }
        // Printable text of any length, ASCII or not, is left as it is.
        for length in 0..<20 {
            let line = String(repeating: "~ ", count: length) + "東京 café"
            #expect(TerminalText.neutralize(line, multiline: false) == line)
        }
    }

    @Test func controlsAreShownVisiblyNotDropped() {
        #expect(TerminalText.neutralize("a\u{1B}[2Jb", multiline: false) == "a\\x1b[2Jb")
        #expect(TerminalText.neutralize("\u{9B}", multiline: false) == "\\u009b")
        #expect(TerminalText.neutralize("x\u{202E}y", multiline: false) == "x\\u202ey")
        #expect(TerminalText.neutralize("one\ntwo", multiline: false) == "one\\x0atwo")
        #expect(TerminalText.neutralize("one\r\ntwo\u{2028}three", multiline: true) == "one\ntwo\nthree")
        #expect(TerminalText.neutralize("a\tb", multiline: true) == "a b")
    }

    @Test func ordinaryTextIsLeftAsItIs() {
        for text in ["Hello 👋 こんにちは #SwiftUI", "Café Ünïcödé", "مرحبا بالعالم", "emoji 👩‍👩‍👧‍👦 zwj", ""] {
            #expect(TerminalText.neutralize(text, multiline: false) == text)
        }
    }

    @Test func literalsAreTrustedAndInterpolatedStringsAreNot() {
        let name = "\u{1B}[2J"
        let text: TerminalText = "Hello, \(name)!\n"
        #expect(text.plain == "Hello, \\x1b[2J!\n")
        #expect(text.rendered(color: true) == text.plain)  // No style, so no escape at all.
    }

    @Test func onlyStylesEmitEscapesAndNeverAcrossALineBreak() {
        let text = TerminalText("bold\n\u{1B}x", style: .bold, multiline: true) + " plain"
        #expect(text.rendered(color: false) == "bold\n\\x1bx plain")
        #expect(text.rendered(color: true) == "\u{1B}[1mbold\u{1B}[0m\n\u{1B}[1m\\x1bx\u{1B}[0m plain")
        #expect(isInert(text.rendered(color: true)))
    }
}
