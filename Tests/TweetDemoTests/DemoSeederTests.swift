import Foundation
import Synchronization
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetDemo
@testable import TweetImages
@testable import TweetStore
@testable import TweetStoreLocal
@testable import TwitterText

struct DemoSeederTests {
    /// A store that runs `interleaved` once, right after its first query: another process's write
    /// landing between the seeder's check and its import.
    final class InterleavingStore: ForwardingDocumentStore {
        let base: any DocumentStore
        private let interleaved: Mutex<(@Sendable () async throws -> Void)?>

        init(_ base: any DocumentStore, interleaved: @escaping @Sendable () async throws -> Void) {
            self.base = base
            self.interleaved = Mutex(interleaved)
        }

        func runQuery(_ query: Query) async throws -> [DocumentSnapshot] {
            let result = try await base.runQuery(query)
            if let write = interleaved.withLock({ hook in
                defer { hook = nil }; return hook
            }) {
                try await write()
            }
            return result
        }
    }

    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// 2026-12-05T12:00:00Z: the time the tests' demo data is anchored to.
    static let now = Date(timeIntervalSince1970: 1_796_472_000)
    static let options = DemoSeeder.Options(users: 8, tweets: 40, likes: 30, follows: 3, seed: 7, now: now)

    /// Seeds a new store in `name` and returns it with the summary.
    private func seed(_ options: DemoSeeder.Options = options, into name: String) async throws
        -> (LocalDocumentStore, DemoSeeder.Summary)
    {
        let store = try env.makeStore(directory: env.path(name))
        return (store, try await DemoSeeder(store: store).seed(options))
    }

    private func documents(_ collection: String, in store: LocalDocumentStore) async throws -> [DocumentSnapshot] {
        try await store.collection(collection).query.getDocuments()
    }

    /// Every document of `store`, in path order.
    private func allDocuments(in store: LocalDocumentStore) async throws -> [DocumentSnapshot] {
        let all = Mutex<[DocumentSnapshot]>([])
        try await store.exportDocuments { batch in all.withLock { $0 += batch } }
        return all.withLock { $0 }
    }

    /// Every time in `store`'s documents, their paths and their tweet IDs.
    private func times(in store: LocalDocumentStore) async throws -> [Date] {
        var found: [Date] = []
        for document in try await allDocuments(in: store) {
            _ = AnchoredText(anchor: Self.now).normalized(document.path.description, times: &found)
            _ = AnchoredText(anchor: Self.now).normalized(.object(document.data), times: &found)
        }
        return found
    }

    @Test func theNewestTweetIsMinutesOldAndTheOldestWeeksBack() async throws {
        let (store, _) = try await seed(
            DemoSeeder.Options(users: 8, tweets: 400, seed: 2, now: Self.now), into: "store")
        let tweets = try await documents(Collections.tweets, in: store).map { try $0.data(as: TweetRecord.self) }
        let newest = try #require(tweets.map(\.timestamp).max())
        let oldest = try #require(tweets.map(\.timestamp).min())
        #expect(newest <= Self.now.addingTimeInterval(-60) && newest >= Self.now.addingTimeInterval(-600))
        #expect(oldest <= Self.now.addingTimeInterval(-21 * 86_400), "weeks back")
        #expect(oldest >= Self.now.addingTimeInterval(-29 * 86_400))
        // An eighth of the tweets in the last day, so that the feed and trends look busy.
        let lastDay = tweets.filter { $0.timestamp > Self.now.addingTimeInterval(-86_400) }
        #expect(lastDay.count == 50)
        // Nothing happens after the anchor: no like, retweet, bookmark, notification or follow.
        let times = try await times(in: store)
        #expect(times.count > 2_000)
        #expect(times.allSatisfy { $0 <= Self.now }, "\(times.filter { $0 > Self.now }.prefix(3))")
        #expect(times.allSatisfy { $0 >= Self.now.addingTimeInterval(-28 * 86_400) })
    }

    @Test func withoutATimeTheDataIsAnchoredToTheMomentOfSeeding() async throws {
        let before = Date()
        let (store, _) = try await seed(DemoSeeder.Options(users: 3, tweets: 20, seed: 2), into: "store")
        let after = Date()
        let newest = try #require(
            try await documents(Collections.tweets, in: store).map { try $0.data(as: TweetRecord.self).timestamp }.max()
        )
        #expect(newest >= before.addingTimeInterval(-600) && newest <= after.addingTimeInterval(-60))
    }

    @Test func anotherTimeGivesTheSameDocumentsMovedInTime() async throws {
        // Three days, five hours and seven minutes later: not a whole number of hours.
        let shift = 3 * 86_400.0 + 5 * 3600 + 7 * 60
        let (first, _) = try await seed(into: "first")
        var options = Self.options
        options.now = Self.now.addingTimeInterval(shift)
        let (second, _) = try await seed(options, into: "second")
        let a = try await allDocuments(in: first)
        let b = try await allDocuments(in: second)
        // Trend counts are kept by the clock hour, so only their totals survive a move in time.
        func normalized(_ documents: [DocumentSnapshot], _ anchor: Date) -> [String] {
            let text = AnchoredText(anchor: anchor)
            var times: [Date] = []
            return documents.filter { $0.path.collection != SearchIndex.trendHours }.map { document in
                text.normalized(document.path.description, times: &times) + " "
                    + String(describing: text.normalized(.object(document.data), times: &times))
            }.sorted()
        }
        let normalizedA = normalized(a, Self.now)
        #expect(normalizedA.count > 300)
        #expect(normalizedA == normalized(b, Self.now.addingTimeInterval(shift)))
        #expect(
            a.filter { $0.path.collection == Collections.tweets }.map(\.documentID)
                != b.filter { $0.path.collection == Collections.tweets }.map(\.documentID), "IDs hold their time")
        func hashtagTotals(_ documents: [DocumentSnapshot]) -> [String: Int64] {
            var totals: [String: Int64] = [:]
            for hour in documents where hour.path.collection == SearchIndex.trendHours {
                for (tag, count) in SearchIndex.trendCounts(hour.data) { totals[tag, default: 0] += count.tweets }
            }
            return totals
        }
        #expect(!hashtagTotals(a).isEmpty)
        #expect(hashtagTotals(a) == hashtagTotals(b))
    }

    @Test func trendsRightAfterSeedingShowTheLastDaysHashtags() async throws {
        let store = try env.makeStore(directory: env.path("store"))
        let services = try env.makeServices(store: store)
        _ = try await DemoSeeder(store: services.store).seed(DemoSeeder.Options(users: 25, seed: 1, now: Self.now))
        let trends = try await services.tweets.fetchTrends(now: Self.now.addingTimeInterval(60))
        #expect(trends.trends.count >= 3)
        #expect(!trends.endsAtNewestHashtag, "the window of the last 24 hours has hashtags of its own")
    }

    /// Photos drawn by the seeder: half of the newest 40 tweets carry one, a few of the older
    /// ones too, each a kept photo with its thumbnail and alt text, as a post keeps them.
    @Test func aShareOfTheTweetsCarryPhotosTheSeederDrew() async throws {
        let (store, _) = try await seed(
            DemoSeeder.Options(users: 30, tweets: 400, seed: 3, now: Self.now), into: "photos")
        let tweets = try await documents(Collections.tweets, in: store).map {
            (id: $0.documentID, images: TweetImage.list($0.data["images"]))
        }
        let newest = tweets.sorted { $0.id > $1.id }
        #expect(newest.prefix(40).filter { $0.images != nil }.count == 20)
        let older = newest.dropFirst(40).filter { $0.images != nil }.count
        #expect((10...60).contains(older), "about one in 12 of the older 360: \(older)")
        var addresses: Set<String> = []
        for image in tweets.compactMap({ $0.images }).flatMap({ $0 }) {
            #expect(image.width == 480 && image.height == 320 && image.type == "image/png" && image.alt != nil)
            addresses.insert(image.sha256)
            let bytes = try #require(try await store.getBlob(image.sha256))
            #expect(try ImageIntake.check(bytes, file: "a demo photo").sha256 == image.sha256, "kept as post keeps it")
            let thumbnail = try #require(image.thumbnail)
            #expect(try await store.getBlob(thumbnail) != nil)
        }
        #expect(addresses.count > 1 && addresses.count <= DemoPictures.count, "a few pictures, shared")
        // The photos are drawn, not blank: each has more than a few colours.
        let pixels = DemoPictures.draw(0)
        var colours: Set<[UInt8]> = []
        for index in stride(from: 0, to: pixels.bytes.count, by: 3 * 97) {
            colours.insert(Array(pixels.bytes[index..<(index + 3)]))
        }
        #expect(colours.count > 20)
    }

    @Test func theSameSeedAndTimeGiveTheSameData() async throws {
        let (first, firstSummary) = try await seed(into: "first")
        let (second, secondSummary) = try await seed(into: "second")
        #expect(firstSummary == secondSummary)
        for collection in [Collections.users, Collections.tweets, Collections.credentials] {
            let a = try await documents(collection, in: first)
            let b = try await documents(collection, in: second)
            #expect(!a.isEmpty)
            #expect(a == b, "\(collection)")
        }
        #expect(
            try await first.collectionGroup(Collections.userLikes).getDocuments()
                == second.collectionGroup(Collections.userLikes).getDocuments())
        // Even the files match byte for byte, the photos' too.
        func files(_ folder: String) throws -> [String] {
            try FileManager.default.subpathsOfDirectory(atPath: env.path(folder)).filter { name in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: env.path("\(folder)/\(name)"), isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }.sorted()
        }
        let names = try files("first")
        #expect(names.contains { $0.hasPrefix("blobs/") })
        #expect(try files("second") == names)
        for name in names {
            #expect(
                try env.bytes(of: env.path("first/\(name)")) == env.bytes(of: env.path("second/\(name)")), "\(name)")
        }
    }

    /// The liked, retweeted and bookmarked pairs are the first values of this permutation: each
    /// value of the range comes exactly once, whatever the range's size and the key.
    @Test(arguments: [1, 2, 3, 1000, 4097, 65_535]) func thePermutationTakesEveryValueOnce(count: Int) {
        for key: UInt64 in [0, 7, .max] {
            let permutation = Permutation(count: UInt64(count), key: key)
            var seen = [Bool](repeating: false, count: count)
            for index in 0..<UInt64(count) {
                let value = Int(permutation(index))
                #expect(value < count && !seen[value], "\(count), key \(key): \(value) twice or out of range")
                if value < count { seen[value] = true }
            }
        }
        // Not the identity: the first draws of a large range are spread over it.
        let spread = Permutation(count: 1_000_000, key: 3)
        #expect((0..<10).map { spread(UInt64($0)) }.contains { $0 > 100_000 })
    }

    @Test func countersGoPastOneByte() {
        var counters = Counters(3)
        for _ in 0..<70_000 { counters.add(1) }
        for _ in 0..<255 { counters.add(2) }
        #expect(counters[0] == 0 && counters[1] == 70_000 && counters[2] == 255)
    }

    /// Terms with hundreds of tweets: the seed's buckets are full (64) but the newest, ordered,
    /// apart, and the term's `open` is its newest, as posts expect.
    @Test func seededBucketsAreApartAndOpenIsTheNewest() async throws {
        let (store, summary) = try await seed(DemoSeeder.Options(users: 8, tweets: 3000, seed: 3), into: "store")
        #expect(summary.tweets == 3000)
        let terms = try await store.collection(SearchIndex.terms).query.getDocuments()
        let busy = terms.filter { ($0.data["tweets"]?.integerValue ?? 0) > 200 }
        #expect(busy.count >= 3)
        for term in busy.prefix(5) {
            let name = term.documentID
            try await expectBucketsApartAndOpenNewest(name, store)
            let buckets = try await store.collection(SearchIndex.bucketsCollection(name)).order(by: "start")
                .getDocuments()
            #expect(buckets.dropLast().allSatisfy { SearchIndex.ids($0.data).count == SearchIndex.seedBucketSize })
        }
    }

    @Test func anotherSeedGivesOtherData() async throws {
        let (first, _) = try await seed(into: "first")
        var options = Self.options
        options.seed = 8
        let (second, _) = try await seed(options, into: "second")
        let a = try await documents(Collections.users, in: first).map(\.documentID)
        let b = try await documents(Collections.users, in: second).map(\.documentID)
        #expect(Set(a).isDisjoint(with: b))
    }

    @Test func theCountsMatchTheOptions() async throws {
        let (store, summary) = try await seed(into: "store")
        #expect(summary.users == 8)
        #expect(summary.tweets == 40)
        #expect(summary.likes == 30)
        #expect(summary.follows == 8 * 3)
        #expect(try await store.collection(Collections.users).query.count() == 8)
        #expect(try await store.collection(Collections.credentials).query.count() == 8)
        #expect(try await store.collection(Collections.tweets).query.count() == 40)
        #expect(
            try await store.collection(Collections.tweets).query.whereField("replyToId", isNotEqualTo: .null).count()
                == summary.replies)
        #expect(try await store.collectionGroup(Collections.userLikes).count() == 30)
        #expect(try await store.collectionGroup("user-following").count() == 24)
        #expect(try await store.collectionGroup("user-followers").count() == 24)
    }

    @Test func everyLikeCountEqualsItsUserLikes() async throws {
        let (store, _) = try await seed(into: "store")
        let likes = try await store.collectionGroup(Collections.userLikes).getDocuments()
        var counted: [String: Int64] = [:]
        for like in likes { counted[like.documentID, default: 0] += 1 }
        for tweet in try await documents(Collections.tweets, in: store) {
            #expect(tweet.data["likes"]?.integerValue ?? -1 == counted[tweet.documentID] ?? 0, "\(tweet.documentID)")
        }
        #expect(likes.allSatisfy { $0.data["tweetId"] == .string($0.documentID) })
    }

    @Test func everyCounterEqualsTheDocumentsItCountsAndEveryNotificationIsUnread() async throws {
        let (store, _) = try await seed(DemoSeeder.Options(users: 8, tweets: 200, seed: 11), into: "store")
        let tweets = try await documents(Collections.tweets, in: store)
        let retweets = try await documents(Collections.retweets, in: store)
        #expect(retweets.count == 20)
        var counted: [String: [String: Int64]] = [:]
        for retweet in retweets {
            counted["retweets", default: [:]][retweet.data["tweetId"]!.stringValue!, default: 0] += 1
        }
        for tweet in tweets {
            if let parent = tweet.data["replyToId"]?.stringValue {
                counted["replyCount", default: [:]][parent, default: 0] += 1
            }
            if let quoted = tweet.data["quoteId"]?.stringValue {
                counted["quotes", default: [:]][quoted, default: 0] += 1
            }
        }
        #expect(counted["quotes"] != nil, "some tweets quote others")
        for tweet in tweets {
            for field in ["retweets", "replyCount", "quotes"] {
                #expect(tweet.data[field]?.integerValue == counted[field]?[tweet.documentID] ?? 0, "\(field)")
            }
        }
        #expect(
            tweets.contains { $0.data["entities"]?.objectValue?["mentions"]?.arrayValue?.isEmpty == false },
            "some mention someone")
        let notifications = try await store.collectionGroup(Collections.notifications).getDocuments()
        #expect(!notifications.isEmpty)
        var perUser: [String: Int64] = [:]
        for notification in notifications {
            let uid = String(notification.path.collection.split(separator: "/")[1])
            #expect(notification.data["from"]?.stringValue != uid, "nobody is notified of their own actions")
            perUser[uid, default: 0] += 1
        }
        for state in try await documents(Collections.notificationState, in: store) {
            #expect(state.data["unread"]?.integerValue == perUser[state.documentID])
        }
        #expect(try await store.collectionGroup(Collections.bookmarks).getDocuments().count == 10)
    }

    @Test func seededTweetsAreFoundBySearchAndLeaveItWhenDeleted() async throws {
        let store = try env.makeStore(directory: env.path("store"))
        let services = try env.makeServices(store: store)
        // Anchored to the services' clock, so that a post comes after the seeded tweets.
        _ = try await DemoSeeder(store: services.store).seed(
            DemoSeeder.Options(users: 6, tweets: 400, seed: 5, now: env.clock.now))
        let found = try await services.tweets.search("the", limit: 200)
        #expect(found.count > SearchIndex.seedBucketSize, "more than one seeded bucket")
        #expect(found.allSatisfy { SearchTerms.words($0.caption).contains("the") })
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.id > $1.id }, "newest first")
        let before = try await store.getDocument(SearchIndex.termPath("the"))?.data["tweets"]?.integerValue
        let victim = found[found.count / 2]
        try await env.signIn(try #require(victim.user), in: services)
        try await services.tweets.deleteTweet(id: victim.id)
        let after = try await services.tweets.search("the", limit: 200)
        #expect(after.map(\.id) == found.map(\.id).filter { $0 != victim.id })
        #expect(
            try await store.getDocument(SearchIndex.termPath("the"))?.data["tweets"]?.integerValue
                == before.map { $0 - 1 })
        // A new post after the seeded buckets is found first.
        let posted = try await services.tweets.uploadTweet(caption: "the newest of all")
        #expect(try await services.tweets.search("the", limit: 1).first?.id == posted.id)
    }

    /// The benchmark's one-character query: the seeded captions must hold it, and search must find
    /// exactly the seeded tweets that do.
    @Test func seededTweetsAreFoundByOneCJKCharacterAndAKoreanWordWithoutItsParticle() async throws {
        let (store, _) = try await seed(
            DemoSeeder.Options(users: 6, tweets: 1000, likes: 0, follows: 0, seed: 5), into: "store")
        let services = try env.makeServices(store: store)
        let tweets = try await documents(Collections.tweets, in: store).map { try $0.data(as: TweetRecord.self) }
        // 서울 stands alone in some captions and before 에서 in others: both are found.
        for (query, held) in [("京", "京"), ("서울", "서울")] {
            let expected = tweets.filter { $0.caption.contains(held) }.map(\.id).sorted(by: >)
            #expect(!expected.isEmpty, "the seeded captions hold \(held)")
            let found = try await services.tweets.search(query, limit: 1000).map(\.id)
            #expect(found == expected, "\(query): \(Set(expected).subtracting(found).count) missed")
        }
    }

    @Test func everyHourOfTrendsCountsThatHoursTweetsWithEachHashtag() async throws {
        // Enough tweets that the hashtags span several hours.
        let (store, _) = try await seed(
            DemoSeeder.Options(users: 5, tweets: 400, likes: 0, follows: 0, seed: 3), into: "store")
        var expected: [String: [String: Int64]] = [:]
        for tweet in try await documents(Collections.tweets, in: store).map({ try $0.data(as: TweetRecord.self) }) {
            for tag in Set((tweet.entities?.hashtags ?? []).map(SearchTerms.fold)) {
                expected[SearchIndex.hour(tweet.timestamp), default: [:]][tag, default: 0] += 1
            }
        }
        #expect(expected.count > 3, "hashtags in several hours")
        var found: [String: [String: Int64]] = [:]
        for hour in try await documents(SearchIndex.trendHours, in: store) {
            found[hour.documentID] = SearchIndex.trendCounts(hour.data).mapValues(\.tweets)
        }
        #expect(found == expected)
    }

    @Test func everyFollowHasBothDocumentsAndNobodyFollowsThemselves() async throws {
        let (store, _) = try await seed(into: "store")
        let following = try await store.collectionGroup("user-following").getDocuments()
        for follow in following {
            let me = follow.path.collection.split(separator: "/")[1]
            #expect(me != follow.documentID)
            let mirror = DocumentPath(
                collection: "followers/\(follow.documentID)/user-followers", documentID: String(me))
            #expect(try await store.getDocument(mirror) != nil, "\(mirror)")
        }
    }

    @Test func seededDocumentsDecodeAndRepliesPointAtEarlierTweets() async throws {
        let (store, _) = try await seed(into: "store")
        let tweets = try await documents(Collections.tweets, in: store).map { try $0.data(as: TweetRecord.self) }
        let users = try await documents(Collections.users, in: store).map { try $0.data(as: User.self) }
        let byID = Dictionary(uniqueKeysWithValues: tweets.map { ($0.id, $0) })
        let uids = Set(users.map(\.id))
        for tweet in tweets {
            #expect(uids.contains(tweet.uid))
            if let parent = tweet.replyToId {
                #expect(try #require(byID[parent]).timestamp < tweet.timestamp)
            }
        }
    }

    @Test func theDemoPasswordLogsIntoASeededAccount() async throws {
        let (store, _) = try await seed(into: "store")
        let user = try #require(try await store.collection(Collections.users).query.limit(to: 1).getDocuments().first)
            .data(as: User.self)
        let auth = AuthService(store: store, session: SessionStore(path: env.sessionPath), storeName: env.path("store"))
        #expect(try await auth.login(.email(try #require(user.email)), password: DemoSeeder.demoPassword) == user)
    }

    @Test
    func seededUsernamesFollowTheUsernameRule() async throws {
        let (store, _) = try await seed(DemoSeeder.Options(users: 40, tweets: 0, seed: 1), into: "store")
        let users = try await documents(Collections.users, in: store).map { try $0.data(as: User.self) }
        for user in users {
            #expect((try? AuthService.normalizedUsername(user.username)) == user.username, "\(user.username)")
        }
    }

    @Test func aStoreWithUsersIsRefused() async throws {
        let (store, _) = try await seed(into: "store")
        let before = try env.bytes(of: env.path("store/journal.jsonl"))
        await #expect(throws: SeedError.storeNotEmpty) { try await DemoSeeder(store: store).seed(Self.options) }
        #expect(try env.bytes(of: env.path("store/journal.jsonl")) == before)
    }

    @Test
    func aUserRegisteredWhileSeedingIsNeverMixedWithDemoData() async throws {
        let directory = env.path("store")
        let store = InterleavingStore(try env.makeStore(directory: directory)) { [env] in
            let other = try env.makeStore(directory: directory)
            let user = User(id: "real", email: "real@example.com", username: "real", fullname: "Real Person")
            try await other.runTransaction {
                try $0.setData(from: user, at: DocumentPath(collection: "users", documentID: "real"))
            }
        }
        await #expect(throws: SeedError.storeNotEmpty) { try await DemoSeeder(store: store).seed(Self.options) }
        #expect(try await store.collection(Collections.users).query.count() == 1)
    }

    @Test func seededStatsMatchTheDocumentsTheyCount() async throws {
        let (store, _) = try await seed(into: "store")
        let services = try env.makeServices(store: store)
        for user in try await services.users.fetchUsers() {
            let stats = try await services.users.fetchStats(forUid: user.id)
            #expect(stats.following == 3)
            let following = try await store.collection("following/\(user.id)/user-following").query.getDocuments()
            let list = try await store.getDocuments([FollowingList.path(of: user.id), StatsCounter.path(of: user.id)])
            #expect(FollowingList.uids(list: list.first?.data, stats: list.last?.data) == following.map(\.documentID))
            #expect(try await store.collection("followers/\(user.id)/user-followers").query.count() == stats.followers)
            #expect(
                try await store.collection("tweets").whereField("uid", isEqualTo: .string(user.id)).count()
                    == stats.tweets)
        }
    }

    @Test(arguments: [
        DemoSeeder.Options(users: 0), DemoSeeder.Options(users: 3, follows: 3),
        DemoSeeder.Options(users: 2, tweets: 2, likes: 3), DemoSeeder.Options(users: 2, tweets: 0, likes: 1),
        DemoSeeder.Options(users: 2, tweets: -1),
    ])
    func impossibleOptionsAreRefused(_ options: DemoSeeder.Options) async throws {
        let store = try env.makeStore()
        let error = await #expect(throws: SeedError.self) { try await DemoSeeder(store: store).seed(options) }
        #expect(error?.errorDescription?.isEmpty == false)
        #expect(throws: SeedError.self) { try options.validate() }
        #expect(try await store.collection(Collections.users).query.count() == 0)
    }

    /// The estimates cover what was measured (92 MiB at 10k tweets, 186 MiB at 1M, 260 MiB at
    /// 10M; 31 GB of disk at 10M), and a seed larger than the memory or the disk there is is
    /// refused before anything is made.
    @Test func aSeedLargerThanTheMemoryOrDiskThereIsIsRefused() throws {
        let small = DemoSeeder.Options(users: 1000, tweets: 10_000, likes: 10_000, follows: 100)
        let large = DemoSeeder.Options(users: 1000, tweets: 1_000_000, likes: 1_000_000, follows: 100)
        let huge = DemoSeeder.Options(users: 10_000, tweets: 10_000_000, likes: 10_000_000, follows: 100)
        let mebibyte = 1_048_576.0
        #expect(small.estimatedPeakBytes >= 92 * mebibyte)
        #expect(large.estimatedPeakBytes >= 186 * mebibyte)
        #expect(huge.estimatedPeakBytes >= 260 * mebibyte && huge.estimatedPeakBytes <= 300 * mebibyte)
        let gibibyte = 1_073_741_824.0
        #expect(throws: SeedError.tooLargeForMemory(needed: large.estimatedPeakBytes, available: 0.1 * gibibyte)) {
            try large.validate(availableBytes: 0.1 * gibibyte)
        }
        try huge.validate(availableBytes: 1 * gibibyte)
        try large.validate(availableBytes: nil)
        // Disk: the store and the sort's runs.
        #expect(huge.estimatedDiskBytes >= 31e9)
        #expect(throws: SeedError.tooLargeForDisk(needed: huge.estimatedDiskBytes, available: 10 * gibibyte)) {
            try huge.validate(availableBytes: nil, availableDiskBytes: 10 * gibibyte)
        }
        try huge.validate(availableBytes: 24 * gibibyte, availableDiskBytes: 40 * gibibyte)
        #expect(throws: SeedError.tooManyFollows(users: 3)) {
            try DemoSeeder.Options(users: 3, follows: 3).validate(availableBytes: 24 * gibibyte)
        }
    }

    @Test func optionsDefaultInProportion() {
        let options = DemoSeeder.Options(users: 25)
        #expect(options.tweets == 250)
        #expect(options.likes == 250)
        #expect(options.follows == 10)
        #expect(DemoSeeder.Options(users: 3).follows == 2)
        #expect(DemoSeeder.Options(users: 1).follows == 0)
    }
}

/// Times in a store's text, as offsets from the time its data is anchored to, so that two stores
/// anchored to different times compare equal when they differ only by the move: timestamps, and
/// tweet and retweet IDs, whose first eight characters are their time.
struct AnchoredText {
    let anchor: Date

    /// `text` with each timestamp and each time-ordered ID (alone, or between `/` and `-`) made
    /// relative to the anchor; each time found is added to `times`.
    func normalized(_ text: String, times: inout [Date]) -> String {
        if let date = Timestamp.date(from: text) {
            times.append(date)
            return "T\(offset(date))"
        }
        return text.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.split(separator: "-", omittingEmptySubsequences: false).map { word in
                // A user's ID is random, so its first characters read as a time years away.
                guard word.utf8.count >= 20, let date = IDGenerator.time(ofCursor: String(word)),
                    abs(date.timeIntervalSince(anchor)) < 60 * 86_400
                else { return String(word) }
                times.append(date)
                return "ID\(offset(date))~" + word.suffix(12)
            }.joined(separator: "-")
        }.joined(separator: "/")
    }

    func normalized(_ value: JSONValue, times: inout [Date]) -> JSONValue {
        switch value {
        case .string(let text): .string(normalized(text, times: &times))
        case .array(let values): .array(values.map { normalized($0, times: &times) })
        case .object(let object):
            .object(JSONObject(object.map { ($0.key, normalized($0.value, times: &times)) }))
        default: value
        }
    }

    private func offset(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince(anchor) * 1000).rounded())
    }
}
