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

        let feed = try cli.run(["feed", "--limit", "1"])
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
