import Foundation
import Testing

@testable import TweetImages

/// Pictures in pixels, each checked against what its protocol specifies: sixel's DCS with its
/// raster attributes and colour registers, kitty's APC chunks of base64 RGBA, and iTerm2's OSC 1337
/// with a base64 file; and the checker that stands between libchafa and the terminal.
struct PixelProtocolTests {
    /// 60×30: the left two thirds magenta, the rest green.
    static let card = Pixels(
        width: 60, height: 30, channels: 3,
        bytes: (0..<(60 * 30)).flatMap { $0 % 60 < 40 ? [UInt8(255), 0, 255] : [UInt8(0), 192, 0] })

    static func drawn(_ mode: Mosaic.Mode) throws -> String {
        let lines = try Mosaic.lines(pixels: card, columns: 12, rows: 6, mode: mode, cell: (8, 16))
        #expect(lines.count == 1, "one escape sequence")
        return try #require(lines.first)
    }

    /// The integers of `text` between `separator`s.
    static func numbers(_ text: some StringProtocol, _ separator: Character) -> [Int] {
        text.split(separator: separator).compactMap { Int($0) }
    }

    @Test func sixelsAreOneDeviceControlStringWithTheSizeAndColours() throws {
        let text = try Self.drawn(.sixels)
        #expect(PixelEscape.isWellFormed(Array(text.utf8), mode: .sixels))
        #expect(text.hasPrefix("\u{1B}P") && text.hasSuffix("\u{1B}\\"))
        // Raster attributes, `" Pan ; Pad ; Ph ; Pv`: 12 cells of 8 pixels across, and the rows that
        // keep the picture's 2:1 proportions (3 rows of 16 pixels).
        let raster = try #require(text.split(separator: "\"").dropFirst().first?.prefix { $0 != "#" })
        let attributes = Self.numbers(raster, ";")
        #expect(attributes.count == 4 && attributes[2] == 96 && attributes[3] == 48, "\(raster)")
        // Colour registers, `# Pc ; 2 ; R ; G ; B` in percent: magenta and green among them.
        let registers = text.split(separator: "#").map { part in
            Self.numbers(part.prefix { $0.isNumber || $0 == ";" }, ";")
        }
        let colours = registers.filter { $0.count == 5 && $0[1] == 2 }.map { Array($0[2...]) }
        #expect(colours.contains { $0[0] > 90 && $0[1] < 10 && $0[2] > 90 }, "magenta: \(colours)")
        #expect(colours.contains { $0[0] < 10 && $0[1] > 65 && $0[2] < 10 }, "green: \(colours)")
    }

    @Test func kittyChunksCarryTheRGBAPixelsOfTheCells() throws {
        let text = try Self.drawn(.kitty)
        #expect(PixelEscape.isWellFormed(Array(text.utf8), mode: .kitty))
        let commands = text.components(separatedBy: "\u{1B}\\").dropLast()
        #expect(commands.allSatisfy { $0.hasPrefix("\u{1B}_G") })
        var controls: [[String: String]] = []
        // libchafa encodes each chunk as base64 of its own, which kitty decodes a chunk at a time.
        var pixels: [UInt8] = []
        for command in commands {
            let parts = command.dropFirst(3).split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            var control: [String: String] = [:]
            for pair in parts[0].split(separator: ",") {
                let halves = pair.split(separator: "=", maxSplits: 1)
                control[String(halves[0])] = halves.count > 1 ? String(halves[1]) : ""
            }
            controls.append(control)
            if parts.count > 1 {
                #expect(parts[1].utf8.count <= 4096, "a chunk holds at most 4096 bytes of base64")
                let decoded = Data(base64Encoded: String(parts[1]))
                #expect(decoded != nil, "each chunk is base64")
                pixels += decoded ?? Data()
            }
        }
        let first = try #require(controls.first)
        // Transmit and display, 32-bit RGBA, the size in pixels and in cells.
        #expect(first["a"] == "T" && first["f"] == "32" && first["c"] == "12" && first["r"] == "3", "\(first)")
        let width = try #require(first["s"].flatMap { Int($0) })
        let height = try #require(first["v"].flatMap { Int($0) })
        // Every chunk but the last says more follow.
        #expect(controls.dropLast().allSatisfy { $0["m"] == "1" } && controls.last?["m"] == "0")
        #expect(pixels.count == width * height * 4)
        #expect(pixels.prefix(4).elementsEqual([255, 0, 255, 255]), "the top left is magenta")
        #expect(pixels.suffix(4).prefix(3).elementsEqual([0, 192, 0]), "the bottom right is green")
    }

    @Test func iTerm2GetsAnInlineFileSizedInCells() throws {
        let text = try Self.drawn(.iterm2)
        #expect(PixelEscape.isWellFormed(Array(text.utf8), mode: .iterm2))
        let halves = text.split(separator: ":", maxSplits: 1)
        #expect(halves.count == 2 && halves[0].hasPrefix("\u{1B}]1337;File="))
        let arguments = halves[0].dropFirst("\u{1B}]1337;File=".count).split(separator: ";")
        #expect(arguments.contains("inline=1") && arguments.contains("width=12") && arguments.contains("height=3"))
        let file = [UInt8](try #require(Data(base64Encoded: String(halves[1].dropLast()))))
        // libchafa sends a TIFF, little-endian: "II", then 42.
        #expect(file.prefix(4).elementsEqual([0x49, 0x49, 0x2A, 0x00]))
    }

    @Test func anythingBesideThePictureIsRefused() {
        let esc = "\u{1B}"
        let refused: [(Mosaic.Mode, String)] = [
            (.sixels, "\(esc)Pq#0;2;0;0;0\(esc)]52;c;aGk=\u{07}\(esc)\\"),
            (.sixels, "\(esc)Pq??\(esc)\\\(esc)[2J"),
            (.sixels, "\(esc)P1;2q??\u{07}??\(esc)\\"),
            (.kitty, "\(esc)_Ga=T;AAAA\(esc)\\\(esc)]0;title\u{07}"),
            (.kitty, "\(esc)_Ga=T;AA\nAA\(esc)\\"),
            (.iterm2, "\(esc)]1337;File=inline=1:AA\(esc)[31mAA\u{07}"),
            (.iterm2, "\(esc)]52;c;aGk=\u{07}"),
            (.blocks(.truecolor), "\(esc)[31m▀"),
        ]
        for (mode, text) in refused {
            #expect(!PixelEscape.isWellFormed(Array(text.utf8), mode: mode), "\(text.debugDescription)")
        }
        #expect(PixelEscape.isWellFormed(Array("\(esc)P0;1;0q\"1;1;8;6#0;2;0;0;0#0~~\(esc)\\".utf8), mode: .sixels))
        #expect(PixelEscape.isWellFormed(Array("\(esc)_Ga=T,m=1;AAAA\(esc)\\\(esc)_Gm=0;\(esc)\\".utf8), mode: .kitty))
    }

    @Test func aRowOfPicturesKeepsEachInASlotOfItsOwn() {
        let red = Pixels(
            width: 4, height: 2, channels: 3, bytes: Array(repeating: [255, 0, 0], count: 8).flatMap { $0 })
        let blue = Pixels(
            width: 2, height: 2, channels: 3, bytes: Array(repeating: [0, 0, 255], count: 4).flatMap { $0 })
        let row = Pixels.row([red, blue], box: (8, 4), gap: 2)
        #expect(row.width == 18 && row.height == 4 && row.channels == 4)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(row.bytes[((y * 18 + x) * 4)..<((y * 18 + x) * 4 + 4)]) }
        #expect(pixel(0, 0) == [255, 0, 0, 255] && pixel(7, 3) == [255, 0, 0, 255], "red, enlarged to its slot")
        #expect(pixel(9, 0) == [0, 0, 0, 0], "the gap is transparent")
        #expect(
            pixel(10, 0) == [0, 0, 255, 255] && pixel(13, 3) == [0, 0, 255, 255], "blue, square, at its slot's left")
        #expect(pixel(14, 0) == [0, 0, 0, 0], "the rest of its slot is transparent")
    }
}
