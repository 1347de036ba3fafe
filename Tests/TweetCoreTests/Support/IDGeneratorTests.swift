import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct IDGeneratorTests {
    private static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    @Test(arguments: [IDGenerator.random, .seeded(42)])
    func idsAreTwentyAlphanumericCharacters(_ ids: IDGenerator) {
        for _ in 0..<200 {
            let id = ids.next()
            #expect(id.count == 20)
            #expect(id.allSatisfy(Self.alphabet.contains), "\(id)")
        }
    }

    @Test func theSameSeedGivesTheSameIDs() {
        let first = IDGenerator.seeded(42)
        let second = IDGenerator.seeded(42)
        #expect((0..<50).map { _ in first.next() } == (0..<50).map { _ in second.next() })
    }

    @Test func differentSeedsAndSuccessiveIDsDiffer() {
        let ids = IDGenerator.seeded(1)
        let made = (0..<1_000).map { _ in ids.next() }
        #expect(Set(made).count == made.count)
        #expect(IDGenerator.seeded(1).next() != IDGenerator.seeded(2).next())
    }

    @Test func randomIDsDoNotRepeat() {
        let made = (0..<1_000).map { _ in IDGenerator.random.next() }
        #expect(Set(made).count == made.count)
    }

    @Test func splitMixMatchesItsReferenceOutput() {
        // The first outputs of SplitMix64 seeded with 0, from the reference implementation.
        var random = SplitMix64(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
    }
}
