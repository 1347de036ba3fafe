import Testing
import TweetImages

@testable import TweetCLI

/// Finding a terminal's way of drawing pictures: by the variables it sets, and by its answer to
/// Primary Device Attributes.
struct GraphicsTests {
    @Test func theEnvironmentNamesKittyITerm2AndSixelTerminals() {
        #expect(Graphics.fromEnvironment(["TERM": "xterm-kitty"]) == .kitty)
        #expect(Graphics.fromEnvironment(["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"]) == .kitty)
        #expect(Graphics.fromEnvironment(["TERM_PROGRAM": "iTerm.app", "TERM": "xterm-256color"]) == .iterm2)
        #expect(Graphics.fromEnvironment(["TERM_PROGRAM": "WezTerm"]) == .iterm2)
        #expect(Graphics.fromEnvironment(["TERM": "foot"]) == .sixels)
        #expect(Graphics.fromEnvironment(["TERM": "mlterm"]) == .sixels)
        // A plain xterm says nothing by its variables: it is asked.
        #expect(Graphics.fromEnvironment(["TERM": "xterm-256color"]) == nil)
        // Inside tmux, kitty's variables are the outer terminal's, which tmux stands between.
        #expect(Graphics.fromEnvironment(["TERM": "tmux-256color", "KITTY_WINDOW_ID": "1"]) == nil)
        #expect(Graphics.fromEnvironment(["TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"]) == nil)
        #expect(Graphics.fromEnvironment(["TERM": "screen", "TERM_PROGRAM": "iTerm.app"]) == nil)
    }

    @Test func theAnswerToDeviceAttributesSaysWhetherSixelsAreDrawn() {
        // xterm as a VT340: 63 (level 3), 1 (132 columns), 2 (printer), 4 (sixel), …
        let vt340 = Array("\u{1B}[?63;1;2;4;6;9;15;16;22;28c".utf8)
        #expect(Graphics.parseDeviceAttributes(vt340) == [63, 1, 2, 4, 6, 9, 15, 16, 22, 28])
        #expect(Graphics.parseDeviceAttributes(Array("\u{1B}[?1;2c".utf8)) == [1, 2])
        // A key typed meanwhile stands before the answer; a half answer is not yet one.
        #expect(Graphics.parseDeviceAttributes(Array("j\u{1B}[?62;4c".utf8)) == [62, 4])
        #expect(Graphics.parseDeviceAttributes(Array("\u{1B}[?62;4".utf8)) == nil)
        #expect(Graphics.parseDeviceAttributes(Array("\u{1B}[?6x;4c".utf8)) == nil)
    }
}
