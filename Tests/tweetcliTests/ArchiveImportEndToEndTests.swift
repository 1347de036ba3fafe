import Foundation
import Testing
import TweetTestSupport

/// `import --twitter-archive`, run as a user would: the account made from the archive when
/// nobody is signed in, the summary, a rerun that adds nothing, a malformed archive that changes
/// nothing, and a backup of the imported store that restores byte for byte.
@Suite(.serialized)
struct ArchiveImportEndToEndTests {
    private func zippedArchive(_ cli: CLIRunner, _ fixture: ArchiveFixture = ArchiveFixture.sixtyTweets())
        throws -> String
    {
        let folder = cli.home.appendingPathComponent("archive-folder")
        try fixture.write(to: folder)
        let zip = cli.home.appendingPathComponent("twitter-2023-08-12.zip")
        try ArchiveFixture.zip(folder, to: zip)
        return zip.path
    }

    @Test func nobodySignedInMakesTheAccountAndARerunAddsNothing() throws {
        let cli = try CLIRunner()
        let zip = try zippedArchive(cli)
        let first = try cli.run(["import", "--twitter-archive", zip, "--password-stdin"], stdin: "correct horse\n")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout
                == "Imported 60 tweets (5 replies) and 1 like as @ada_l; skipped 1: 1 like of tweets not in this store;"
                + " 1 longer than 280 characters, kept whole; 3 following and 5 followers not imported"
                + " (the archive names them by ID only); the profile's bio, website, location filled.\n")
        #expect(first.stderr.isEmpty, "no progress line off a terminal: \(first.stderr)")
        // Signed in as the archive's account, with its profile.
        let profile = try json(try cli.run(["profile", "--json"]).stdout)
        let user = try #require(profile["user"] as? [String: Any])
        #expect(user["username"] as? String == "ada_l" && user["fullname"] as? String == "Ada Lovelace")
        #expect(user["bio"] as? String == "Analyst & poet" && user["location"] as? String == "London")
        #expect((profile["stats"] as? [String: Any])?["tweets"] as? Int == 60)
        try cli.login("ada_l")
        // Again: nothing twice.
        let again = try cli.run(["import", "--twitter-archive", zip, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let report = try #require(try json(again.stdout)["report"] as? [String: Any])
        #expect(report["tweets"] as? Int == 0 && report["likes"] as? Int == 0)
        #expect((report["skipped"] as? [String: Any])?["alreadyImported"] as? Int == 60)
        let feed = try jsonArray(try cli.run(["feed", "--json", "--limit", "100"]).stdout)
        #expect(feed.count == 60)
        let longest = try #require(feed.first { ($0["caption"] as? String)?.hasPrefix("long") == true })
        #expect((longest["source"] as? [String: Any])?["overLimit"] as? Bool == true)
    }

    /// On a terminal (a pseudo-terminal from `script`), standard error shows a progress line that
    /// rewrites itself and is erased before the summary; off one, nothing (checked above).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func aTerminalShowsAProgressLineThatIsErased() throws {
        let cli = try CLIRunner()
        let zip = try zippedArchive(cli)
        let log = cli.home.appendingPathComponent("typescript")
        let command =
            "echo 'correct horse' | \(CLIRunner.executable.path) --store \(cli.store.path) import --twitter-archive \(zip) --password-stdin"
        let result = try cli.run(["-q", "-e", "-c", command, log.path], executable: "/usr/bin/script", store: false)
        #expect(result.status == 0, "\(result.stderr)")
        let screen = try String(contentsOf: log, encoding: .utf8)
        let progress = try #require(screen.range(of: "\r\u{1B}[KImporting: "), "\(screen.debugDescription)")
        let erased = try #require(screen.range(of: "\r\u{1B}[K", range: progress.upperBound..<screen.endIndex))
        let summary = try #require(screen.range(of: "Imported 60 tweets"))
        #expect(erased.upperBound <= summary.lowerBound)
    }

    @Test func anImportedStoreRestoresByteForByte() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        #expect(try cli.run(["import", "--twitter-archive", try zippedArchive(cli)]).status == 0)
        let backup = try cli.run(["export"])
        #expect(backup.status == 0 && backup.stdout.contains("\"twitter\""))
        let restored = try CLIRunner()
        #expect(try restored.run(["import", "-"], stdin: backup.stdout).status == 0)
        #expect(try restored.run(["export"]).stdout == backup.stdout)
    }

    @Test func aMalformedArchiveChangesNothingAndSaysWhere() throws {
        let cli = try CLIRunner()
        var fixture = ArchiveFixture.sixtyTweets()
        fixture.parts = 2
        let folder = cli.home.appendingPathComponent("archive")
        try fixture.write(to: folder)
        let part = folder.appendingPathComponent("data/tweets-part1.js")
        let text = try String(contentsOf: part, encoding: .utf8)
        try text.replacingOccurrences(of: "\"id_str\" : \"", with: "\"id_str\" : \"x").write(
            to: part, atomically: true, encoding: .utf8)
        let result = try cli.run(
            ["import", "--twitter-archive", folder.path, "--password-stdin"], stdin: "correct horse\n")
        #expect(result.status != 0 && result.stdout.isEmpty)
        #expect(
            result.stderr
                == "error: data/tweets-part1.js of the Twitter archive is malformed at item 1: its id_str is not a tweet's ID; nothing was imported\n"
        )
        #expect(!FileManager.default.fileExists(atPath: cli.store.path), "no account, no store")
        // No account.js, nobody signed in: nothing to import as.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("data/account.js"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("data/manifest.js"))
        try text.write(to: part, atomically: true, encoding: .utf8)
        let orphan = try cli.run(["import", "--twitter-archive", folder.path])
        #expect(orphan.status != 0 && orphan.stderr.contains("no account.js"), "\(orphan.stderr)")
        let missing = try cli.run(["import", "--twitter-archive", cli.home.appendingPathComponent("nope.zip").path])
        #expect(missing.status != 0 && missing.stderr.contains("there is no such file or folder"))
        let both = try cli.run(["import", "--twitter-archive", folder.path, "backup.jsonl"])
        #expect(both.status == 64 && both.stderr.contains("--twitter-archive takes the archive's path"))
    }

    @Test func aTimeZoneOffsetBeyondFourteenHoursIsMalformedAndImportsNothing() throws {
        let cli = try CLIRunner()
        let fixture = ArchiveFixture.sixtyTweets()
        let folder = cli.home.appendingPathComponent("archive")
        try fixture.write(to: folder)
        let part = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("data").path).first {
                $0.hasPrefix("tweets") && $0.hasSuffix(".js")
            })
        let file = folder.appendingPathComponent("data/" + part)
        let original = try String(contentsOf: file, encoding: .utf8)
        // The third tweet's time, four days off if its offset were taken.
        let stamp = ArchiveFixture.createdAt(fixture.tweets[2].created)
        #expect(original.contains(stamp) && stamp.contains(" +0000 "))
        for offset in ["+9999", "-1401", "+1460", "+1+00"] {
            try original.replacingOccurrences(of: stamp, with: stamp.replacingOccurrences(of: "+0000", with: offset))
                .write(to: file, atomically: true, encoding: .utf8)
            let result = try cli.run(
                ["import", "--twitter-archive", folder.path, "--password-stdin"], stdin: "correct horse\n")
            #expect(result.status == 1 && result.stdout.isEmpty, "\(offset): \(result.stderr)")
            #expect(
                result.stderr.contains("data/\(part) of the Twitter archive is malformed at item 3: its created_at"),
                "\(offset): \(result.stderr)")
            #expect(result.stderr.hasSuffix("nothing was imported\n"))
            #expect(!FileManager.default.fileExists(atPath: cli.store.path), "\(offset): something was imported")
        }
        // The widest real offsets are fine.
        try original.replacingOccurrences(of: stamp, with: stamp.replacingOccurrences(of: "+0000", with: "+1400"))
            .write(to: file, atomically: true, encoding: .utf8)
        #expect(
            try cli.run(["import", "--twitter-archive", folder.path, "--password-stdin"], stdin: "correct horse\n")
                .status == 0)
    }

    @Test func aTakenUsernameIsRefusedBeforeAnythingIsImported() throws {
        let cli = try CLIRunner()
        try cli.register("ada_l", fullname: "Someone Else")
        #expect(try cli.run(["logout"]).status == 0)
        let result = try cli.run(
            ["import", "--twitter-archive", try zippedArchive(cli), "--password-stdin"], stdin: "correct horse\n")
        #expect(result.status != 0 && result.stderr.contains("the username @ada_l is taken"), "\(result.stderr)")
        #expect(try cli.run(["export"]).stdout.components(separatedBy: "\"tweets/").count == 1, "no tweet written")
    }

    /// The account is made, then the import fails (the disk fails an fsync under `strace -e
    /// inject`): the error says the account is there and signed in, and the same import, run
    /// again, finishes it.
    @Test(.enabled(if: Strace.works)) func aFailureAfterTheAccountIsMadeSaysSoAndARerunFinishes() throws {
        let cli = try CLIRunner()
        try cli.register("someone", fullname: "Someone")
        #expect(try cli.run(["logout"]).status == 0)
        let zip = try zippedArchive(cli)
        let state = cli.home.appendingPathComponent("state")
        let pristine = cli.home.appendingPathComponent("pristine")
        try FileManager.default.createDirectory(at: pristine, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: cli.location), to: pristine.appendingPathComponent("store"))
        try FileManager.default.copyItem(at: state, to: pristine.appendingPathComponent("state"))
        var told: CLIRunner.Result?
        for nth in 1...20 where told == nil {
            for (live, saved) in [(URL(fileURLWithPath: cli.location), "store"), (state, "state")] {
                try? FileManager.default.removeItem(at: live)
                try FileManager.default.copyItem(at: pristine.appendingPathComponent(saved), to: live)
            }
            let result = try cli.run(
                [
                    "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync", "-e", "inject=fsync:error=EIO:when=\(nth)",
                    CLIRunner.executable.path, "--store", cli.location, "import", "--twitter-archive", zip,
                    "--password-stdin",
                ], stdin: "correct horse\n", executable: "/usr/bin/strace", store: false)
            #expect(result.status == 0 || result.status == 1, "fsync #\(nth): status \(result.status)")
            if result.stderr.contains("was created and is signed in") { told = result }
        }
        let failed = try #require(told, "no run failed after the account was made")
        #expect(failed.stdout.isEmpty && failed.stderr.contains("@ada_l was created"), "\(failed.stderr)")
        let rerun = try cli.run(["import", "--twitter-archive", zip])
        #expect(rerun.status == 0 && rerun.stdout.contains("as @ada_l"), "\(rerun.stderr)")
        let profile = try json(try cli.run(["profile", "--json"]).stdout)
        #expect((profile["stats"] as? [String: Any])?["tweets"] as? Int == 60)
    }
}

/// An archive's photos and picture: `tweets_media/` files kept with their tweets (checked and
/// stripped as `post --image` does), a video's file counted and left, and the profile's avatar
/// made the account's picture.
struct ArchivePhotoImportTests {
    @Test(arguments: [false, true])
    func theArchivesPhotosAndAvatarComeAlong(zipped: Bool) throws {
        let cli = try CLIRunner()
        var fixture = ArchiveFixture()
        fixture.tweets = ArchiveFixture.tweets(3)
        let withPhoto = fixture.tweets[1].id
        fixture.media = [
            ("\(withPhoto)-AbCdEf.jpg", Data(TestImages.withGPS(try TestImages.jpeg(64, 48)))),
            ("\(withPhoto)-GhIjKl.png", Data(try TestImages.png(40, 30))),
            ("\(fixture.tweets[2].id)-video.mp4", Data("not a photo".utf8)),
            ("notes.txt", Data("named otherwise".utf8)),
        ]
        fixture.avatar = ("face_400x400.png", Data(try TestImages.png(300, 200)))
        let folder = cli.home.appendingPathComponent("archive")
        try fixture.write(to: folder)
        var path = folder.path
        if zipped {
            let zip = cli.home.appendingPathComponent("archive.zip")
            try ArchiveFixture.zip(folder, to: zip)
            path = zip.path
        }
        let imported = try cli.run(["import", "--twitter-archive", path, "--password-stdin"], stdin: "correct horse\n")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("; 2 photos with them; 1 file of tweets_media not kept"), "\(imported.stdout)")
        #expect(imported.stdout.contains("the profile's bio, website, location, picture filled"), "\(imported.stdout)")
        let feed = try jsonArray(try cli.run(["feed", "--json"]).stdout)
        let photographed = try #require(feed.first { ($0["images"] as? [[String: Any]])?.isEmpty == false })
        let images = try #require(photographed["images"] as? [[String: Any]])
        #expect(images.map { $0["type"] as? String } == ["image/jpeg", "image/png"])
        #expect(feed.filter { $0["images"] != nil }.count == 1)
        let profile = try json(try cli.run(["profile", "--json"]).stdout)
        #expect(((profile["user"] as? [String: Any])?["avatar"] as? String)?.count == 64)
        // Kept without the GPS position, whole, and carried by a backup.
        #expect(try cli.run(["doctor"]).status == 0)
        let blobs = cli.store.appendingPathComponent("blobs")
        let kept = try FileManager.default.subpathsOfDirectory(atPath: blobs.path).filter { $0.count > 3 }
        #expect(kept.count >= 4, "two photos, their thumbnails, and the picture")
        for file in kept {
            let bytes = try Data(contentsOf: blobs.appendingPathComponent(file))
            #expect(bytes.range(of: Data("Exif".utf8)) == nil, "no GPS position kept")
        }
        let backup = try cli.run(["export"]).stdout
        #expect(backup.split(separator: "\n").filter { $0.hasPrefix("{\"blob\":") }.count == kept.count)
        // Again: nothing twice, photos included.
        let again = try cli.run(["import", "--twitter-archive", path])
        #expect(again.status == 0 && again.stdout.contains("Imported 0 tweets"), "\(again.stdout)")
        #expect(!again.stdout.contains("photos with them"))
    }
}
