import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// Retweets, quotes and bookmarks: counts kept in the same transaction, timelines that show a
/// tweet once, and deletion that takes everything hanging on a tweet with it.
struct RetweetAndBookmarkTests {
    let env: TestEnvironment
    let services: AppServices
    let ada: User
    let bob: User
    let cy: User

    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        ada = try await env.addUser("ada", to: services)
        bob = try await env.addUser("bob", to: services)
        cy = try await env.addUser("cy", to: services)
    }

    private var tweets: TweetService { services.tweets }

    private func stored(_ id: String) async throws -> JSONObject? {
        try await services.store.getDocument(DocumentPath(collection: Collections.tweets, documentID: id))?.data
    }

    private func signIn(_ user: User) async throws { try await env.signIn(user, in: services) }

    // MARK: Retweets

    @Test func retweetingTwiceCountsOnceAndUnretweetingTakesItBack() async throws {
        let tweet = try await env.post("worth sharing", as: ada, in: services)
        try await signIn(bob)
        let first = try await tweets.retweet(id: tweet.id)
        #expect(first.tweet.retweets == 1 && first.changed)
        let again = try await tweets.retweet(id: tweet.id)
        #expect(again.tweet.retweets == 1)
        #expect(again.tweet.didRetweet == true)
        #expect(!again.changed)
        let undone = try await tweets.unretweet(id: tweet.id)
        #expect(undone.tweet.retweets == 0 && undone.changed)
        #expect(undone.tweet.didRetweet == false)
        let undoneAgain = try await tweets.unretweet(id: tweet.id)
        #expect(undoneAgain.tweet.retweets == 0 && !undoneAgain.changed)  // Never below zero.
        #expect(try await services.store.collection(Collections.retweets).query.getDocuments().isEmpty)
        #expect(try await services.store.collection(Collections.retweeted(by: bob.id)).query.getDocuments().isEmpty)
    }

    @Test func retweetingATweetThatIsNotThereIsAnError() async throws {
        try await signIn(bob)
        await #expect(throws: TweetError.notFound("nope")) { try await tweets.retweet(id: "nope") }
        await #expect(throws: TweetError.notFound("nope")) { try await tweets.bookmark(id: "nope") }
        try await services.auth.signOut()
        let tweet = try await env.post("hi", as: ada, in: services)
        try await services.auth.signOut()
        await #expect(throws: AuthError.notSignedIn) { try await tweets.retweet(id: tweet.id) }
        await #expect(throws: AuthError.notSignedIn) { try await tweets.bookmark(id: tweet.id) }
    }

    @Test func aRetweetShowsInFollowersFeedsAndOnTheRetweetersTabOnceAtItsNewestRetweet() async throws {
        let old = try await env.post("old news", as: ada, in: services)
        let other = try await env.post("something else", as: cy, in: services)
        try await signIn(bob)
        try await tweets.retweet(id: old.id)
        try await signIn(cy)
        try await tweets.retweet(id: old.id)
        // Dan follows bob and cy: the tweet appears once, as cy's (newer) retweet, above cy's own tweet.
        let dan = try await env.addUser("dan", to: services)
        try await signIn(dan)
        _ = try await services.users.follow(uid: bob.id)
        _ = try await services.users.follow(uid: cy.id)
        let feed = try await tweets.fetchFollowingTweets(limit: 20)
        #expect(feed.map(\.id) == [old.id, other.id])
        #expect(feed[0].retweetedBy?.id == cy.id)
        #expect(feed[0].retweetedAt != nil)
        #expect(feed[1].retweetedBy == nil)
        // Bob's Tweets tab shows his retweet.
        let tab = try await tweets.fetchTweets(forUid: bob.id, limit: 20)
        #expect(tab.map(\.id) == [old.id])
        #expect(tab[0].retweetedBy?.id == bob.id)
    }

    @Test func yourOwnTweetRetweetedBackToYouAppearsOnce() async throws {
        let mine = try await env.post("mine", as: ada, in: services)
        try await signIn(bob)
        try await tweets.retweet(id: mine.id)
        try await signIn(ada)
        _ = try await services.users.follow(uid: bob.id)
        let feed = try await tweets.fetchFollowingTweets(limit: 20)
        #expect(feed.map(\.id) == [mine.id])
        #expect(feed[0].retweetedBy?.id == bob.id)
    }

    @Test func pagingThroughAFeedWithRetweetsShowsEveryRowOnceInOrder() async throws {
        // Tweets by ada and cy, some retweeted by bob later; dan follows all three.
        var posted: [Tweet] = []
        for number in 0..<9 {
            posted.append(try await env.post("tweet \(number)", as: number % 2 == 0 ? ada : cy, in: services))
        }
        try await signIn(bob)
        for tweet in posted where tweet.caption.hasSuffix("1") || tweet.caption.hasSuffix("4") {
            try await tweets.retweet(id: tweet.id)
        }
        _ = try await env.post("bob's own", as: bob, in: services)
        let dan = try await env.addUser("dan", to: services)
        try await signIn(dan)
        for user in [ada, bob, cy] { _ = try await services.users.follow(uid: user.id) }
        let whole = try await tweets.fetchFollowingTweets(limit: 50)
        #expect(whole.count == 10)
        #expect(Set(whole.map(\.id)).count == 10, "each tweet once")
        var paged: [Tweet] = []
        var before: String?
        repeat {
            let page = try await tweets.fetchFollowingTweets(limit: 3, before: before)
            paged += page
            before = page.count == 3 ? page.last?.cursor : nil
        } while before != nil
        #expect(paged.map(\.id) == whole.map(\.id))
        #expect(paged.map(\.retweetedBy?.id) == whole.map(\.retweetedBy?.id))
        // Newest first: bob's own tweet, then his retweets of 4 and 1, then the rest.
        #expect(whole.prefix(3).map(\.caption) == ["bob's own", "tweet 4", "tweet 1"])
    }

    /// Tweets and retweets at random times, paged through at every page size, against the rows
    /// worked out from the stored documents: each tweet once, at its newest row (its own, or a
    /// retweet by someone followed), newest first. Retweets come in bursts and lulls, so some
    /// pages are all retweets and others all tweets.
    @Test(arguments: [7, 42])
    func everyPageSizeShowsTheRowsTheStoredDocumentsGive(_ seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        var posted: [Tweet] = []
        let dan = try await env.addUser("dan", to: services)
        for step in 0..<90 {
            env.clock.advance(by: 1)
            let burst = (step / 15) % 2 == 1
            if !posted.isEmpty, random.next() % 10 < (burst ? 8 : 2) {
                let retweeter = [bob, ada, dan][Int(random.next() % 3)]
                try await signIn(retweeter)
                try await tweets.retweet(id: posted[Int(random.next() % UInt64(posted.count))].id)
            } else {
                let author = [ada, cy, bob][Int(random.next() % 3)]
                posted.append(try await env.post("tweet \(step)", as: author, in: services))
            }
        }
        // Someone nobody follows: neither tweets nor retweets of theirs show.
        let eve = try await env.addUser("eve", to: services)
        try await signIn(eve)
        for tweet in posted.prefix(10) { try await tweets.retweet(id: tweet.id) }
        _ = try await env.post("eve's own", as: eve, in: services)
        try await signIn(dan)
        for user in [ada, bob] { _ = try await services.users.follow(uid: user.id) }

        let shown = Set([ada.id, bob.id, dan.id])
        var newest: [String: (time: String, retweeter: String?, id: String)] = [:]
        func offer(_ tweetID: String, _ time: String, _ retweeter: String?, _ rowID: String) {
            // Every action is a second apart: no two rows share a time.
            if let known = newest[tweetID], known.time >= time { return }
            newest[tweetID] = (time, retweeter, rowID)
        }
        let store = services.store
        for document in try await store.collection(Collections.tweets).query.getDocuments() {
            guard let uid = document.data["uid"]?.stringValue, shown.contains(uid) else { continue }
            offer(document.documentID, document.data["timestamp"]?.stringValue ?? "", nil, document.documentID)
        }
        for document in try await store.collection(Collections.retweets).query.getDocuments() {
            guard let uid = document.data["uid"]?.stringValue, shown.contains(uid),
                let tweetID = document.data["tweetId"]?.stringValue
            else { continue }
            offer(tweetID, document.data["timestamp"]?.stringValue ?? "", uid, document.documentID)
        }
        let expected = newest.sorted { ($0.value.time, $0.value.id) > ($1.value.time, $1.value.id) }
        #expect(expected.count > 25 && expected.contains { $0.value.retweeter != nil })
        for limit in [1, 2, 3, 4, 5, 7, 20, 200] {
            var rows: [Tweet] = []
            var before: String?
            repeat {
                let page = try await tweets.fetchFollowingTweets(limit: limit, before: before)
                rows += page
                before = page.count == limit ? page.last?.cursor : nil
            } while before != nil && rows.count <= expected.count
            #expect(rows.map(\.id) == expected.map(\.key), "pages of \(limit)")
            #expect(rows.map(\.retweetedBy?.id) == expected.map(\.value.retweeter), "pages of \(limit)")
        }
    }

    @Test func aReplyToATweetFromBeforeReplyCountsCountsItsEarlierReplies() async throws {
        let parent = try await env.post("old question", as: ada, in: services)
        for number in 0..<2 {
            _ = try await env.post("old answer \(number)", as: bob, in: services, replyTo: parent.id)
        }
        // As a store written before reply counts were kept has it: no replyCount field.
        let path = DocumentPath(collection: Collections.tweets, documentID: parent.id)
        try await services.store.runTransaction { $0.updateData(["replyCount": .delete], at: path) }
        #expect(try await stored(parent.id)?["replyCount"] == nil)
        _ = try await env.post("new answer", as: cy, in: services, replyTo: parent.id)
        #expect(try await stored(parent.id)?["replyCount"] == .integer(3))
        #expect(try await tweets.fetchThread(id: parent.id).replies.count == 3)
    }

    @Test func aReplyWrittenBeforeItsParentsAuthorWasKeptStillNamesThem() async throws {
        let parent = try await env.post("question", as: ada, in: services)
        let reply = try await env.post("answer", as: bob, in: services, replyTo: parent.id)
        #expect(try await stored(reply.id)?["replyToUid"] == .string(ada.id))
        let path = DocumentPath(collection: Collections.tweets, documentID: reply.id)
        try await services.store.runTransaction { $0.updateData(["replyToUid": .delete], at: path) }
        #expect(
            try await tweets.fetchTweet(withID: reply.id).replyTo == Tweet.ReplyTarget(id: parent.id, username: "ada"))
        try await signIn(ada)
        try await tweets.deleteTweet(id: parent.id)
        #expect(try await stored(reply.id)?["replyToDeleted"] == .bool(true))
        #expect(try await tweets.fetchTweet(withID: reply.id).replyTo?.deleted == true)
    }

    @Test func aPageEndingOnARetweetDoesNotShowItsTweetAgainOnTheNext() async throws {
        let older = try await env.post("older", as: cy, in: services)
        let tweet = try await env.post("worth it", as: ada, in: services)
        try await signIn(bob)
        try await tweets.retweet(id: tweet.id)
        let dan = try await env.addUser("dan", to: services)
        try await signIn(dan)
        for user in [ada, bob, cy] { _ = try await services.users.follow(uid: user.id) }
        let first = try await tweets.fetchFollowingTweets(limit: 1)
        #expect(first.map(\.id) == [tweet.id])
        #expect(first.first?.retweetedBy?.id == bob.id)
        let next = try await tweets.fetchFollowingTweets(limit: 5, before: first.last?.cursor)
        #expect(next.map(\.id) == [older.id], "the retweeted tweet came again: \(next.map(\.caption))")
    }

    // MARK: Quotes

    @Test func aQuoteEmbedsTheTweetAndCountsOnIt() async throws {
        let original = try await env.post("original", as: ada, in: services)
        let quote = try await env.post("look at this", as: bob, in: services)
        _ = quote
        try await signIn(bob)
        let quoting = try await tweets.uploadTweet(caption: "so true", quote: original.id)
        #expect(quoting.quoteId == original.id)
        guard case .tweet(let embedded) = quoting.quoted else {
            Issue.record("the quoted tweet is not embedded: \(String(describing: quoting.quoted))")
            return
        }
        #expect(embedded.id == original.id)
        #expect(embedded.user?.username == "ada")
        #expect(try await tweets.fetchTweet(withID: original.id).quotes == 1)
        // Quoting a tweet that is not there posts nothing.
        await #expect(throws: TweetError.notFound("gone")) {
            try await tweets.uploadTweet(caption: "quoting nothing", quote: "gone")
        }
        #expect(try await services.users.fetchStats(forUid: bob.id).tweets == 2)
    }

    @Test func deletingATweetRemovesItsRetweetsAndBookmarksAndQuotesSayItWasDeleted() async throws {
        let original = try await env.post("soon gone", as: ada, in: services)
        try await signIn(bob)
        try await tweets.retweet(id: original.id)
        try await tweets.bookmark(id: original.id)
        _ = try await tweets.likeTweet(id: original.id)
        let quoting = try await tweets.uploadTweet(caption: "quoting it", quote: original.id)
        let reply = try await tweets.uploadTweet(caption: "replying", replyTo: original.id)
        #expect(try await stored(original.id)?["replyCount"] == .integer(1))
        try await signIn(ada)
        try await tweets.deleteTweet(id: original.id)
        try await signIn(bob)
        #expect(try await services.store.collection(Collections.retweets).query.getDocuments().isEmpty)
        #expect(try await services.store.collection(Collections.retweeted(by: bob.id)).query.getDocuments().isEmpty)
        #expect(try await tweets.fetchBookmarks().isEmpty)
        #expect(try await tweets.fetchTweets(forUid: bob.id).map(\.id) == [quoting.id])
        #expect(try await tweets.fetchTweet(withID: quoting.id).quoted == .deleted(id: original.id))
        let orphan = try await tweets.fetchTweet(withID: reply.id)
        #expect(orphan.replyTo == Tweet.ReplyTarget(id: original.id, username: nil, deleted: true))
    }

    @Test func deletingAReplyOrAQuoteLowersTheCountsOfWhatItAnswered() async throws {
        let original = try await env.post("question", as: ada, in: services)
        let reply = try await env.post("answer", as: bob, in: services, replyTo: original.id)
        try await signIn(bob)
        let quoting = try await tweets.uploadTweet(caption: "quote", quote: original.id)
        #expect(try await tweets.fetchTweet(withID: original.id).replyCount == 1)
        #expect(try await tweets.fetchTweet(withID: original.id).quotes == 1)
        #expect(try await tweets.fetchTweet(withID: reply.id).replyTo?.username == "ada")
        try await tweets.deleteTweet(id: reply.id)
        try await tweets.deleteTweet(id: quoting.id)
        let after = try await tweets.fetchTweet(withID: original.id)
        #expect(after.replyCount == 0)
        #expect(after.quotes == 0)
    }

    // MARK: Bookmarks

    @Test func bookmarksArePrivateIdempotentAndNewestFirst() async throws {
        let first = try await env.post("first", as: ada, in: services)
        let second = try await env.post("second", as: ada, in: services)
        try await signIn(bob)
        try await tweets.bookmark(id: second.id)
        try await tweets.bookmark(id: first.id)
        try await tweets.bookmark(id: first.id)
        #expect(try await tweets.fetchBookmarks().map(\.id) == [first.id, second.id])
        #expect(try await tweets.fetchBookmarks(limit: 1, before: first.id).map(\.id) == [second.id])
        try await signIn(cy)
        #expect(try await tweets.fetchBookmarks().isEmpty)  // Bob's are his.
        try await signIn(bob)
        try await tweets.unbookmark(id: first.id)
        try await tweets.unbookmark(id: first.id)
        #expect(try await tweets.fetchBookmarks().map(\.id) == [second.id])
    }
}
