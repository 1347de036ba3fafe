import Foundation
import Testing
import TweetTestSupport

/// `post` counts captions by Twitter's rules and stores their entities.
struct TweetTextEndToEndTests {
    @Test func koreanCountsTwoACharacterSoHalfAsManyFit() throws {
        let cli = try CLIRunner()
        try cli.register("hana", fullname: "Hana")
        let fits = try cli.run(["post", String(repeating: "가", count: 140), "--json"])
        #expect(fits.status == 0, "\(fits.stderr)")
        let before = cli.journalBytes()
        let tooLong = try cli.run(["post", String(repeating: "가", count: 141)])
        #expect(tooLong.status == 1)
        #expect(tooLong.stderr == "error: caption is 282/280 characters; shorten it by 2\n")
        #expect(cli.journalBytes() == before)
    }

    @Test func aLongURLCountsTwentyThree() throws {
        let cli = try CLIRunner()
        try cli.register("link", fullname: "Link")
        let url = "https://example.com/" + String(repeating: "x", count: 300)
        let result = try cli.run(["post", "read \(url)", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let entities = try #require(try json(result.stdout)["entities"] as? [String: [String]])
        #expect(entities["urls"] == [url])
    }

    @Test func postedTweetsCarryTheirEntities() throws {
        let cli = try CLIRunner()
        try cli.register("ent", fullname: "Entities")
        let result = try cli.run(["post", "Hi @alice and @Alice, #SwiftUI at https://swift.org", "--json"])
        let entities = try #require(try json(result.stdout)["entities"] as? [String: [String]])
        #expect(entities == ["mentions": ["alice"], "hashtags": ["SwiftUI"], "urls": ["https://swift.org"]])
        let feed = try jsonArray(try cli.run(["feed", "--json"]).stdout)
        #expect((feed.first?["entities"] as? [String: [String]])?["hashtags"] == ["SwiftUI"])
        let coloured = try cli.run(["feed", "--color", "always"]).stdout
        #expect(coloured.contains("\u{1B}[36m#SwiftUI\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[36m@alice\u{1B}[0m"))
    }

    @Test func dryRunCountsWithoutPostingOrSigningIn() throws {
        let cli = try CLIRunner()
        let ok = try cli.run(["post", "--dry-run", "안녕 👋 #tag"])
        #expect(ok.status == 0)
        // 안 and 녕 count 2 each, the wave (an emoji) 2, "#tag" and the two spaces 1 a character.
        #expect(ok.stdout.hasPrefix("12/280 characters, 268 left\n"))
        #expect(ok.stdout.contains("hashtags: #tag"))
        let over = try cli.run(["post", "--dry-run", String(repeating: "é", count: 281)])
        #expect(over.status == 1)
        #expect(over.stdout == "281/280 characters, 1 over\n")
        #expect(over.stderr.contains("caption is 281/280 characters"))
        let json = try json(try cli.run(["post", "--dry-run", "--json", "hello"]).stdout)
        #expect(json["weightedLength"] as? Int == 5)
        #expect(json["isValid"] as? Bool == true)
        #expect(cli.journalBytes().isEmpty || !String(decoding: cli.journalBytes(), as: UTF8.self).contains("hello"))
    }
}
