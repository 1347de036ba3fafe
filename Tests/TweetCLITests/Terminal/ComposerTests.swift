import Testing

@testable import TweetCLI

@MainActor
struct ComposerTests {
    @Test func commentLinesAndSurroundingBlankLinesAreLeftOut() {
        let edited = "\n  Hello from the editor\n# not this\nsecond line\n\n" + Composer.instructions + "\n"
        #expect(Composer.caption(fromEdited: edited) == "Hello from the editor\nsecond line")
    }

    @Test func anUntouchedFileIsEmpty() {
        #expect(Composer.caption(fromEdited: "\n\n" + Composer.instructions + "\n").isEmpty)
    }
}
