import Foundation
import Testing
import TweetTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Photos under `kill -9` and failing system calls: a post acknowledged with a photo keeps it
/// whole, and no tweet ever names a photo that is missing or half written.
@Suite(.serialized)
struct PhotoCrashTests {
    /// A photo of its own for each number: 400×300, so that a thumbnail is made too.
    static func photo(_ number: Int, in cli: CLIRunner) throws -> URL {
        var pixels = TestImages.pixels(400, 300, channels: 3)
        for index in stride(from: 0, to: pixels.count, by: 97) { pixels[index] = UInt8(truncatingIfNeeded: number) }
        let file = cli.home.appendingPathComponent("photo-\(number).png")
        try Data(try TestImages.png(pixels: pixels, 400, 300)).write(to: file)
        return file
    }

    /// The store's tweets by caption, with the photos they name, after `doctor` found every named
    /// photo there and whole.
    static func tweetsWithEveryPhotoWhole(_ cli: CLIRunner, after name: String) throws -> [String: [[String: Any]]] {
        let doctor = try cli.run(["doctor"])
        #expect(!doctor.stdout.contains("the photo"), "after \(name): \(doctor.stdout)")
        if doctor.status != 0 {
            let repair = try cli.run(["doctor", "--repair"])
            #expect(repair.status == 0, "after \(name): \(repair.stdout) \(repair.stderr)")
        }
        let feed = try cli.run(["feed", "--json", "--limit", "200"])
        #expect(feed.status == 0, "after \(name): \(feed.stderr)")
        var tweets: [String: [[String: Any]]] = [:]
        for tweet in try jsonArray(feed.stdout) {
            let caption = try #require(tweet["caption"] as? String)
            #expect(tweets[caption] == nil, "\(caption) once")
            tweets[caption] = tweet["images"] as? [[String: Any]] ?? []
        }
        return tweets
    }

    @Test func killingPhotoPostsAtRandomMomentsLosesNoAcknowledgedPhoto() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        // How long a photo post takes here, so that the kills land all through it.
        let started = Date()
        #expect(try cli.run(["post", "the first", "--image", try Self.photo(0, in: cli).path]).status == 0)
        let duration = max(0.02, Date().timeIntervalSince(started))
        let environment = [
            "HOME": cli.home.path, "XDG_STATE_HOME": cli.home.appendingPathComponent("state").path,
            // Folding every 3 records puts folds and merges under the kills too.
            "TWEETCLI_FOLD_THRESHOLD": "3",
        ]
        var acknowledged: [String] = ["the first"]
        var (killed, trial) = (0, 0)
        var random = SystemRandomNumberGenerator()
        while killed < 25 && trial < 250 {
            trial += 1
            let photo = try Self.photo(trial, in: cli)
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["--store", cli.location, "post", "photo \(trial)", "--image", photo.path]
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 0...UInt32(duration * 1_200_000), using: &random))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal {
                killed += 1
            } else if process.terminationStatus == 0 {
                acknowledged.append("photo \(trial)")
            }
        }
        #expect(killed >= 20, "at least 20 posts killed mid-command (\(trial) trials)")
        #expect(acknowledged.count >= 2, "and some acknowledged: \(acknowledged.count)")
        let tweets = try Self.tweetsWithEveryPhotoWhole(cli, after: "\(killed) kills")
        for caption in acknowledged {
            let images = try #require(tweets[caption], "\(caption) was acknowledged")
            #expect(images.count == 1 && images[0]["thumbnail"] != nil, "\(caption) keeps its photo")
        }
        // Every tweet there, acknowledged or not, names a photo that is whole (doctor said so above).
        #expect(tweets.values.allSatisfy { $0.count == 1 }, "no tweet without the photo it was posted with")
    }
}

extension FaultInjectionTests {
    @Test(arguments: ["ENOSPC", "EIO", "EINTR"])
    func aPhotoPostLosesNothingWhicheverCallFails(_ error: String) throws {
        let (cli, before) = try storeAboutToMerge()
        let photo = try PhotoCrashTests.photo(1, in: cli)
        let walk = try FaultWalk(cli, ["post", "with a photo", "--image", photo.path])
        let (failed, runs) = try walk.walk(Self.calls[error]!, error: error) { status, name in
            let tweets = try PhotoCrashTests.tweetsWithEveryPhotoWhole(cli, after: name)
            #expect(before.isSubset(of: Set(tweets.keys)), "lost after \(name)")
            if status == 0 {
                #expect(tweets["with a photo"]?.count == 1, "acknowledged with its photo, after \(name)")
            }
            // A tweet that landed, acknowledged or not, has its photo (doctor found it whole).
            if let images = tweets["with a photo"] { #expect(images.count == 1, "after \(name)") }
        }
        if error == "EINTR" { #expect(failed == 0) } else { #expect(failed > 0) }
        #expect(runs >= 15)
        print("fault injection, post --image, \(error): \(runs) runs, \(failed) failed, nothing lost")
    }
}
