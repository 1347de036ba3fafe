import Testing
import TweetCore

/// The full-name rule: nothing that could make a row pass for someone else's.
struct UserFullnameTests {
    @Test(arguments: [
        ("Ada @ada · now", "cannot hold @"),
        ("Ada · now", "cannot hold ·"),
        ("Ada\u{202E}won", "the direction mark U+202E"),
        ("Ada\u{2067}x", "the direction mark U+2067"),
        ("Ada\u{200F}", "the direction mark U+200F"),
        ("Ada\u{200E}", "the direction mark U+200E"),
        ("\u{061C}Ada", "the direction mark U+061C"),
        ("A\u{200B}da", "the zero-width character U+200B"),
        ("A\u{200C}da", "the zero-width character U+200C"),
        ("A\u{200D}da", "the zero-width character U+200D"),
        ("A\u{2060}da", "the zero-width character U+2060"),
        ("\u{FEFF}Ada", "the zero-width character U+FEFF"),
        ("\u{3164}", "needs a visible character"),
        ("\u{115F}\u{1160}", "needs a visible character"),
        ("\u{FFA0}", "needs a visible character"),
        ("\u{2800}\u{2800}", "needs a visible character"),
        ("\u{3000}\u{00A0}", "needs a visible character"),
        ("\u{3164} \u{3164}", "needs a visible character"),
        ("\u{0301}\u{0301}", "needs a visible character"),
        ("\u{FE0F}", "needs a visible character"),
    ])
    func aNameThatCouldPassForAnotherRowIsRefused(_ name: String, _ reason: String) {
        let problem = User.problem(withFullname: name)
        #expect(problem?.contains(reason) == true, "\(name.debugDescription): \(problem ?? "accepted")")
    }

    @Test(arguments: ["Ada Lovelace", "明日 太郎", "Zoë O'Brien-Smith", "Ada ❤️", "محمد", "\u{3164}Ada", "A.I. Bot #1"])
    func ordinaryNamesAreAccepted(_ name: String) {
        #expect(User.problem(withFullname: name) == nil, "\(name)")
    }
}
