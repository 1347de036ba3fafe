import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal
@testable import TwitterText

/// Punycode decides whether an internationalised host label fits DNS's 63 characters.
struct PunycodeTests {
    @Test(arguments: [
        ("bücher", "bcher-kva"),
        ("münchen", "mnchen-3ya"),
        ("☃", "n3h"),
        ("💩", "ls8h"),
        ("3年B組金八先生", "3B-ww4c5e180e575a65lsy2b"),  // RFC 3492, section 7.1 (L).
        ("ليهمابتكلموشعربي؟", "egbpdaj6bu4bxfgehfvwxn"),  // RFC 3492, section 7.1 (A).
    ])
    func encodesTheReferenceExamples(label: String, encoded: String) {
        #expect(Punycode.encode(Array(label.unicodeScalars)) == encoded)
    }

    @Test func aHostLabelLongerThan63CharactersOnceEncodedIsRejected() {
        let fits = String(repeating: "あいうえおかきくけこ", count: 5) + "あい"
        let tooLong = fits + "う"

        #expect(HostName.asciiLength(of: Array("\(fits).com".unicodeScalars)[...]) != nil)
        #expect(HostName.asciiLength(of: Array("\(tooLong).com".unicodeScalars)[...]) == nil)
        #expect(HostName.asciiLength(of: Array("xn--はじめよう.com".unicodeScalars)[...]) == nil)
    }
}
