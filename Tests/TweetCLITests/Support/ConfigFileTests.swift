import Foundation
import Testing

@testable import TweetCLI

final class ConfigFileTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID())").path
    var path: String { directory + "/tweetcli/config" }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)  // Best effort: a temporary directory.
    }

    func write(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: directory + "/tweetcli", withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func settingsAreReadWithCommentsAndSpaces() throws {
        try write("# mine\n\nstore = ~/tweets\ncolor=never\n  limit =  50  \n")
        let file = try ConfigFile(path: path)
        #expect(file[.store] == "~/tweets")
        #expect(file[.color] == "never")
        #expect(file[.limit] == "50")
    }

    @Test func aMissingFileIsNoSettings() throws {
        #expect(try ConfigFile(path: path).entries.isEmpty)
    }

    @Test(arguments: [
        (
            "colour = never\n",
            "line 1: unknown key 'colour'; the keys are store, color, images, limit, postgres-connect-timeout, "
                + "postgres-statement-timeout, postgres-lock-timeout"
        ),
        ("store = /x\nlimit = 500\n", "line 2: limit must be a whole number from 1 to 200, not '500'"),
        ("color = blue\n", "line 1: color must be auto, always or never, not 'blue'"),
        (
            "images = sixels\n",
            "line 1: images must be auto, always, never, blocks, sixel, kitty or iterm2, not 'sixels'"
        ),
        ("\n\njust words\n", "line 3 is not 'key = value'"),
    ])
    func aBadLineIsNamed(_ text: String, _ message: String) throws {
        try write(text)
        let error = #expect(throws: CommandFailure.self) { try ConfigFile(path: path) }
        #expect(error?.description == "\(path) \(message)")
    }

    @Test func aLenientReadingKeepsBadLinesAndSetKeepsEveryOtherLine() throws {
        try write("# my settings\ncolour = never\nlimit = 5\n\nlimit = 7\n")
        #expect(throws: CommandFailure.self) { try ConfigFile(path: path) }
        var file = try ConfigFile(path: path, lenient: true)
        #expect(file.problems.count == 1)
        file.set(.limit, "9")
        file.unset("colour")
        try file.save()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "# my settings\nlimit = 9\n\n")
        #expect(try ConfigFile(path: path)[.limit] == "9")
    }

    @Test func setReplacesUnsetRemovesAndSaveRoundTrips() throws {
        var file = try ConfigFile(path: path)
        file.set(.limit, "10")
        file.set(.color, "always")
        file.set(.limit, "30")
        try file.save()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "limit = 30\ncolor = always\n")
        var reread = try ConfigFile(path: path)
        #expect(reread == file)
        reread.unset("limit")
        #expect(reread[.limit] == nil && reread[.color] == "always")
    }
}
