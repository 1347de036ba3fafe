import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct TweetServiceTests {
    let env: TestEnvironment
    let services: AppServices

    init() throws {
        env = try TestEnvironment()
        services = try env.makeServices()
    }

    private var tweets: TweetService { services.tweets }

    private func tweetPath(_ id: String) -> DocumentPath {
        DocumentPath(collection: Collections.tweets, documentID: id)
    }

    /// Writes a tweet document directly, bypassing the service's clock and checks.
    private func insertTweet(id: String, by user: User, at date: Date, likes: Int = 0) async throws {
        let record = TweetRecord(
            id: id, uid: user.id, caption: "tweet \(id)", likes: likes, timestamp: date, replyToId: nil)
        try await services.store.runTransaction { [path = tweetPath(id)] in try $0.setData(from: record, at: path) }
    }

    // MARK: Upload

    @Test func uploadStoresATrimmedTweetByTheSignedInUserAtTheStoreTime() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)  // Signing in is a write too: before the clock is set.
        let posted = Date(timeIntervalSince1970: 1_800_000_000.25)
        env.clock.set(posted)
        let tweet = try await services.tweets.uploadTweet(caption: "  hello world \n")

        #expect(tweet.caption == "hello world")
        #expect(tweet.uid == alice.id)
        #expect(tweet.likes == 0)
        #expect(Timestamp.string(from: tweet.timestamp) == "2027-01-15T08:00:00.250Z")
        #expect(tweet.replyToId == nil)
        #expect(tweet.user == alice)
        #expect(tweet.didLike == false)

        let stored = try #require(try await services.store.getDocument(tweetPath(tweet.id)))
        #expect(
            stored.data == [
                "uid": .string(alice.id), "caption": .string("hello world"), "likes": .integer(0),
                "timestamp": .string("2027-01-15T08:00:00.250Z"), "replyToId": .null,
                "entities": .object(["mentions": .array([]), "hashtags": .array([]), "urls": .array([])]),
                "replyCount": .integer(0), "retweets": .integer(0), "quotes": .integer(0),
            ])
    }

    @Test func aReplyRecordsTheTweetItAnswers() async throws {
        let alice = try await env.addUser("alice", to: services)
        let original = try await env.post("question?", as: alice, in: services)
        let reply = try await env.post("answer", as: alice, in: services, replyTo: original.id)
        #expect(reply.replyToId == original.id)
        #expect(reply.isReply)
        #expect(try await tweets.fetchTweet(withID: reply.id).replyToId == original.id)
    }

    @Test func replyingToAnUnknownTweetIsNotFoundAndWritesNothing() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        let before = try env.bytes(of: env.journalPath)
        await #expect(throws: TweetError.notFound("missing")) {
            try await tweets.uploadTweet(caption: "hi", replyTo: "missing")
        }
        #expect(try env.bytes(of: env.journalPath) == before)
    }

    @Test(arguments: ["", "   ", "\n\t \n"])
    func anEmptyCaptionIsRefused(_ caption: String) async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        await #expect(throws: TweetError.emptyCaption) { try await tweets.uploadTweet(caption: caption) }
        #expect(try await services.store.collection(Collections.tweets).query.count() == 0)
    }

    @Test func aCaptionOverTheLimitIsRefusedWithItsLength() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        let error = await #expect(throws: TweetError.captionTooLong(length: 281, limit: 280)) {
            try await tweets.uploadTweet(caption: String(repeating: "a", count: 281))
        }
        #expect(error?.errorDescription?.contains("281") == true)
        #expect(try await services.store.collection(Collections.tweets).query.count() == 0)
    }

    @Test(arguments: [String(repeating: "a", count: 280), "  " + String(repeating: "é", count: 280) + "\n"])
    func aCaptionAtTheLimitIsAccepted(_ caption: String) async throws {
        let alice = try await env.addUser("alice", to: services)
        let tweet = try await env.post(caption, as: alice, in: services)
        #expect(tweet.caption.count == 280)
    }

    @Test func postingNeedsASignedInUserWhoExists() async throws {
        await #expect(throws: AuthError.notSignedIn) { try await tweets.uploadTweet(caption: "hi") }
        let ghost = User(id: "ghost", email: "g@example.com", username: "ghost", fullname: "Ghost")
        try await env.signIn(ghost, in: services)
        await #expect(throws: AuthError.notSignedIn) { try await tweets.uploadTweet(caption: "hi") }
        #expect(try await services.store.collection(Collections.tweets).query.count() == 0)
    }

    // MARK: Reading

    @Test func fetchTweetsShowsTheNewestFirstUpToTheLimit() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        var posted: [Tweet] = []
        for index in 0..<5 {
            env.clock.advance(by: 60)
            posted.append(try await env.post("tweet \(index)", as: index.isMultiple(of: 2) ? alice : bob, in: services))
        }
        #expect(try await tweets.fetchTweets().map(\.id) == posted.reversed().map(\.id))
        #expect(try await tweets.fetchTweets(limit: 2).map(\.caption) == ["tweet 4", "tweet 3"])
    }

    @Test(arguments: StoreLayout.allCases, [1, 3, 4, 7, 20])
    func pagingWithBeforeShowsEveryTweetExactlyOnce(_ layout: StoreLayout, _ pageSize: Int) async throws {
        let services = try env.makeServices(layout)
        let tweets = services.tweets
        let alice = try await env.addUser("alice", to: services)
        var posted: [String] = []
        for index in 0..<7 { posted.append(try await env.post("tweet \(index)", as: alice, in: services).id) }
        var seen: [String] = []
        var before: String?
        for _ in 0..<10 {
            let page = try await tweets.fetchTweets(limit: pageSize, before: before)
            #expect(page.count <= pageSize)
            seen += page.map(\.id)
            guard page.count == pageSize, let last = page.last else { break }
            before = last.id
        }
        #expect(seen == posted.reversed())
    }

    @Test(arguments: StoreLayout.allCases)
    func pagingBreaksTimestampTiesByID(_ layout: StoreLayout) async throws {
        let services = try env.makeServices(layout)
        let tweets = services.tweets
        let alice = try await env.addUser("alice", to: services)
        let ids = ["m", "c", "x", "a", "u", "f", "z"]
        for id in ids {
            let record = TweetRecord(
                id: id, uid: alice.id, caption: id, likes: 0, timestamp: TestClock.start, replyToId: nil)
            try await services.store.runTransaction { [path = tweetPath(id)] in try $0.setData(from: record, at: path) }
        }
        let first = try await tweets.fetchTweets(limit: 3)
        let second = try await tweets.fetchTweets(limit: 3, before: first.last?.id)
        let third = try await tweets.fetchTweets(limit: 3, before: second.last?.id)
        #expect(first.map(\.id) + second.map(\.id) + third.map(\.id) == ids.sorted().reversed())
    }

    @Test func pagingBeforeAnUnknownTweetIsNotFound() async throws {
        await #expect(throws: TweetError.notFound("gone")) { try await tweets.fetchTweets(before: "gone") }
    }

    @Test func aUsersTweetsTabLeavesOutRepliesAndOtherUsers() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let first = try await env.post("first", as: alice, in: services)
        try await env.post("reply", as: alice, in: services, replyTo: first.id)
        try await env.post("bob's", as: bob, in: services)
        try await env.post("second", as: alice, in: services)
        #expect(try await tweets.fetchTweets(forUid: alice.id).map(\.caption) == ["second", "first"])
        #expect(try await tweets.fetchTweets(forUid: alice.id, limit: 1).map(\.caption) == ["second"])
    }

    @Test func aUsersRepliesTabHasOnlyTheirReplies() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let first = try await env.post("first", as: alice, in: services)
        try await env.post("alice replies", as: alice, in: services, replyTo: first.id)
        try await env.post("bob replies", as: bob, in: services, replyTo: first.id)
        try await env.post("alice again", as: alice, in: services, replyTo: first.id)
        #expect(try await tweets.fetchReplies(forUid: alice.id).map(\.caption) == ["alice again", "alice replies"])
        #expect(try await tweets.fetchReplies(forUid: bob.id).map(\.caption) == ["bob replies"])
    }

    @Test func theRepliesToATweetReadOldestFirst() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let first = try await env.post("first", as: alice, in: services)
        let other = try await env.post("other", as: alice, in: services)
        try await env.post("one", as: bob, in: services, replyTo: first.id)
        try await env.post("elsewhere", as: bob, in: services, replyTo: other.id)
        try await env.post("two", as: alice, in: services, replyTo: first.id)
        let thread = try await tweets.fetchReplies(toTweet: first.id)
        #expect(thread.map(\.caption) == ["one", "two"])
        #expect(thread.map(\.user?.username) == ["bob", "alice"])
    }

    @Test func theFollowingFeedHasOnlyFollowedUsersAndYourOwn() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let carol = try await env.addUser("carol", to: services)
        try await env.post("alice 1", as: alice, in: services)
        try await env.post("bob 1", as: bob, in: services)
        try await env.post("carol 1", as: carol, in: services)
        try await env.post("bob 2", as: bob, in: services)
        try await env.signIn(alice, in: services)
        try await services.users.follow(uid: bob.id)
        #expect(try await tweets.fetchFollowingTweets().map(\.caption) == ["bob 2", "bob 1", "alice 1"])
        #expect(try await tweets.fetchFollowingTweets(limit: 2).map(\.caption) == ["bob 2", "bob 1"])
        try await env.signIn(carol, in: services)
        #expect(try await tweets.fetchFollowingTweets().map(\.caption) == ["carol 1"])
        try await services.auth.signOutAll()
        await #expect(throws: AuthError.notSignedIn) { try await tweets.fetchFollowingTweets() }
    }

    @Test func everyTweetCarriesItsAuthor() async throws {
        var authors: [User] = []
        for name in ["alice", "bob", "carol"] {
            let user = try await env.addUser(name, to: services)
            authors.append(user)
            try await env.post("by \(name)", as: user, in: services)
        }
        let page = try await tweets.fetchTweets()
        #expect(page.count == 3)
        for tweet in page {
            #expect(tweet.user?.asSeenByOthers == authors.first { $0.id == tweet.uid }?.asSeenByOthers)
            #expect(tweet.caption == "by \(tweet.user?.username ?? "?")")
        }
    }

    @Test func fetchTweetWithAnUnknownIDIsNotFound() async throws {
        await #expect(throws: TweetError.notFound("nope")) { try await tweets.fetchTweet(withID: "nope") }
    }

    @Test func aDamagedTweetFailsThePageWithAnErrorNamingIt() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.post("fine", as: alice, in: services)
        let damaged = try await env.post("damaged", as: alice, in: services)
        try await services.store.runTransaction { [path = tweetPath(damaged.id)] in
            $0.updateData(["likes": .value(.string("lots"))], at: path)
        }
        let error = await #expect(throws: StoreError.self) { try await tweets.fetchTweets() }
        guard case .undecodable(let path, let reason)? = error else {
            Issue.record("expected undecodable, got \(String(describing: error))")
            return
        }
        #expect(path == "tweets/\(damaged.id)")
        #expect(reason.contains("likes"))
    }

    // MARK: Likes

    @Test func likingCountsTheLikeAndRecordsIt() async throws {
        let alice = try await env.addUser("alice", to: services)
        let tweet = try await env.post("like me", as: alice, in: services)
        let liked = try await tweets.likeTweet(id: tweet.id)
        #expect(liked.tweet.likes == 1)
        #expect(liked.tweet.didLike == true)
        #expect(liked.changed)
        #expect(try await tweets.didLike(tweetID: tweet.id))
        let like = try await services.store.getDocument(
            DocumentPath(collection: "users/\(alice.id)/user-likes", documentID: tweet.id))
        #expect(like?.data["tweetId"] == .string(tweet.id))
        #expect(like?.data["timestamp"]?.stringValue.flatMap(Timestamp.date(from:)) != nil)
    }

    @Test func likingTwiceCountsOnce() async throws {
        let alice = try await env.addUser("alice", to: services)
        let tweet = try await env.post("like me", as: alice, in: services)
        try await tweets.likeTweet(id: tweet.id)
        let again = try await tweets.likeTweet(id: tweet.id)
        #expect(again.tweet.likes == 1)
        #expect(!again.changed)
        #expect(try await services.store.collection("users/\(alice.id)/user-likes").query.count() == 1)
    }

    @Test func unlikingRemovesTheLike() async throws {
        let alice = try await env.addUser("alice", to: services)
        let tweet = try await env.post("like me", as: alice, in: services)
        try await tweets.likeTweet(id: tweet.id)
        let unliked = try await tweets.unlikeTweet(id: tweet.id)
        #expect(unliked.tweet.likes == 0)
        #expect(unliked.tweet.didLike == false)
        #expect(unliked.changed)
        #expect(try await !tweets.didLike(tweetID: tweet.id))
        #expect(try await services.store.collection("users/\(alice.id)/user-likes").query.count() == 0)
    }

    @Test func unlikingATweetYouDoNotLikeChangesNothing() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let tweet = try await env.post("like me", as: alice, in: services)
        try await env.signIn(bob, in: services)
        try await tweets.likeTweet(id: tweet.id)
        try await env.signIn(alice, in: services)
        let before = try env.bytes(of: env.journalPath)
        let after = try await tweets.unlikeTweet(id: tweet.id)
        #expect(after.tweet.likes == 1)
        #expect(!after.changed)
        #expect(try env.bytes(of: env.journalPath) == before)
    }

    @Test func theLikeCountNeverGoesBelowZero() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        try await insertTweet(id: "t", by: alice, at: TestClock.start, likes: 0)
        try await services.store.setData(
            ["tweetId": .string("t"), "timestamp": .string("2026-11-30T09:41:00.000Z")],
            at: DocumentPath(collection: "users/\(alice.id)/user-likes", documentID: "t"))
        #expect(try await tweets.unlikeTweet(id: "t").tweet.likes == 0)
    }

    @Test func likingOrUnlikingAnUnknownTweetIsNotFound() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        await #expect(throws: TweetError.notFound("nope")) { try await tweets.likeTweet(id: "nope") }
        await #expect(throws: TweetError.notFound("nope")) { try await tweets.unlikeTweet(id: "nope") }
        #expect(try await services.store.collectionGroup(Collections.userLikes).count() == 0)
    }

    @Test func likingNeedsASignedInUser() async throws {
        let alice = try await env.addUser("alice", to: services)
        let tweet = try await env.post("like me", as: alice, in: services)
        try await services.auth.signOut()
        await #expect(throws: AuthError.notSignedIn) { try await tweets.likeTweet(id: tweet.id) }
        await #expect(throws: AuthError.notSignedIn) { try await tweets.didLike(tweetID: tweet.id) }
        #expect(try await tweets.fetchTweet(withID: tweet.id).didLike == nil)
    }

    @Test func likeCountsAlwaysEqualTheirUserLikes() async throws {
        var people: [User] = []
        for name in ["ann", "ben", "cy", "dee"] { people.append(try await env.addUser(name, to: services)) }
        var posted: [Tweet] = []
        for (index, person) in people.enumerated() {
            posted.append(try await env.post("tweet \(index)", as: person, in: services))
        }
        var random = SplitMix64(seed: 3)
        for _ in 0..<60 {
            let person = people[Int(random.next() % 4)]
            let tweet = posted[Int(random.next() % 4)]
            try await env.signIn(person, in: services)
            if random.next() % 3 == 0 {
                try await tweets.unlikeTweet(id: tweet.id)
            } else {
                try await tweets.likeTweet(id: tweet.id)
            }
        }
        var total = 0
        for tweet in posted {
            let likes = try await tweets.fetchTweet(withID: tweet.id).likes
            let records = try await services.store.collectionGroup(Collections.userLikes)
                .whereField("tweetId", isEqualTo: .string(tweet.id)).count()
            #expect(likes == records)
            total += likes
        }
        #expect(total > 0)
    }

    @Test func theSignedInUsersLikesShowOnEveryPage() async throws {
        let alice = try await env.addUser("alice", to: services)
        let one = try await env.post("one", as: alice, in: services)
        let two = try await env.post("two", as: alice, in: services)
        try await tweets.likeTweet(id: one.id)
        let page = try await tweets.fetchTweets()
        #expect(page.first { $0.id == one.id }?.didLike == true)
        #expect(page.first { $0.id == two.id }?.didLike == false)
        try await services.auth.signOut()
        #expect(try await tweets.fetchTweets().allSatisfy { $0.didLike == nil })
    }

    @Test func theLikesTabShowsTheNewestLikeFirst() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let first = try await env.post("first", as: bob, in: services)
        let second = try await env.post("second", as: bob, in: services)
        let third = try await env.post("third", as: bob, in: services)
        try await env.signIn(alice, in: services)
        for tweet in [first, third, second] {
            env.clock.advance(by: 5)
            try await tweets.likeTweet(id: tweet.id)
        }
        let liked = try await tweets.fetchLikedTweets(forUid: alice.id)
        #expect(liked.map(\.caption) == ["second", "third", "first"])
        #expect(liked.allSatisfy { $0.didLike == true && $0.user == bob.asSeenByOthers })

        let page = try await tweets.fetchLikedTweets(forUid: alice.id, limit: 2)
        let rest = try await tweets.fetchLikedTweets(forUid: alice.id, limit: 2, before: page.last?.id)
        #expect(page.map(\.caption) + rest.map(\.caption) == ["second", "third", "first"])
        #expect(try await tweets.fetchLikedTweets(forUid: bob.id).isEmpty)
    }

    // MARK: Delete

    @Test func deletingYourTweetRemovesItAndEveryLikeOfIt() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let doomed = try await env.post("doomed", as: alice, in: services)
        let kept = try await env.post("kept", as: alice, in: services)
        for user in [alice, bob] {
            try await env.signIn(user, in: services)
            try await tweets.likeTweet(id: doomed.id)
            try await tweets.likeTweet(id: kept.id)
        }
        try await env.signIn(alice, in: services)
        try await tweets.deleteTweet(id: doomed.id)

        await #expect(throws: TweetError.notFound(doomed.id)) { try await tweets.fetchTweet(withID: doomed.id) }
        let likes = try await services.store.collectionGroup(Collections.userLikes).getDocuments()
        #expect(likes.map { $0.data["tweetId"] }.allSatisfy { $0 == .string(kept.id) })
        #expect(likes.count == 2)
        #expect(try await tweets.fetchLikedTweets(forUid: bob.id).map(\.id) == [kept.id])
        #expect(try await tweets.fetchTweet(withID: kept.id).likes == 2)
    }

    @Test func deletingSomeoneElsesTweetIsRefused() async throws {
        let alice = try await env.addUser("alice", to: services)
        let bob = try await env.addUser("bob", to: services)
        let tweet = try await env.post("mine", as: alice, in: services)
        try await env.signIn(bob, in: services)
        try await tweets.likeTweet(id: tweet.id)
        await #expect(throws: TweetError.notOwner(tweet.id)) { try await tweets.deleteTweet(id: tweet.id) }
        #expect(try await tweets.fetchTweet(withID: tweet.id).likes == 1)
        #expect(try await tweets.didLike(tweetID: tweet.id))
    }

    @Test func deletingAnUnknownTweetIsNotFound() async throws {
        let alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
        await #expect(throws: TweetError.notFound("nope")) { try await tweets.deleteTweet(id: "nope") }
    }
}
