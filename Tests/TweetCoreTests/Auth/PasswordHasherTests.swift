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
}
