import Testing

@testable import TweetCLI

@MainActor
struct ComposerTests {
    @Test func everythingFromTheInstructionsOnIsLeftOut() {
        let edited =
            "\n  Hello from the editor\n#SwiftUI is fun\n\n" + Composer.instructions + "\n# Replying to tweet x.\n"
        #expect(Composer.caption(fromEdited: edited) == "Hello from the editor\n#SwiftUI is fun")
    }

    @Test func anUntouchedFileIsEmpty() {
        #expect(Composer.caption(fromEdited: "\n\n" + Composer.instructions + "\n").isEmpty)
    }
}
