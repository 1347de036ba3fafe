import Foundation
import Testing
import TweetTestSupport

/// `post --image FILE --alt TEXT` as a person runs it, on each engine: the photo's line under the
/// caption, its fields in `--json`, its metadata gone from what is kept, and one sentence for a
/// file that is no photo.
@Suite(.serialized)
struct PhotoEndToEndTests {
    @Test(arguments: [false, true])
    func aPostedPhotoIsShownAsALineAndKeptWithoutItsMetadata(onPostgres: Bool) throws {
        guard let cli = try SmallFindingsTests.makeCLI(onPostgres: onPostgres) else { return }
        try cli.register("ada", fullname: "Ada")
        let folder = cli.home.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cat = folder.appendingPathComponent("cat.png")
        try Data(try TestImages.withText(try TestImages.png(120, 80), "SECRET-PLACE")).write(to: cat)
        let dot = folder.appendingPathComponent("dot.jpg")
        try Data(TestImages.withGPS(try TestImages.jpeg(16, 16))).write(to: dot)

        let posted = try cli.run([
            "post", "my cat", "--image", cat.path, "--alt", "a cat asleep", "--image", dot.path, "--json",
        ])
        #expect(posted.status == 0, "\(posted.stderr)")
        let tweet = try JSON.object(posted.stdout)
        let images = try #require(tweet["images"] as? [[String: Any]])
        #expect(images.count == 2)
        #expect(images[0]["type"] as? String == "image/png" && images[0]["width"] as? Int == 120)
        #expect(images[0]["alt"] as? String == "a cat asleep" && images[1]["alt"] == nil)
        #expect(images[1]["type"] as? String == "image/jpeg" && images[1]["height"] as? Int == 16)
        #expect((images[0]["sha256"] as? String)?.count == 64)

        // The Media tab holds the tweets with photos only, newest first.
        _ = try cli.post("words only")
        let media = try cli.run(["profile", "--tab", "media"])
        #expect(media.status == 0, "\(media.stderr)")
        #expect(media.stdout.contains("[Media]") && media.stdout.contains("  [photo 120×80 · a cat asleep]\n"))
        #expect(!media.stdout.contains("words only"), "\(media.stdout)")
        let mediaJSON = try JSON.object(try cli.run(["profile", "--tab", "media", "--json"]).stdout)
        #expect((mediaJSON["tweets"] as? [[String: Any]])?.map { $0["caption"] as? String } == ["my cat"])
        let feed = try cli.run(["feed", "--limit", "2"])
        #expect(feed.stdout.contains("my cat\n[photo 120×80 · a cat asleep]\n[photo 16×16]\n"), "\(feed.stdout)")
        let backup = try cli.run(["export"])
        #expect(backup.status == 0)
        #expect(!backup.stdout.contains("SECRET"), "no metadata in what is kept")
        // Each photo and thumbnail once (a PNG as small as its thumbnail is its own thumbnail).
        let named = Set(images.flatMap { [$0["sha256"] as? String, $0["thumbnail"] as? String].compactMap { $0 } })
        #expect(named.count == 3)
        let carried = backup.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"blob\":") }.map {
            $0.dropFirst(9).prefix(64)
        }
        #expect(Set(carried.map(String.init)) == named && carried.count == named.count, "each photo carried once")
        if !onPostgres {
            let blobs = cli.store.appendingPathComponent("blobs")
            let kept = try FileManager.default.subpathsOfDirectory(atPath: blobs.path).filter { $0.count > 3 }
            #expect(kept.count == 3, "two photos and the JPEG's thumbnail")
            for file in kept {
                let bytes = try Data(contentsOf: blobs.appendingPathComponent(file))
                #expect(bytes.range(of: Data("SECRET-PLACE".utf8)) == nil && bytes.range(of: Data("Exif".utf8)) == nil)
            }
        }
    }

    /// A text file, a FIFO, a missing file, an --alt before any --image and five photos: each one
    /// sentence, a non-zero exit, and no tweet.
    @Test func aFileThatIsNoPhotoIsOneSentenceAndNothingIsPosted() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let folder = cli.home.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = folder.appendingPathComponent("notes.jpg")
        try Data("not a picture".utf8).write(to: text)
        let fifo = folder.appendingPathComponent("pipe.png")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let big = folder.appendingPathComponent("big.png")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 6_000_000)
        try handle.close()
        let png = folder.appendingPathComponent("ok.png")
        try Data(try TestImages.png(8, 8)).write(to: png)
        let cases: [([String], String, Int32)] = [
            (["--image", text.path], "\(text.path) is not a PNG, JPEG, GIF or WebP image", 1),
            (["--image", fifo.path], "cannot read the photo \(fifo.path): it is not a regular file", 1),
            (["--image", folder.path + "/none.png"], "cannot read the photo \(folder.path)/none.png: ", 1),
            (["--image", big.path], "\(big.path) is 5.7 MB; an image may have at most 5.0 MB", 1),
            (["--alt", "x", "--image", png.path], "--alt describes the --image before it, and comes before any", 64),
            (Array(repeating: ["--image", png.path], count: 5).flatMap { $0 }, "at most 4 photos, not 5", 64),
        ]
        for (arguments, message, status) in cases {
            let result = try cli.run(["post", "caption"] + arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error: "), "\(result.stderr)")
        }
        let feed = try cli.run(["feed", "--json"])
        #expect(try jsonArray(feed.stdout).isEmpty, "nothing was posted")
    }
}

/// Photos in a real terminal (tmux): a mosaic of coloured blocks above the photo's line in a
/// listing, sized to the window; the line alone with `--images never` and in a pipe.
@Suite(.enabled(if: TmuxSession.isAvailable), .serialized)
struct PhotoTerminalTests {
    /// The rows of `screen` between the caption and the photo's line.
    static func between(_ screen: [String], _ first: String, _ last: String) -> ArraySlice<String> {
        guard let start = screen.firstIndex(where: { $0.contains(first) }),
            let end = screen.firstIndex(where: { $0.contains(last) }), start < end
        else { return [] }
        return screen[(start + 1)..<end]
    }

    @Test(arguments: [100, 40])
    func aListingShowsAPhotoAsAMosaicOfColouredBlocks(width: Int) throws {
        // NO_COLOR empty: the test runner's own (1) would turn colour, and so pictures, off.
        let session = try TmuxSession(
            width: width, height: 40, environment: ["COLORTERM": "truecolor", "NO_COLOR": ""])
        try session.tweetcli(
            ["register", "--email", "ada@example.com", "--username", "ada", "--fullname", "Ada", "--password-stdin"],
            stdin: "correct horse battery\n")
        let photo = session.home.appendingPathComponent("flag.png")
        // Top half red, bottom half blue: 400×200, so a mosaic twice as wide as it is tall, in cells.
        let red: [UInt8] = [255, 0, 0]
        let blue: [UInt8] = [0, 0, 255]
        let pixels: [UInt8] = (0..<(400 * 200)).flatMap { (position: Int) -> [UInt8] in
            position / 400 < 100 ? red : blue
        }
        try Data(try TestImages.png(pixels: pixels, 400, 200)).write(to: photo)
        let posted = try session.tweetcli(["post", "a flag", "--image", photo.path, "--alt", "red over blue"])
        #expect(posted.contains("[photo 400×200 · red over blue]"), "\(posted)")

        try session.run("tweetcli feed --no-pager")
        let screen = try session.screen()
        let mosaic = Self.between(screen, "a flag", "[photo 400×200 · red over blue]")
        let columns = min(48, width - 4)
        #expect(mosaic.count == min(12, columns / 4), "\(screen.joined(separator: "\n"))")
        let colored = try session.tmux(["capture-pane", "-p", "-e"])
        let rows = colored.split(separator: "\n").map(String.init)
        let drawn = Self.between(rows, "a flag", "[photo 400")
        // tmux keeps 24-bit colours only for a terminal that says it has them; else the nearest of 256.
        let (redCodes, blueCodes) = (["2;255;0;0", "5;196"], ["2;0;0;255", "5;21"])
        #expect(redCodes.contains { drawn.first?.contains($0) == true }, "the top is red: \(drawn.first ?? "")")
        #expect(blueCodes.contains { drawn.last?.contains($0) == true }, "the bottom is blue: \(drawn.last ?? "")")
        // The author's small picture (4 × 2 cells) beside the name and the line below it.
        let author = try #require(screen.first { $0.contains("Ada @ada · ") }, "\(screen.joined(separator: "\n"))")
        #expect(!author.hasPrefix("Ada") && String(author.dropFirst(5)).hasPrefix("Ada @ada · "), "\(author)")
        // The picture's second line (which may start with a blank cell) and a space before the caption.
        #expect(screen.contains { $0.count == 11 && $0.hasSuffix(" a flag") })
        let feedAvatar = try #require(rows.first { $0.contains("Ada") }?.components(separatedBy: "Ada").first)

        try session.run("tweetcli feed --no-pager --images never")
        let plain = try session.screen()
        #expect(Self.between(plain, "a flag", "[photo 400×200").isEmpty)
        #expect(plain.first?.hasPrefix("Ada @ada · ") == true && plain.contains("a flag"))
        // The config file's key says the same, and the option beats it.
        try session.run("tweetcli config set images never")
        try session.run("tweetcli feed --no-pager")
        #expect(Self.between(try session.screen(), "a flag", "[photo 400×200").isEmpty)
        try session.run("tweetcli feed --no-pager --images auto")
        #expect(Self.between(try session.screen(), "a flag", "[photo 400×200").count == mosaic.count)
        try session.run("tweetcli config unset images")
        try session.run("tweetcli feed | cat")
        let piped = try session.screen()
        #expect(Self.between(piped, "a flag", "[photo 400×200").isEmpty, "\(piped.joined(separator: "\n"))")
        let pipedColors = try session.tmux(["capture-pane", "-p", "-e"])
        #expect(!redCodes.contains { pipedColors.contains($0) })
        // show: the one tweet, its photo as large as the window allows.
        let id = try #require(posted.split(separator: " ").last { $0.count >= 8 }).trimmingCharacters(
            in: .whitespacesAndNewlines)
        try session.run("tweetcli show \(id) --no-pager")
        let shown = Self.between(try session.screen(), "a flag", "[photo 400×200")
        #expect(shown.count > mosaic.count, "larger than a listing's: \(shown.count) rows, \(mosaic.count)")
        // Two photos side by side: each mosaic's red top on one row, then the two photos' lines.
        try session.tweetcli(["post", "two flags", "--image", photo.path, "--image", photo.path])
        try session.run("tweetcli feed --no-pager --limit 1")
        let pair = try session.tmux(["capture-pane", "-p", "-e"]).split(separator: "\n").map(String.init)
        let pairRows = Self.between(pair, "two flags", "[photo 400×200]")
        let top = pairRows.first ?? ""
        func reds(_ row: String) -> Int { redCodes.map { row.components(separatedBy: $0).count - 1 }.max() ?? 0 }
        #expect(reds(top) == 2 * reds(drawn.first ?? ""), "two red tops on one row: \(top.debugDescription)")
        #expect(pair.filter { $0.contains("[photo 400×200]") }.count == 2)
        // The profile's header: an identicon above the name, as ada has no picture of her own.
        try session.run("tweetcli profile --tab replies --no-pager")
        let header = try session.screen()
        let name = try #require(header.firstIndex { $0 == "Ada" }, "\(header.joined(separator: "\n"))")
        #expect(name >= 4, "rows of the picture above the name: \(header.joined(separator: "\n"))")
        try session.run("tweetcli profile --tab replies --no-pager --images never")
        #expect(try session.screen().first == "Ada")
        // Explore's rows: a picture of 4 × 2 cells before each name, its second line below.
        try session.run("tweetcli explore --no-pager")
        let explored = try session.screen()
        let ada = try #require(
            explored.firstIndex { $0.contains("Ada @ada  uid ") }, "\(explored.joined(separator: "\n"))")
        let adaRow = explored[ada]
        #expect(!adaRow.hasPrefix("Ada") && String(adaRow.dropFirst(5)).hasPrefix("Ada @ada"), "\(adaRow)")
        // The same picture as beside her tweets.
        let exploredColors = try session.tmux(["capture-pane", "-p", "-e"]).split(separator: "\n")
        let exploreAvatar = String(exploredColors[ada]).components(separatedBy: "Ada").first
        #expect(
            exploreAvatar == feedAvatar && feedAvatar.contains("2;"),
            "\(feedAvatar.debugDescription) \(exploreAvatar.debugDescription)")
        try session.run("tweetcli explore --no-pager --images never")
        #expect(try session.screen().first?.hasPrefix("Ada @ada  uid ") == true)
        // Without colour there is no picture, even when asked for: its colours are all it is.
        try session.run("NO_COLOR=1 tweetcli feed --no-pager --images always")
        #expect(Self.between(try session.screen(), "a flag", "[photo 400×200").isEmpty)
    }
}

/// Photos in real pixel terminals under Xvfb: xterm as a VT340, found to draw sixels by asking
/// it (no option, no variable says so), and kitty, found by the variables it sets; on each
/// screen, the photo's own pixels.
@Suite(.enabled(if: XtermDisplay.isAvailable || XtermDisplay.isRequired), .serialized)
struct SixelTerminalTests {
    /// Pixels of the screenshot near `color`, and the mean of their columns.
    static func count(_ shot: (width: Int, height: Int, rgb: [UInt8]), near color: [Int]) -> (pixels: Int, x: Double) {
        var (pixels, columns) = (0, 0)
        for index in 0..<(shot.width * shot.height) {
            let base = index * 3
            let close = (0..<3).allSatisfy { abs(Int(shot.rgb[base + $0]) - color[$0]) <= 24 }
            if close {
                pixels += 1
                columns += index % shot.width
            }
        }
        return (pixels, pixels == 0 ? 0 : Double(columns) / Double(pixels))
    }

    @Test(arguments: XtermDisplay.Emulator.allCases)
    func aPixelTerminalShowsAListingsPhotoInItsOwnPixels(_ emulator: XtermDisplay.Emulator) throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        // 200×120: the left three quarters magenta, the rest green; colours no text of the
        // terminals' has.
        let pixels: [UInt8] = (0..<(200 * 120)).flatMap { (position: Int) -> [UInt8] in
            position % 200 < 150 ? [255, 0, 255] : [0, 192, 0]
        }
        let photo = cli.home.appendingPathComponent("card.png")
        try Data(try TestImages.png(pixels: pixels, 200, 120)).write(to: photo)
        let posted = try cli.run(["post", "a test card", "--image", photo.path, "--alt", "magenta and green"])
        #expect(posted.status == 0, "\(posted.stderr)")

        let display = try XtermDisplay()
        let finished = cli.home.appendingPathComponent("finished")
        // xterm is told to be a plain xterm, so only its answer can say it draws sixels; kitty
        // keeps the TERM and KITTY_WINDOW_ID it sets, as a person's shell in it has them.
        let terminal =
            emulator == .xterm
            ? "export TERM=xterm\nunset NO_COLOR TMUX KITTY_WINDOW_ID TERM_PROGRAM COLORTERM"
            : "unset NO_COLOR TMUX TERM_PROGRAM COLORTERM"
        func listing(_ options: String) -> String {
            """
            export HOME='\(cli.home.path)' XDG_STATE_HOME='\(cli.home.path)/state' \
            XDG_CACHE_HOME='\(cli.home.path)/cache' LANG=C.UTF-8
            \(terminal)
            '\(CLIRunner.executable.path)' --store '\(cli.location)' feed --limit 1 \(options)
            """
        }
        try display.run(script: listing("--no-pager"), finished: finished, in: emulator)
        let shot = try display.screenshot(saveTo: cli.home.appendingPathComponent("screen.ppm"))
        let magenta = Self.count(shot, near: [255, 0, 255])
        let green = Self.count(shot, near: [0, 192, 0])
        // The photo's pixels, in its proportions: three times as much magenta as green, on its left.
        #expect(magenta.pixels > 4000 && green.pixels > 1300, "magenta \(magenta.pixels), green \(green.pixels)")
        let ratio = Double(magenta.pixels) / Double(max(1, green.pixels))
        #expect((2.5...3.5).contains(ratio), "magenta to green \(ratio)")
        #expect(magenta.x < green.x)
        // Found without being named: the same screen as the terminal's protocol asked for by
        // name, and not the block mosaic.
        let named = emulator == .xterm ? "sixel" : "kitty"
        try display.run(script: listing("--no-pager --images \(named)"), finished: finished, in: emulator)
        // The photo's colours are compared, not the whole screen: the row's time ("now", "6s")
        // may move on between two runs on a busy machine.
        func drawing(_ screenshot: (width: Int, height: Int, rgb: [UInt8])) -> [Double] {
            let (magenta, green) = (
                Self.count(screenshot, near: [255, 0, 255]), Self.count(screenshot, near: [0, 192, 0])
            )
            return [Double(magenta.pixels), magenta.x, Double(green.pixels), green.x]
        }
        let asNamed = drawing(try display.screenshot()) == drawing(shot)
        #expect(asNamed, "auto drew what --images \(named) draws")
        try display.run(script: listing("--no-pager --images blocks"), finished: finished, in: emulator)
        let blocks = try display.screenshot()
        let asBlocks = drawing(blocks) == drawing(shot)
        #expect(!asBlocks, "and not what --images blocks draws")
        #expect(Self.count(blocks, near: [255, 0, 255]).pixels > 0, "blocks are a picture too, in cells")

        // The same listing as a line of text (asked for, and piped): not a pixel of the photo.
        for options in ["--no-pager --images never", "| cat"] {
            try display.run(script: listing(options), finished: finished, in: emulator)
            let text = try display.screenshot()
            #expect(Self.count(text, near: [255, 0, 255]).pixels == 0, "\(options)")
        }
    }
}

/// `compact` removes the photos nothing names any more, on either engine: a deleted tweet's,
/// a replaced avatar's; never one a tweet still names, nor one put within the hour.
struct PhotoCollectionTests {
    @Test(arguments: [false, true])
    func compactRemovesThePhotosNothingNamesAnyMore(onPostgres: Bool) throws {
        guard let cli = try SmallFindingsTests.makeCLI(onPostgres: onPostgres) else { return }
        try cli.register("ada", fullname: "Ada")
        func photo(_ name: String, _ shade: UInt8) throws -> String {
            var pixels = TestImages.pixels(400, 300, channels: 3)
            for index in stride(from: 0, to: pixels.count, by: 3) { pixels[index] = shade }
            let file = cli.home.appendingPathComponent(name)
            try Data(try TestImages.png(pixels: pixels, 400, 300)).write(to: file)
            return file.path
        }
        func post(_ caption: String, _ file: String) throws -> (id: String, blobs: Set<String>) {
            let result = try cli.run(["post", caption, "--image", file, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let tweet = try JSON.object(result.stdout)
            let images = try #require(tweet["images"] as? [[String: Any]])
            let blobs = Set(images.flatMap { [$0["sha256"] as? String, $0["thumbnail"] as? String].compactMap { $0 } })
            return (try #require(tweet["id"] as? String), blobs)
        }
        func kept() throws -> Set<String> {
            let backup = try cli.run(["export"])
            #expect(backup.status == 0)
            // What export carries is what a tweet or profile names; the store's own list is what is kept.
            return Set(
                backup.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"blob\":") }.map {
                    String($0.dropFirst(9).prefix(64))
                })
        }
        let shared = try photo("shared.png", 10)
        let (first, sharedBlobs) = try post("first", shared)
        _ = try post("second", shared)
        let (alone, aloneBlobs) = try post("alone", try photo("alone.png", 200))
        #expect(try cli.run(["edit-profile", "--avatar", try photo("face.png", 90)]).status == 0)
        let avatarBefore = try kept().subtracting(sharedBlobs).subtracting(aloneBlobs)
        #expect(avatarBefore.count == 1)

        #expect(try cli.run(["delete", alone, "--force"]).status == 0)
        #expect(try cli.run(["delete", first, "--force"]).status == 0)
        #expect(try cli.run(["edit-profile", "--avatar", try photo("face2.png", 150)]).status == 0)
        // Within the hour, nothing goes: a post in flight may have put its photo and not yet its tweet.
        let young = try cli.run(["compact"])
        #expect(young.status == 0, "\(young.stderr)")
        #expect(!young.stdout.contains("Removed"), "\(young.stdout)")
        let collected = try cli.run(["compact"], environment: ["TWEETCLI_PHOTO_GRACE": "0"])
        #expect(collected.status == 0, "\(collected.stderr)")
        // The deleted tweet's photo and thumbnail, and the replaced avatar.
        #expect(collected.stdout.contains("Removed 3 photos nothing names any more"), "\(collected.stdout)")
        for address in aloneBlobs.union(avatarBefore) {
            #expect(try cli.run(["doctor"]).status == 0)
            if !onPostgres {
                let file = cli.store.appendingPathComponent("blobs/\(address.prefix(2))/\(address)")
                #expect(!FileManager.default.fileExists(atPath: file.path), "\(address) removed")
            }
        }
        // The shared photo stays while "second" names it, and is drawn from it.
        #expect(sharedBlobs.isSubset(of: try kept()))
        let show = try cli.run(["feed", "--json"])
        #expect(show.stdout.contains("second") && !show.stdout.contains("\"alone\""))
        let again = try cli.run(["compact"], environment: ["TWEETCLI_PHOTO_GRACE": "0"])
        #expect(!again.stdout.contains("Removed"), "nothing more: \(again.stdout)")
        // A photo removed can be posted again.
        _ = try post("alone again", try photo("alone.png", 200))
        #expect(try cli.run(["doctor"]).status == 0)
    }
}

/// A damaged photo: doctor names it, repair sets it aside (kept, never drawn), and a backup
/// merged back restores it.
struct PhotoRepairTests {
    @Test func repairSetsADamagedPhotoAsideAndABackupRestoresIt() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let file = cli.home.appendingPathComponent("card.png")
        try Data(try TestImages.png(120, 80)).write(to: file)
        let posted = try cli.run(["post", "a card", "--image", file.path, "--json"])
        let image = try #require((try JSON.object(posted.stdout)["images"] as? [[String: Any]])?.first)
        let address = try #require(image["sha256"] as? String)
        let backup = cli.home.appendingPathComponent("backup.jsonl")
        try Data(try cli.run(["export"]).stdout.utf8).write(to: backup)

        let folder = cli.store.appendingPathComponent("blobs/\(address.prefix(2))")
        let blob = folder.appendingPathComponent(address)
        var bytes = try Data(contentsOf: blob)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: blob)
        let doctor = try cli.run(["doctor"])
        #expect(doctor.status == 1 && doctor.stdout.contains("the photo \(address) is damaged"), "\(doctor.stdout)")

        let repair = try cli.run(["doctor", "--repair"])
        #expect(repair.stdout.contains("repaired: set the damaged photo \(address) aside"), "\(repair.stdout)")
        #expect(repair.stdout.contains("not repaired: the photo \(address) is damaged"), "\(repair.stdout)")
        #expect(!FileManager.default.fileExists(atPath: blob.path))
        #expect(try Data(contentsOf: folder.appendingPathComponent(".\(address).damaged")) == bytes, "kept aside")
        // Now missing: the listing shows the photo's line, and doctor says what to do.
        #expect(try cli.run(["feed"]).stdout.contains("[photo 120×80]"))
        let after = try cli.run(["doctor"])
        #expect(after.status == 1 && after.stdout.contains("the photo \(address) is named but missing"))

        #expect(try cli.run(["import", "--merge", backup.path]).status == 0)
        #expect(try cli.run(["doctor"]).status == 0)
        #expect(try Data(contentsOf: blob) != bytes)
    }
}

/// A picture named by address: the identicon while `tweetcli-fetch` brings it in the background,
/// then the picture itself, checked and cut square; one that is not a picture is refused and the
/// identicon stays.
@Suite(.enabled(if: ScriptedServer.python != nil))
struct URLAvatarTests {
    static let server = """
        import http.server
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *arguments): pass
        http.server.ThreadingHTTPServer(('127.0.0.1', PORT), Quiet).serve_forever()
        """

    @Test func aPictureNamedByAddressIsFetchedCheckedAndDrawnTheNextTime() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let site = cli.home.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let blue = [UInt8](repeating: 0, count: 300 * 200 * 3).enumerated().map { $0.offset % 3 == 2 ? UInt8(255) : 0 }
        try Data(try TestImages.png(pixels: blue, 300, 200)).write(to: site.appendingPathComponent("face.png"))
        try Data("not a picture".utf8).write(to: site.appendingPathComponent("notes.png"))
        let server = try ScriptedServer(Self.server, in: site)
        let cache = cli.home.appendingPathComponent(".cache/tweetcli/avatars")
        func files(_ suffix: String) -> [String] {
            // None yet: the folder is made by the first fetch.
            ((try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []).filter { $0.hasSuffix(suffix) }
        }
        func header() throws -> String {
            let result = try cli.run(["profile", "--tab", "replies", "--images", "blocks", "--color", "always"])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        func waitFor(_ suffix: String) {
            for _ in 0..<100 where files(suffix).isEmpty { usleep(100_000) }
        }
        let blueCode = "5;21m"

        let address = "http://127.0.0.1:\(server.port)/face.png"
        #expect(try cli.run(["edit-profile", "--avatar", address]).status == 0)
        // The first view: the identicon (no picture kept yet), and the fetch started.
        _ = try header()
        #expect(files(".png").isEmpty)
        waitFor(".fetched")
        #expect(files(".fetched").count == 1, "fetched in the background")
        // The next: the picture, checked and kept square; the raw download gone.
        #expect(try header().contains(blueCode))
        #expect(files(".png").count == 1 && files(".fetched").isEmpty)
        let kept = try Data(contentsOf: cache.appendingPathComponent(files(".png")[0]))
        #expect(kept.starts(with: [0x89, 0x50, 0x4E, 0x47]))

        // Not a picture: refused once it came, and the identicon stays.
        #expect(try cli.run(["edit-profile", "--avatar", "http://127.0.0.1:\(server.port)/notes.png"]).status == 0)
        _ = try header()
        waitFor(".fetched")
        let refused = try header()
        #expect(files(".refused").count == 1 && files(".png").count == 1, "\(files(""))")
        #expect(refused.contains("Ada"))
    }
}
