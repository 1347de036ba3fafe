import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// Mutated real exports through `import`: whatever a file holds, an import either refuses it
/// with one error and writes nothing, or leaves a store that keeps the app's invariants. Fixed
/// seeds, so a failure is found again by its seed; a few hundred files, in well under a minute.
@MainActor
struct ImportFuzzTests {
    /// A deterministic generator (SplitMix64), so each seed gives the same mutations.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One mutation of the export's lines, as an attacker or a damaged disk would make it.
    static func mutate(_ lines: inout [String], fixture: ImportFixture, random: inout Random) {
        guard !lines.isEmpty else { return }
        let index = Int.random(in: 0..<lines.count, using: &random)
        var bytes = Array(lines[index].utf8)
        switch Int.random(in: 0..<12, using: &random) {
        case 0 where !bytes.isEmpty:  // flip a bit
            let at = Int.random(in: 0..<bytes.count, using: &random)
            bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            lines[index] = String(decoding: bytes, as: UTF8.self)
        case 1:  // insert a byte
            let at = Int.random(in: 0...bytes.count, using: &random)
            bytes.insert(Array("{}[]\",:-0e9\\ax".utf8).randomElement(using: &random)!, at: at)
            lines[index] = String(decoding: bytes, as: UTF8.self)
        case 2 where !bytes.isEmpty:  // delete a byte
            bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random))
            lines[index] = String(decoding: bytes, as: UTF8.self)
        case 3:  // a key given twice
            lines[index] = lines[index].replacingOccurrences(
                of: "{\"data\":{", with: "{\"data\":{\"uid\":\"x\",\"uid\":1,")
        case 4:  // a field's type swapped
            let replacements = [
                ("\"likes\":", "\"likes\":\"1\",\"y\":"), ("\"timestamp\":\"", "\"timestamp\":1,\"z\":\""),
                ("\"username\":\"", "\"username\":[\"a\"],\"w\":\""), (":0,", ":true,"), (":null", ":{}"),
            ]
            let (from, to) = replacements.randomElement(using: &random)!
            lines[index] = lines[index].replacingOccurrences(of: from, with: to)
        case 5:  // a huge or negative number
            let numbers = ["1e999999", "-1", "9223372036854775808", "1e-999999", "1.5", "-0"]
            lines[index] = lines[index].replacingOccurrences(
                of: ":1,", with: ":\(numbers.randomElement(using: &random)!),")
        case 6:  // a second account under a name in use
            guard let user = try? fixture.document("users/\(fixture.ada.id)") else { return }
            var copy = user
            if Bool.random(using: &random) { copy["email"] = .string("x\(random.next() % 100)@example.com") }
            let uid = ["0000000000000000000A", "zzzzzzzzzzzzzzzzzzzz"].randomElement(using: &random)!
            lines.insert(ImportFixture.line("users/\(uid)", copy), at: Int.random(in: 0...lines.count, using: &random))
        case 7:  // a planted session or password
            let uid = [fixture.ada.id, fixture.bob.id, "0000000000000000000A"].randomElement(using: &random)!
            let planted =
                Bool.random(using: &random)
                ? ImportFixture.line("sessions/s\(random.next() % 1000)", ["uid": .string(uid)])
                : ImportFixture.line("credentials/\(uid)", ["passwordHash": .string("$y$planted")])
            lines.insert(planted, at: Int.random(in: 0...lines.count, using: &random))
        case 8:  // a bad path
            let paths = [
                "users/a/b", "secrets/x", "users/\(fixture.ada.id)/user-likes/../x", "tweets/a b", "/x", "users/",
            ]
            lines[index] = lines[index].replacingOccurrences(
                of: "\"path\":\"", with: "\"path\":\"\(paths.randomElement(using: &random)!)")
        case 9:  // a line duplicated or dropped
            if Bool.random(using: &random) {
                lines.insert(lines[index], at: Int.random(in: 0...lines.count, using: &random))
            } else {
                lines.remove(at: index)
            }
        case 10:  // a planted twtxt follow
            let url = ["file:///etc/passwd", "https://example.org/a.txt", "gopher://x", "http://"]
                .randomElement(using: &random)!
            lines.append(
                ImportFixture.line(
                    "users/\(fixture.ada.id)/twtxt-following/\(TwtxtService.key(url))",
                    ["url": .string(url), "nick": .string("n"), "followed": .string("2026-01-01T00:00:00.000Z")]))
        default:  // two lines swapped: order alone changes nothing
            lines.swapAt(index, Int.random(in: 0..<lines.count, using: &random))
        }
    }

    @Test func mutatedExportsAreRefusedOrKeepTheInvariants() async throws {
        let fixture = try await ImportFixture()
        var accepted = 0
        for seed in UInt64(1)...300 {
            var random = Random(state: seed)
            var lines = fixture.lines
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                Self.mutate(&lines, fixture: fixture, random: &random)
            }
            let target = try fixture.freshServices(.journal, name: "fuzz-\(seed)")
            do {
                try await fixture.importLines(lines, into: target)
            } catch let error as ImportError {
                // Refused: one sentence, and nothing written.
                #expect(!error.localizedDescription.contains("\n"), "seed \(seed)")
                #expect(try await ImportFixture.export(target).isEmpty, "seed \(seed)")
                continue
            }
            accepted += 1
            #expect(try await expectImportInvariants(target) == [], "seed \(seed)")
        }
        // Some mutations change nothing that matters (a swap, a session left out): they are taken.
        #expect(accepted > 0)
    }

    @Test func mutatedMergesAreRefusedOrKeepTheInvariants() async throws {
        let fixture = try await ImportFixture()
        for seed in UInt64(1001)...1060 {
            var random = Random(state: seed)
            var lines = fixture.lines
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                Self.mutate(&lines, fixture: fixture, random: &random)
            }
            let target = try fixture.freshServices(.journal, name: "merge-\(seed)")
            try await fixture.importLines(fixture.lines, into: target)
            do {
                try await fixture.importLines(lines, into: target, merging: true)
            } catch is ImportError {
                #expect(try await ImportFixture.export(target) == fixture.lines, "seed \(seed)")
                continue
            }
            #expect(try await expectImportInvariants(target) == [], "seed \(seed)")
        }
    }
}
