import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct PasswordHasherTests {
    let hasher = PasswordHasher()

    @Test func aHashIsYescrypt() throws {
        let hash = try hasher.hash("correct horse battery")
        #expect(hash.hasPrefix("$y$"))
        #expect(!hash.contains("correct horse battery"))
    }

    @Test func verifyAcceptsOnlyThePasswordThatWasHashed() throws {
        let hash = try hasher.hash("correct horse battery")
        #expect(hasher.verify("correct horse battery", against: hash))
        #expect(!hasher.verify("correct horse batterY", against: hash))
        #expect(!hasher.verify("correct horse battery ", against: hash))
        #expect(!hasher.verify("", against: hash))
    }

    @Test func twoHashesOfOnePasswordDifferButBothVerify() throws {
        let first = try hasher.hash("same password")
        let second = try hasher.hash("same password")
        #expect(first != second)
        #expect(hasher.verify("same password", against: first))
        #expect(hasher.verify("same password", against: second))
    }

    @Test(arguments: ["", "garbage", "$y$", "*0", "$1$abc$"])
    func aMalformedHashMatchesNoPassword(_ hash: String) {
        #expect(!hasher.verify("garbage", against: hash))
        #expect(!hasher.verify("", against: hash))
    }

    @Test func aFixedSaltGivesTheSameHash() throws {
        let salted = PasswordHasher(saltBytes: { Array(0..<16) })
        let first = try salted.hash("demo password")
        #expect(try salted.hash("demo password") == first)
        #expect(try salted.hash("other password") != first)
        #expect(hasher.verify("demo password", against: first))
    }

    /// A server checks a kept hash by asking for its setting: the password hashed with it is the
    /// kept hash, and only yescrypt's settings are used, so a server cannot ask for a weaker hash.
    @Test func aKeptHashsSettingGivesThatHashAgainAndOnlyYescryptIsUsed() throws {
        let kept = try hasher.hash("correct horse battery")
        #expect(kept.hasPrefix(PasswordHasher.keptCost), "the cost a server's setting is held to")
        let end = try #require(kept.lastIndex(of: "$"))
        let setting = String(kept[..<end])
        #expect(try hasher.hash("correct horse battery", setting: setting) == kept)
        #expect(try hasher.hash("correct horse batterY", setting: setting) != kept)
        // A stand-in setting hashes too, as for a name nobody has: 22 characters of salt, the last
        // one of the four that 16 bytes may end with.
        #expect(try hasher.hash("anything", setting: "$y$j9T$q1Zx./ABCdefGHIjklMNO/").hasPrefix("$y$j9T$"))
        for weaker in [
            "$1$abcdefgh", "$6$abcdefgh", "$2b$04$abcdefghijklmnopqrstuu", "ab", "", "$y$j9T$a\u{0}b",
            // yescrypt at a lower or a far higher cost, or a salt of another length or alphabet.
            "$y$j75$q1Zx./ABCdefGHIjklMNO/", "$y$jFT$q1Zx./ABCdefGHIjklMNO/", "$y$j9T$q1Zx./ABCdefGHIjklMN/",
            "$y$j9T$q1Zx./ABCdefGHIjklMNO$", "$y$j9T$q1Zx./ABCdefGHIjklMNOp",
        ] {
            #expect(throws: AuthError.passwordHashingFailed) {
                try hasher.hash("correct horse battery", setting: weaker)
            }
        }
    }
}
