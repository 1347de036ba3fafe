import Foundation
import Synchronization
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// Leaving, on every engine: everything of the account goes, every counter and notification
/// elsewhere is as if each thing had been taken back, and an interrupted deletion finishes when
/// run again.
struct AccountDeletionTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// ada, registered with a password, who did one of everything to bob, cy, dee and eve.
    private func makeServices(_ layout: StoreLayout) async throws -> (
        AppServices, ada: User, bob: User, cy: User, dee: User, eve: User, bobs: Tweet, cys: Tweet
    ) {
        let services = try env.makeServices(layout)
        let bob = try await env.addUser("bob", to: services)
        let cy = try await env.addUser("cy", to: services)
        let dee = try await env.addUser("dee", to: services)
        let eve = try await env.addUser("eve", to: services)
        let bobs = try await env.post("bob on #swift", as: bob, in: services)
        let cys = try await env.post("cy on cats", as: cy, in: services)
        try await env.signIn(eve, in: services)
        try await services.users.setProtected(true)
        let ada = try await env.registerUser("ada", in: services)
        let adas = try await services.tweets.uploadTweet(caption: "ada says hi @bob #leaving")
        _ = try await services.tweets.uploadTweet(caption: "ada quotes", quote: cys.id)
        try await services.tweets.likeTweet(id: bobs.id)
        try await services.tweets.retweet(id: cys.id)
        try await services.tweets.bookmark(id: bobs.id)
        try await services.users.follow(uid: bob.id)
        try await services.users.follow(uid: eve.id)  // a request: eve is protected
        try await services.safety.block(uid: dee.id)
        try await env.post("bob answers ada", as: bob, in: services, replyTo: adas.id)
        try await services.users.follow(uid: ada.id)
        try await services.tweets.likeTweet(id: adas.id)
        try await env.signIn(ada, in: services)
        return (services, ada, bob, cy, dee, eve, bobs, cys)
    }

    private func everything(_ services: AppServices) async throws -> [DocumentSnapshot] {
        let found = Mutex<[DocumentSnapshot]>([])
        try await services.store.exportDocuments { batch in found.withLock { $0 += batch } }
        return found.withLock { $0 }
    }

    /// What `doctor` finds, but the sessions of the accounts these tests add without a password.
    private func auditProblems(_ services: AppServices) async throws -> [String] {
        try await StoreAudit(store: services.store).check().compactMap { problem in
            if case .sessionWithoutAccount = problem { return nil }
            return problem.description
        }
    }

    @Test(arguments: StoreLayout.allCases)
    func deletingAnAccountTakesBackEverythingItDid(_ layout: StoreLayout) async throws {
        let (services, ada, bob, cy, dee, eve, bobs, cys) = try await makeServices(layout)
        // The wrong password changes nothing.
        await #expect(throws: AuthError.wrongPassword) {
            try await AccountDeletion(services: services).run(password: "not it at all")
        }
        #expect(try await services.users.fetchStats(forUid: ada.id).tweets == 2)

        let report = try await AccountDeletion(services: services).run(password: TestEnvironment.password)
        #expect(report.tweets == 2 && report.likes == 1 && report.retweets == 1 && report.bookmarks == 1)
        #expect(report.follows == 3, "ada → bob, bob → ada, and ada's request to eve")
        #expect(try await services.auth.currentUid() != ada.id, "signed out of it")
        await #expect(throws: AuthError.invalidCredentials) {
            try await services.auth.login(.username("ada"), password: TestEnvironment.password)
        }
        await #expect(throws: UserError.notFound(ada.id)) { try await services.users.fetchUser(withUid: ada.id) }

        // Everything elsewhere as if taken back by hand.
        try await env.signIn(bob, in: services)
        #expect(try await services.users.fetchStats(forUid: bob.id) == UserStats(following: 0, followers: 0, tweets: 2))
        #expect(try await services.tweets.fetchTweet(withID: bobs.id).likes == 0)
        #expect(try await services.tweets.fetchTweet(withID: cys.id).retweets == 0)
        #expect(try await services.tweets.fetchTweet(withID: cys.id).quotes == 0)
        #expect(try await services.notifications.fetchNotifications().allSatisfy { $0.fromUid != ada.id })
        #expect(try await services.notifications.unreadCount() == 0)
        #expect(try await services.tweets.fetchLikedTweets(forUid: bob.id).isEmpty, "bob's like of hers went with it")
        #expect(try await services.tweets.fetchReplies(forUid: bob.id).first?.replyTo?.deleted == true)
        #expect(try await services.tweets.search("#leaving").isEmpty)
        #expect(try await services.tweets.fetchTrends().trends.map(\.hashtag) == ["#swift"])
        try await env.signIn(eve, in: services)
        #expect(try await services.users.followRequests().isEmpty)
        #expect(try await services.notifications.fetchNotifications().isEmpty)
        try await env.signIn(dee, in: services)
        #expect(try await services.safety.viewerFilters().isEmpty)
        try await env.signIn(cy, in: services)
        #expect(try await services.tweets.fetchTweets(forUid: cy.id).allSatisfy { $0.retweetedBy == nil })

        // Nothing of hers is left anywhere, and the store keeps every rule doctor checks.
        for document in try await everything(services) {
            #expect(!document.path.description.contains(ada.id), "\(document.path) is left")
            #expect(!String(describing: document.data).contains(ada.id), "\(document.path) still names her")
        }
        #expect(try await auditProblems(services).isEmpty)
    }

    @Test(arguments: StoreLayout.allCases)
    func anInterruptedDeletionFinishesWhenRunAgainAndNothingReachesTheAccountMeanwhile(_ layout: StoreLayout)
        async throws
    {
        let (services, ada, bob, _, _, _, _, _) = try await makeServices(layout)
        // As if interrupted after the first step: marked as leaving, with everything still there.
        try await services.store.runTransaction { transaction in
            transaction.updateData(["leaving": .value(.bool(true))], at: UserService.userPath(ada.id))
        }
        let adas = try #require(try await services.tweets.fetchTweets(forUid: ada.id).last)
        await #expect(throws: UserError.leaving) { try await services.tweets.uploadTweet(caption: "one more") }
        try await env.signIn(bob, in: services)
        try await services.users.unfollow(uid: ada.id)
        await #expect(throws: UserError.notFound(ada.id)) { try await services.users.follow(uid: ada.id) }
        await #expect(throws: TweetError.notFound(adas.id)) {
            try await services.tweets.uploadTweet(caption: "late", replyTo: adas.id)
        }
        let mention = try await services.tweets.uploadTweet(caption: "hello @ada")
        try await env.signIn(ada, in: services)
        #expect(try await services.notifications.fetchNotifications().allSatisfy { $0.tweetId != mention.id })

        _ = try await AccountDeletion(services: services).run(password: TestEnvironment.password)
        #expect(
            try await everything(services).allSatisfy {
                !$0.path.description.contains(ada.id) && !String(describing: $0.data).contains(ada.id)
            })
        #expect(try await auditProblems(services).isEmpty)
    }
}
