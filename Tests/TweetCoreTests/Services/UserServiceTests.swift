import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct UserServiceTests {
    let env: TestEnvironment
    let services: AppServices

    init() throws {
        env = try TestEnvironment()
        services = try env.makeServices()
    }

    private var users: UserService { services.users }

    private func exists(_ path: String) async throws -> Bool {
        try await services.store.getDocument(try #require(DocumentPath(path))) != nil
    }

    // MARK: Fetching

    @Test func fetchUserWithUidFindsTheUser() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.addUser("bob", to: services)
        #expect(try await users.fetchUser(withUid: alice.id) == alice.asSeenByOthers)
    }

    @Test func fetchingAnUnknownUserIsNotFound() async throws {
        try await env.addUser("alice", to: services)
        await #expect(throws: UserError.notFound("nope")) { try await users.fetchUser(withUid: "nope") }
        await #expect(throws: UserError.notFound("@nobody")) { try await users.fetchUser(withUsername: "@Nobody") }
        await #expect(throws: UserError.notFound("nobody")) { try await users.fetchUser(matching: "nobody") }
        await #expect(throws: UserError.notFound("@nobody")) { try await users.fetchUser(matching: "@nobody") }
    }

    @Test(arguments: ["alice", "@alice", "ALICE", "@Alice"])
    func fetchUserWithUsernameIgnoresTheAtSignAndCase(_ name: String) async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.addUser("alicia", to: services)
        #expect(try await users.fetchUser(withUsername: name) == alice.asSeenByOthers)
    }

    @Test func fetchUserMatchingTakesAUidAnAtUsernameOrABareUsername() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        #expect(try await users.fetchUser(matching: alice.id) == alice.asSeenByOthers)
        #expect(try await users.fetchUser(matching: "@bob") == bob.asSeenByOthers)
        #expect(try await users.fetchUser(matching: "bob") == bob.asSeenByOthers)
    }

    @Test func fetchUsersWithUidsReadsTheKnownOnes() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let found = try await users.fetchUsers(withUids: [alice.id, bob.id, alice.id, "ghost"])
        #expect(found == [alice.id: alice.asSeenByOthers, bob.id: bob.asSeenByOthers])
        #expect(try await users.fetchUsers(withUids: []) == [:])
    }

    @Test func fetchUsersListsEveryoneByUsername() async throws {
        for name in ["carol", "alice", "bob"] { try await env.addUser(name, to: services) }
        #expect(try await users.fetchUsers().map(\.username) == ["alice", "bob", "carol"])
        #expect(try await users.fetchUsers(limit: 2).map(\.username) == ["alice", "bob"])
    }

    // MARK: Search

    @Test(arguments: [
        ("ali", ["alice", "dalia"]), ("ALI", ["alice", "dalia"]), ("@ali", ["alice", "dalia"]),
        ("liddell", ["alice"]), ("Builder", ["bob"]), ("  bob ", ["bob"]), ("zzz", []),
        ("", ["alice", "bob", "dalia"]),
    ])
    func searchMatchesUsernameOrFullNameIgnoringCase(_ text: String, _ expected: [String]) async throws {
        try await env.addUser("bob", fullname: "Bob the Builder", to: services)
        try await env.addUser("alice", fullname: "Alice Liddell", to: services)
        try await env.addUser("dalia", fullname: "Dalia Rose", to: services)
        #expect(try await users.searchUsers(matching: text).map(\.username) == expected)
    }

    @Test func searchRespectsTheLimit() async throws {
        for name in ["ann1", "ann2", "ann3"] { try await env.addUser(name, to: services) }
        #expect(try await users.searchUsers(matching: "ann", limit: 2).map(\.username) == ["ann1", "ann2"])
    }

    // MARK: Profile

    @Test func updateProfileSetsTrimmedFieldsAndKeepsTheOthers() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        let updated = try await users.updateProfile(
            ProfileChanges(bio: "  Curious.  ", location: "Oxford", website: "https://alice.example"))
        #expect(updated.bio == "Curious.")
        #expect(updated.location == "Oxford")
        #expect(updated.website == "https://alice.example")
        #expect(updated.fullname == alice.fullname)
        #expect(try await users.fetchUser(withUid: alice.id) == updated)

        let renamed = try await users.updateProfile(ProfileChanges(fullname: "Alice L."))
        #expect(renamed.fullname == "Alice L.")
        #expect(renamed.bio == "Curious.")
    }

    @Test func anEmptyStringClearsAField() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        _ = try await users.updateProfile(
            ProfileChanges(
                bio: "bio", location: "here", website: "http://a.example", profileImageUrl: "https://a.example/p.png"))
        let cleared = try await users.updateProfile(
            ProfileChanges(bio: "", location: "", website: "", profileImageUrl: ""))
        #expect(cleared.bio == nil)
        #expect(cleared.location == nil)
        #expect(cleared.website == nil)
        #expect(cleared.profileImageUrl == nil)
    }

    @Test(arguments: [
        ProfileChanges(website: "ftp://alice.example"), ProfileChanges(website: "alice.example"),
        ProfileChanges(website: "javascript:alert(1)"), ProfileChanges(website: "https://"),
        ProfileChanges(profileImageUrl: "file:///etc/passwd"),
        ProfileChanges(bio: String(repeating: "b", count: 161)),
        ProfileChanges(location: String(repeating: "l", count: 31)),
    ])
    func invalidProfileFieldsAreRejectedAndChangeNothing(_ changes: ProfileChanges) async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        let before = try env.bytes(of: env.journalPath)
        let error = await #expect(throws: UserError.self) { try await users.updateProfile(changes) }
        if case .invalidProfile(let reason)? = error {
            #expect(!reason.isEmpty)
        } else {
            Issue.record("expected invalidProfile, got \(String(describing: error))")
        }
        #expect(try env.bytes(of: env.journalPath) == before)
    }

    @Test(arguments: ["", "   ", String(repeating: "n", count: 51)])
    func anEmptyOrOverlongFullNameIsRejected(_ fullname: String) async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        await #expect(throws: UserError.invalidProfile("the full name must have 1 to 50 characters")) {
            try await users.updateProfile(ProfileChanges(fullname: fullname, bio: "changed"))
        }
        let stored = try await users.fetchUser(withUid: alice.id)
        #expect(stored.fullname == "Alice")
        #expect(stored.bio == nil)
    }

    @Test func updatingTheProfileNeedsASignedInUser() async throws {
        await #expect(throws: AuthError.notSignedIn) { try await users.updateProfile(ProfileChanges(bio: "x")) }
    }

    // MARK: Follows

    @Test func followWritesBothDocumentsAndUnfollowRemovesBoth() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        try await env.signIn(alice, in: services)
        let following = "following/\(alice.id)/user-following/\(bob.id)"
        let follower = "followers/\(bob.id)/user-followers/\(alice.id)"

        try await users.follow(uid: bob.id)
        #expect(try await exists(following))
        #expect(try await exists(follower))
        #expect(try await !exists("following/\(bob.id)/user-following/\(alice.id)"))
        #expect(try await users.isFollowing(uid: bob.id))

        try await users.unfollow(uid: bob.id)
        #expect(try await !exists(following))
        #expect(try await !exists(follower))
        #expect(try await !users.isFollowing(uid: bob.id))
    }

    @Test func followingTwiceCountsOnce() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        try await env.signIn(alice, in: services)
        try await users.follow(uid: bob.id)
        try await users.follow(uid: bob.id)
        #expect(try await users.fetchStats(forUid: alice.id).following == 1)
        #expect(try await users.fetchStats(forUid: bob.id).followers == 1)
        #expect(try await users.followingUids(of: alice.id) == [bob.id])
        try await users.unfollow(uid: bob.id)
        try await users.unfollow(uid: bob.id)  // Unfollowing someone not followed changes nothing.
        #expect(try await users.fetchStats(forUid: bob.id).followers == 0)
    }

    @Test func followingYourselfIsRefused() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        await #expect(throws: UserError.cannotFollowSelf) { try await users.follow(uid: alice.id) }
        await #expect(throws: UserError.cannotFollowSelf) { try await users.unfollow(uid: alice.id) }
        #expect(try await users.fetchStats(forUid: alice.id) == UserStats(following: 0, followers: 0, tweets: 0))
    }

    @Test func followingAnUnknownUserIsNotFoundAndWritesNothing() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        let before = try env.bytes(of: env.journalPath)
        await #expect(throws: UserError.notFound("ghost")) { try await users.follow(uid: "ghost") }
        await #expect(throws: UserError.notFound("ghost")) { try await users.unfollow(uid: "ghost") }
        #expect(try env.bytes(of: env.journalPath) == before)
    }

    @Test func followingNeedsASignedInUser() async throws {
        let bob = try await env.addUser("bob", to: services)
        await #expect(throws: AuthError.notSignedIn) { try await users.follow(uid: bob.id) }
        #expect(try await !users.isFollowing(uid: bob.id))
    }

    @Test func statsCountFollowsAndTweets() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let carol = try await env.addUser("carol", to: services)
        try await env.signIn(alice, in: services)
        try await users.follow(uid: bob.id)
        try await users.follow(uid: carol.id)
        try await env.signIn(bob, in: services)
        try await users.follow(uid: alice.id)
        let first = try await env.post("one", as: alice, in: services)
        try await env.post("two", as: alice, in: services)
        try await env.post("a reply", as: alice, in: services, replyTo: first.id)
        try await env.post("bob's", as: bob, in: services)

        #expect(try await users.fetchStats(forUid: alice.id) == UserStats(following: 2, followers: 1, tweets: 3))
        #expect(try await users.fetchStats(forUid: bob.id) == UserStats(following: 1, followers: 1, tweets: 1))
        #expect(try await users.fetchStats(forUid: carol.id) == UserStats(following: 0, followers: 1, tweets: 0))
    }

    /// The stats of `uid`, counted from the documents rather than read from its counters.
    private func countedStats(of uid: String) async throws -> UserStats {
        let store = services.store
        return UserStats(
            following: try await store.collection("following/\(uid)/user-following").query.count(),
            followers: try await store.collection("followers/\(uid)/user-followers").query.count(),
            tweets: try await store.collection("tweets").whereField("uid", isEqualTo: .string(uid)).count())
    }

    @Test(arguments: [true, false])
    func statsStayEqualToTheDocumentsTheyCount(registered: Bool) async throws {
        var people: [User] = []
        for name in ["ann", "ben", "cy"] {
            // Users written directly have no counters yet, like those of a store made before them.
            people.append(
                registered ? try await env.registerUser(name, in: services) : try await env.addUser(name, to: services))
        }
        var random = SplitMix64(seed: registered ? 5 : 6)
        var posted: [Tweet] = []
        for _ in 0..<60 {
            let me = people[Int(random.next() % 3)]
            let other = people[Int(random.next() % 3)]
            try await env.signIn(me, in: services)
            switch (random.next() % 6, me.id == other.id) {
            case (0, false), (1, false): try await users.follow(uid: other.id)
            case (2, false): try await users.unfollow(uid: other.id)
            case (0...2, true): continue
            case (3, _): posted.append(try await services.tweets.uploadTweet(caption: "post"))
            case (4, _):
                if let parent = posted.randomElement(using: &random) {
                    posted.append(try await services.tweets.uploadTweet(caption: "reply", replyTo: parent.id))
                }
            default:
                if let index = posted.indices.first(where: { posted[$0].uid == me.id }) {
                    try await services.tweets.deleteTweet(id: posted.remove(at: index).id)
                }
            }
            for person in people {
                #expect(
                    try await users.fetchStats(forUid: person.id) == countedStats(of: person.id), "\(person.username)")
            }
        }
    }

    // MARK: The following list

    /// Whom `uid` follows as the collection holds it (in ID order, which is byte order).
    private func followingInCollection(of uid: String) async throws -> [String] {
        try await services.store.collection("following/\(uid)/user-following").query.getDocuments().map(\.documentID)
    }

    /// The uids of `uid`'s following list, and whether their stats mark it kept.
    private func followingList(of uid: String) async throws -> (uids: [String]?, marked: Bool) {
        let list = try await services.store.getDocument(FollowingList.path(of: uid))
        let stats = try await services.store.getDocument(StatsCounter.path(of: uid))
        return (
            list?.data["uids"]?.arrayValue.map { $0.compactMap(\.stringValue) },
            stats?.data[FollowingList.mark] == .bool(true)
        )
    }

    @Test(arguments: [true, false])
    func theFollowingListStaysEqualToTheFollows(registered: Bool) async throws {
        var people: [User] = []
        for name in ["ann", "ben", "cy", "dee"] {
            people.append(
                registered ? try await env.registerUser(name, in: services) : try await env.addUser(name, to: services))
        }
        var random = SplitMix64(seed: registered ? 11 : 12)
        var acted: Set<String> = []
        for _ in 0..<60 {
            let me = people[Int(random.next() % 4)]
            let other = people[Int(random.next() % 4)]
            guard me.id != other.id else { continue }
            try await env.signIn(me, in: services)
            // A follow or unfollow that changes nothing writes nothing, the list included.
            let changed =
                random.next() % 3 == 0
                ? try await users.unfollow(uid: other.id).changed : try await users.follow(uid: other.id).changed
            if changed { acted.insert(me.id) }
            for person in people {
                let counted = try await followingInCollection(of: person.id)
                #expect(try await users.followingUids(of: person.id) == counted, "\(person.username)")
                if acted.contains(person.id) {
                    let list = try await followingList(of: person.id)
                    #expect(list.uids == counted, "\(person.username)")
                    #expect(list.marked)
                }
            }
        }
        #expect(acted.count == 4)
    }

    @Test func followingUidsReadTheListNotTheCollection() async throws {
        let counting = CountingDocumentStore(try env.makeStore())
        let services = try env.makeServices(store: counting)
        let alice = try await env.addUser("alice", to: services)
        let followed = [try await env.addUser("bob", to: services), try await env.addUser("carol", to: services)]
        try await env.signIn(alice, in: services)
        for user in followed { try await services.users.follow(uid: user.id) }
        counting.reset()
        let uids = try await services.users.followingUids(of: alice.id)
        #expect(uids == followed.map(\.id).sorted(by: ByteOrder.precedes))
        #expect(counting.counts == CountingDocumentStore.Counts(getDocuments: 1), "one batch: the list and the stats")
    }

    @Test func aListThatAnOlderBinaryLeftBehindIsNotRead() async throws {
        let alice = try await env.addUser("alice", to: services)
        let (bob, carol, dave, erin) = (
            try await env.addUser("bob", to: services), try await env.addUser("carol", to: services),
            try await env.addUser("dave", to: services), try await env.addUser("erin", to: services)
        )
        try await env.signIn(alice, in: services)
        try await users.follow(uid: bob.id)
        try await users.follow(uid: carol.id)
        // A binary from before the list follows dave and unfollows bob: the count stays 2, the list is
        // stale, and its stats document is written whole, without the mark.
        try await services.store.runTransaction { transaction in
            transaction.setData(
                ["timestamp": .string("2026-01-01T00:00:00.000Z")],
                at: try #require(
                    DocumentPath("following/\(alice.id)/user-following/\(dave.id)")))
            transaction.deleteDocument(try #require(DocumentPath("following/\(alice.id)/user-following/\(bob.id)")))
            transaction.setData(
                StatsCounter.fields(UserStats(following: 2, followers: 0, tweets: 0)),
                at: StatsCounter.path(of: alice.id))
        }
        let expected = [carol.id, dave.id].sorted(by: ByteOrder.precedes)
        #expect(try await followingList(of: alice.id).uids == [bob.id, carol.id].sorted(by: ByteOrder.precedes))
        #expect(try await users.followingUids(of: alice.id) == expected)
        // The next follow builds the list again from the collection.
        try await users.follow(uid: erin.id)
        let rebuilt = try await followingList(of: alice.id)
        #expect(rebuilt.uids == (expected + [erin.id]).sorted(by: ByteOrder.precedes))
        #expect(rebuilt.marked)
        #expect(try await users.followingUids(of: alice.id) == rebuilt.uids)
    }

    /// Ways a list can be wrong, with the stats as a follow left them.
    static let damagedLists: [JSONObject] = [
        ["uids": .array([])], ["uids": .string("bob")], ["uids": .array([.string("a"), .integer(7)])],
        ["uids": .array([.string("a"), .string("b/c")])], ["uids": .array([.string("a"), .string("")])], [:],
        // As many as the counters say, but out of order, or one twice.
        ["uids": .array([.string("b"), .string("a")])], ["uids": .array([.string("a"), .string("a")])],
    ]

    @Test(arguments: damagedLists)
    func aDamagedListIsNotReadAndTheNextFollowRepairsIt(_ damaged: JSONObject) async throws {
        let alice = try await env.addUser("alice", to: services)
        let (bob, carol) = (try await env.addUser("bob", to: services), try await env.addUser("carol", to: services))
        try await env.signIn(alice, in: services)
        try await users.follow(uid: bob.id)
        try await users.follow(uid: carol.id)
        try await services.store.runTransaction { $0.setData(damaged, at: FollowingList.path(of: alice.id)) }
        #expect(try await users.followingUids(of: alice.id) == [bob.id, carol.id].sorted(by: ByteOrder.precedes))
        try await users.unfollow(uid: carol.id)
        #expect(try await followingList(of: alice.id).uids == [bob.id])
        #expect(try await users.followingUids(of: alice.id) == [bob.id])
    }

    @Test func aMarkThatIsNotTrueIsNotTrusted() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        try await env.signIn(alice, in: services)
        try await users.follow(uid: bob.id)
        // A list naming someone else, marked with a string rather than true.
        try await services.store.runTransaction { transaction in
            transaction.setData(FollowingList.fields(["someone"]), at: FollowingList.path(of: alice.id))
            transaction.updateData([FollowingList.mark: .value(.string("true"))], at: StatsCounter.path(of: alice.id))
        }
        #expect(try await users.followingUids(of: alice.id) == [bob.id])
    }

    @Test func pastTheMaximumTheListIsDroppedAndTheCollectionRead() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        // Alice follows as many as a list holds (written directly: users need not exist for this).
        let many = (0..<FollowingList.maximumCount).map { String(format: "f%05d", $0) }
        try await services.store.runTransaction { transaction in
            for uid in many {
                transaction.setData(
                    ["timestamp": .string("2026-01-01T00:00:00.000Z")],
                    at: DocumentPath(collection: "following/\(alice.id)/user-following", documentID: uid))
            }
            var stats = StatsCounter.fields(UserStats(following: many.count, followers: 0, tweets: 0))
            stats[FollowingList.mark] = .bool(true)
            transaction.setData(stats, at: StatsCounter.path(of: alice.id))
            transaction.setData(FollowingList.fields(many), at: FollowingList.path(of: alice.id))
        }
        try await env.signIn(alice, in: services)
        try await users.follow(uid: bob.id)
        #expect(try await followingList(of: alice.id) == (nil, false))
        let all = try await users.followingUids(of: alice.id)
        #expect(all.count == many.count + 1)
        #expect(all.contains(bob.id))
        try await users.unfollow(uid: bob.id)
        #expect(try await followingList(of: alice.id) == (many, true))
    }
}
