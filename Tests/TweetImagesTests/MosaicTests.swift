import Testing
import TweetTestSupport

@testable import TweetImages

/// A thumbnail as a block mosaic through libchafa: its size in cells, its colours, and nothing in
/// it but block characters and SGR colours.
struct MosaicTests {
    /// The visible characters of a line: SGR sequences taken out.
    static func visible(_ line: String) -> String {
        var output = ""
        var inEscape = false
        for scalar in line.unicodeScalars {
            if scalar == "\u{1B}" {
                inEscape = true
            } else if inEscape {
                if scalar == "m" { inEscape = false }
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    @Test func aPhotoBecomesRowsOfColouredBlocksInItsProportions() throws {
        // Left half red, right half blue.
        let pixels = Pixels(
            width: 80, height: 40, channels: 3,
            bytes: (0..<(80 * 40)).flatMap { $0 % 80 < 40 ? [UInt8(255), 0, 0] : [UInt8(0), 0, 255] })
        let lines = try Mosaic.lines(png: try pixels.png(), columns: 40, rows: 12, mode: .blocks(.truecolor))
        #expect(lines.count == 10, "40 columns of a 2:1 photo are 10 rows")
        for line in lines {
            #expect(Self.visible(line).count == 40, "\(line.debugDescription)")
            #expect(line.hasSuffix("\u{1B}[0m"))
        }
        let all = lines.joined()
        #expect(all.contains("255;0;0") && all.contains("0;0;255"), "both colours, in 24 bits")
        let indexed = try Mosaic.lines(png: try pixels.png(), columns: 40, rows: 12, mode: .blocks(.indexed256))
        #expect(indexed.joined().contains("38;5;") || indexed.joined().contains("48;5;"))
        #expect(!indexed.joined().contains("38;2;"))
    }

    @Test func theSizeKeepsTheProportionsWithinTheCells() {
        #expect(Mosaic.size(width: 320, height: 200, columns: 40, rows: 12) == (38, 12))
        #expect(Mosaic.size(width: 320, height: 100, columns: 40, rows: 12) == (40, 6))
        #expect(Mosaic.size(width: 10, height: 1000, columns: 40, rows: 12) == (1, 12))
        #expect(Mosaic.size(width: 0, height: 10, columns: 40, rows: 12) == (0, 0))
    }

    @Test func onlyBlocksAndColoursGetThrough() {
        #expect(
            Mosaic.sanitized("\u{1B}[38;2;1;2;3m▀\u{1B}]52;c;bad\u{07}x\u{1B}[?25l▄\u{9B}")
                == "\u{1B}[38;2;1;2;3m▀]52;c;badx▄")
    }
}

/// Avatars: a photo's centre square, and a uid's identicon.
struct AvatarTests {
    @Test func anAvatarIsTheCentreSquareOfThePhoto() throws {
        // Red at the sides, blue in the middle, which holds the centre square (200 to 400) with room.
        let pixels = (0..<(600 * 200)).flatMap { (position: Int) -> [UInt8] in
            (150..<450).contains(position % 600) ? [0, 0, 255] : [255, 0, 0]
        }
        let photo = try ImageIntake.check(try TestImages.png(pixels: pixels, 600, 200), file: "wide.png")
        let square = try #require(try Avatar.square(of: photo))
        let kept = try ImageIntake.check(square.bytes, file: "avatar")
        #expect(kept.width == kept.height && kept.width <= Avatar.side)
        #expect(kept.sha256 == square.sha256 && kept.bytes == square.bytes)
        let decoded = try Pixels.decodePNG(square.bytes)
        #expect(decoded.bytes.prefix(3).elementsEqual([0, 0, 255]), "the corner of the square is the blue middle")
    }

    @Test func anIdenticonIsTheSameForAUidAndMirrored() {
        let ada = Avatar.identicon(seed: "kukvTVttPtVbiX5MMWXN".utf8, cell: 1)
        #expect(ada == Avatar.identicon(seed: "kukvTVttPtVbiX5MMWXN".utf8, cell: 1))
        #expect(ada != Avatar.identicon(seed: "ju8bbv2gRxZlcgbKoyq2".utf8, cell: 1))
        #expect(ada.width == 5 && ada.height == 5 && ada.channels == 3)
        for row in 0..<5 {
            for column in 0..<2 {
                let left = Array(ada.bytes[((row * 5 + column) * 3)..<((row * 5 + column) * 3 + 3)])
                let right = Array(ada.bytes[((row * 5 + 4 - column) * 3)..<((row * 5 + 4 - column) * 3 + 3)])
                #expect(left == right, "row \(row) is mirrored")
            }
        }
        #expect(Set(stride(from: 0, to: 75, by: 3).map { ada.bytes[$0] }).count == 2, "one colour on one ground")
    }
}
