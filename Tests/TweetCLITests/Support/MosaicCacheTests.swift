import Foundation
import Testing
import TweetImages

@testable import TweetCLI

/// The per-device cache of drawn mosaics: what is kept comes back for the same thumbnail, size and
/// colours only, and a file someone else wrote there is read as untrusted.
struct MosaicCacheTests {
    static let address = String(repeating: "ab", count: 32)

    func cache() throws -> (MosaicCache, String) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mosaic-\(UUID().uuidString)").path
        return (MosaicCache(environment: ["XDG_CACHE_HOME": home]), home)
    }

    @Test func aKeptDrawingComesBackForItsSizeAndColoursOnly() throws {
        let (cache, home) = try cache()
        defer { try? FileManager.default.removeItem(atPath: home) }  // A leftover temporary folder harms nothing.
        let lines = ["\u{1B}[38;5;196m▀▀▀\u{1B}[0m", "\u{1B}[48;5;21m   \u{1B}[0m"]
        #expect(cache.lines(Self.address, columns: 3, rows: 2, mode: .blocks(.indexed256)) == nil)
        cache.keep(lines, Self.address, columns: 3, rows: 2, mode: .blocks(.indexed256))
        #expect(cache.lines(Self.address, columns: 3, rows: 2, mode: .blocks(.indexed256)) == lines)
        #expect(cache.lines(Self.address, columns: 3, rows: 2, mode: .blocks(.truecolor)) == nil)
        #expect(cache.lines(Self.address, columns: 4, rows: 2, mode: .blocks(.indexed256)) == nil)
        // A picture in pixels is never kept: its escapes are not what the cache may give back.
        cache.keep(["\u{1B}Pq??\u{1B}\\"], Self.address, columns: 3, rows: 2, mode: .sixels)
        #expect(cache.lines(Self.address, columns: 3, rows: 2, mode: .sixels) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.directory).count == 1)
        let permissions = try FileManager.default.attributesOfItem(atPath: cache.directory)[.posixPermissions] as? Int
        #expect(permissions == 0o700)
    }

    /// A file planted in the cache: other escape sequences are left out, and one larger than its
    /// name says is not used at all.
    @Test func aPlantedFileIsReadAsUntrusted() throws {
        let (cache, home) = try cache()
        defer { try? FileManager.default.removeItem(atPath: home) }  // As above.
        cache.keep(["x"], Self.address, columns: 3, rows: 2, mode: .blocks(.indexed256))
        let path = cache.directory + "/\(Self.address)-3x2-256.txt"
        try Data("\u{1B}[2J▀▀▀\n\u{1B}[?25l\u{1B}[31m▄▄▄\u{1B}[0m".utf8).write(to: URL(fileURLWithPath: path))
        let read = try #require(cache.lines(Self.address, columns: 3, rows: 2, mode: .blocks(.indexed256)))
        #expect(read == ["▀▀▀", "\u{1B}[31m▄▄▄\u{1B}[0m"], "\(read)")
        // An OSC's text is left as text, which makes the line wider than its name: not used.
        try Data("\u{1B}]52;c;cGF5bG9hZA==\u{07}▀▀▀".utf8).write(to: URL(fileURLWithPath: path))
        #expect(cache.lines(Self.address, columns: 3, rows: 2, mode: .blocks(.indexed256)) == nil)
        try Data("▀▀▀▀▀\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(
            cache.lines(Self.address, columns: 3, rows: 2, mode: .blocks(.indexed256)) == nil, "wider than its name")
        try Data("▀\n▀\n▀".utf8).write(to: URL(fileURLWithPath: path))
        #expect(
            cache.lines(Self.address, columns: 3, rows: 2, mode: .blocks(.indexed256)) == nil, "taller than its name")
    }
}
