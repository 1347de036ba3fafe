import Foundation
import Synchronization
import Testing
import TweetImages
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// Photos on tweets (issue 44), on every engine: posted with their alt texts, kept as blobs by
/// their hash, read back in every listing, and carried byte for byte by export and import.
struct PhotoTests {
    static func photo(_ width: Int = 48, _ height: Int = 32, alt: String? = nil) throws -> PhotoUpload {
        PhotoUpload(image: try ImageIntake.check(try TestImages.png(width, height), file: "p.png"), alt: alt)
    }

    @Test(arguments: StoreLayout.allCases)
    func photosArePostedWithTheirAltTextsAndReadBack(layout: StoreLayout) async throws {
        let env = try TestEnvironment()
        let services = try env.makeServices(layout)
        let ada = try await env.registerUser("ada", in: services)
        let first = try Self.photo(48, 32, alt: "  a cat asleep  ")
        let second = try Self.photo(20, 20)
        let tweet = try await services.tweets.uploadTweet(caption: "two photos", photos: [first, second])
        let images = try #require(tweet.images)
        #expect(images.map(\.sha256) == [first.image.sha256, second.image.sha256])
        #expect(images[0].alt == "a cat asleep" && images[1].alt == nil)
        #expect(images[0].width == 48 && images[0].height == 32 && images[0].type == "image/png")
        #expect(images[0].bytes == first.image.bytes.count)
        #expect(try await services.store.getBlob(first.image.sha256) == first.image.bytes)
        #expect(try await services.store.getBlob(second.image.sha256) == second.image.bytes)
        let thumbnail = try #require(first.image.thumbnailSHA256)
        #expect(images[0].thumbnail == thumbnail)
        #expect(try await services.store.getBlob(thumbnail) == first.image.thumbnail)
        #expect(try await services.tweets.fetchTweets(limit: 5).first?.images == images)
        #expect(try await services.tweets.fetchTweets(forUid: ada.id, limit: 5).first?.images == images)
        #expect(try await services.tweets.fetchTweet(withID: tweet.id).images == images)
        let plain = try await services.tweets.uploadTweet(caption: "no photo")
        #expect(plain.images == nil)
    }

    /// Five photos, an alt text over 1,000 characters or with a control character: refused, with
    /// no tweet written.
    @Test func photoLimitsAreRefusedWithNothingWritten() async throws {
        let env = try TestEnvironment()
        let services = try env.makeServices()
        let ada = try await env.registerUser("ada", in: services)
        let photo = try Self.photo()
        await #expect(throws: TweetError.tooManyImages(5)) {
            _ = try await services.tweets.uploadTweet(caption: "five", photos: Array(repeating: photo, count: 5))
        }
        await #expect(throws: TweetError.altTextTooLong(1001)) {
            _ = try await services.tweets.uploadTweet(
                caption: "long alt", photos: [PhotoUpload(image: photo.image, alt: String(repeating: "a", count: 1001))]
            )
        }
        await #expect(throws: (any Error).self) {
            _ = try await services.tweets.uploadTweet(
                caption: "escape", photos: [PhotoUpload(image: photo.image, alt: "a \u{1B}[31mred\u{1B}[0m cat")])
        }
        #expect(try await services.tweets.fetchTweets(forUid: ada.id, limit: 5).isEmpty)
        #expect(try await services.users.fetchStats(forUid: ada.id).tweets == 0)
    }

    /// An `images` field that tweetcli would not have written (another program wrote the store)
    /// reads as no photos: the tweet still shows, and nothing from it names a file.
    @Test func aStoredImagesFieldThatIsNotOneReadsAsNone() async throws {
        let env = try TestEnvironment()
        let services = try env.makeServices()
        try await env.registerUser("ada", in: services)
        let tweet = try await services.tweets.uploadTweet(caption: "fine", photos: [try Self.photo()])
        let path = DocumentPath(collection: Collections.tweets, documentID: tweet.id)
        var fields = try #require(try await services.store.getDocument(path)).data
        let good = try #require(fields["images"]?.arrayValue?.first?.objectValue)
        for bad: JSONObject in [
            good.merging(["sha256": .string("../../etc/passwd")]) { $1 },
            good.merging(["width": .integer(0)]) { $1 }, good.merging(["type": .string("text/html")]) { $1 },
            good.merging(["alt": .string("\u{1B}]52;c;x\u{07}")]) { $1 }, good.merging(["extra": .bool(true)]) { $1 },
        ] {
            fields["images"] = .array([.object(bad)])
            try await services.store.setData(fields, at: path)
            let read = try await services.tweets.fetchTweet(withID: tweet.id)
            #expect(read.images == nil && read.caption == "fine")
        }
    }

    /// An export holds each photo a tweet names after the documents; importing it into an empty
    /// store of either engine restores them, and its export is the same bytes. A backup without a
    /// photo its tweet names, or with other bytes under a photo's address, is refused whole.
    @Test(arguments: StoreLayout.allCases) @MainActor
    func anExportCarriesThePhotosAndRestoresByteForByte(layout: StoreLayout) async throws {
        let env = try TestEnvironment()
        let services = try env.makeServices(layout)
        try await env.registerUser("ada", in: services)
        let photo = try Self.photo(64, 40, alt: "a plot")
        _ = try await services.tweets.uploadTweet(caption: "with a photo", photos: [photo])
        let first = try await Self.exported(services)
        // A photo no larger than a thumbnail, written again from its pixels, is its own thumbnail:
        // one blob, by its content.
        #expect(photo.image.thumbnailSHA256 == photo.image.sha256)
        #expect(first.photos == 1)
        let lines = first.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        let photoLine = #"{"blob":"\#(photo.image.sha256)","data":""#
        #expect(lines.suffix(2).contains { $0.hasPrefix(photoLine) })

        let restoredEnv = try TestEnvironment()
        let restored = try restoredEnv.makeServices(layout)
        try await ImportViewModel(services: restored).importLines(first.bytes, source: "backup")
        #expect(try await restored.store.getBlob(photo.image.sha256) == photo.image.bytes)
        #expect(try await Self.exported(restored).bytes == first.bytes)

        let others = lines.filter { !$0.hasPrefix(photoLine) }
        let withoutPhoto = Array(others.joined(separator: "\n").utf8) + [0x0A]
        let other = try Self.photo(10, 10).image
        let otherBytes = Data(other.bytes).base64EncodedString()
        let swapped = Array(
            (others + [#"{"blob":"\#(photo.image.sha256)","data":"\#(otherBytes)"}"#]).joined(separator: "\n").utf8)
        for (name, backup) in [("without", withoutPhoto), ("swapped", swapped)] {
            let emptyEnv = try TestEnvironment()
            let empty = try emptyEnv.makeServices(layout)
            await #expect(throws: ImportError.self, "\(name)") {
                try await ImportViewModel(services: empty).importLines(backup, source: name)
            }
            #expect(try await empty.tweets.fetchTweets(limit: 5).isEmpty, "\(name)")
        }
    }

    /// `edit-profile --avatar FILE` keeps the photo's centre square as the user's picture, on every
    /// engine: named by the profile, carried by export and required by import; a value that is no
    /// address reads as none.
    @Test(arguments: StoreLayout.allCases) @MainActor
    func anAvatarIsKeptCarriedAndRequired(layout: StoreLayout) async throws {
        let env = try TestEnvironment()
        let services = try env.makeServices(layout)
        let ada = try await env.registerUser("ada", in: services)
        let model = EditProfileViewModel(services: services)
        try await model.setAvatar(try TestImages.png(300, 200), file: "me.png")
        let avatar = try #require(model.user?.avatar)
        let square = try ImageIntake.check(try #require(try await services.store.getBlob(avatar)), file: "avatar")
        #expect(square.width == 200 && square.height == 200 && square.sha256 == avatar)
        #expect(try await services.users.fetchUser(withUid: ada.id).avatar == avatar)

        let backup = try await Self.exported(services)
        let lines = backup.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.contains { $0.hasPrefix(#"{"blob":"\#(avatar)""#) })
        let restored = try TestEnvironment().makeServices(layout)
        try await ImportViewModel(services: restored).importLines(backup.bytes, source: "backup")
        #expect(try await Self.exported(restored).bytes == backup.bytes)
        let without = Array(lines.filter { !$0.hasPrefix(#"{"blob":"\#(avatar)""#) }.joined(separator: "\n").utf8)
        await #expect(throws: ImportError.self) {
            try await ImportViewModel(services: try TestEnvironment().makeServices(layout)).importLines(
                without, source: "without")
        }
        // An address given later replaces the kept picture.
        _ = try await services.users.updateProfile(ProfileChanges(profileImageUrl: "https://example.org/me.png"))
        #expect(try await services.users.fetchUser(withUid: ada.id).avatar == nil)
        let path = DocumentPath(collection: Collections.users, documentID: ada.id)
        var fields = try #require(try await services.store.getDocument(path)).data
        fields["avatar"] = .string("../../etc/passwd")
        try await services.store.setData(fields, at: path)
        #expect(try await services.users.fetchUser(withUid: ada.id).avatar == nil)
    }

    /// `doctor` reads every photo a document names and hashes it again: one missing, and one
    /// whose bytes changed, are each a problem that repair leaves for a person, naming a way out.
    @Test func theAuditFindsAMissingAndADamagedPhoto() async throws {
        let env = try TestEnvironment()
        let services = try env.makeServices()
        try await env.registerUser("ada", in: services)
        let first = try Self.photo(30, 20)
        let second = try Self.photo(40, 20)
        _ = try await services.tweets.uploadTweet(caption: "two", photos: [first, second])
        #expect(try await StoreAudit(store: services.store).check().isEmpty)
        let blobs = env.storeDirectory + "/blobs/"
        func file(_ address: String) -> String { blobs + address.prefix(2) + "/" + address }
        try FileManager.default.removeItem(atPath: file(first.image.sha256))
        var damaged = second.image.bytes
        damaged[damaged.count / 2] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: file(second.image.sha256)))
        let problems = try await StoreAudit(store: services.store).check()
        #expect(problems.contains(.photo(address: first.image.sha256, reason: "is named but missing")))
        #expect(
            problems.contains(
                .photo(
                    address: second.image.sha256, reason: "is damaged: its bytes are not what its address says",
                    damaged: true)))
        let repair = try await StoreAudit(store: services.store).repair()
        #expect(repair.unrepaired.count == 2 && repair.unrepaired.allSatisfy { $0.contains("import --merge") })
        // The damaged one is set aside: no longer read as the photo.
        #expect(repair.repaired == ["set the damaged photo \(second.image.sha256) aside"])
        #expect(try await services.store.getBlob(second.image.sha256) == nil)
        // Putting the photos again (as a merge of a backup does) mends both, a flipped byte too.
        for photo in [first, second] {
            try await services.store.putBlob(photo.image.bytes, address: photo.image.sha256)
        }
        #expect(try await StoreAudit(store: services.store).check().isEmpty)
    }

    @MainActor
    static func exported(_ services: AppServices) async throws -> (bytes: [UInt8], photos: Int) {
        let output = Mutex<[UInt8]>([])
        let model = ExportViewModel(services: services)
        try await model.export(to: { chunk in output.withLock { $0 += chunk } })
        return (output.withLock { $0 }, model.photos)
    }
}
