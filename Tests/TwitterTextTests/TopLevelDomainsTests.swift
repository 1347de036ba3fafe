import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal
@testable import TwitterText

/// The top-level domain lists compiled into the library match tld_lib.json.
struct TopLevelDomainsTests {
    private struct Lists: Decodable {
        let country: [String]
        let generic: [String]
    }

    @Test func compiledListsMatchTheFixture() throws {
        let fixture = try JSONDecoder().decode(Lists.self, from: Conformance.data("tld_lib"))

        #expect(
            TopLevelDomains.country == fixture.country,
            "regenerate with Scripts/generate-top-level-domains.swift")
        #expect(
            TopLevelDomains.generic == fixture.generic,
            "regenerate with Scripts/generate-top-level-domains.swift")
    }

    @Test func aKnownDomainMatchesOnlyAtAWordBoundary() {
        func match(_ text: String) -> Int? {
            TopLevelDomains.match(in: TextBuffer(text), at: 0, allowingPunycode: true)
        }

        #expect(match("com/path") == 3)
        #expect(match("COM") == 3)
        #expect(match("comだよね") == 3)
        #expect(match("みんなです") == 3)
        #expect(match("xn--p1ai.") == 8)
        #expect(match("comm") == nil)
        #expect(match("com-that") == nil)
        #expect(match("gov@mail") == nil)
    }
}
