import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore

/// A view model's reading action resolves who is signed in once: every service it calls gets
/// that uid, without looking at the session again.
struct ViewerTests {
    let env: TestEnvironment
    let services: AppServices
    let ada: User

    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        ada = try await env.addUser("ada", to: services)
        try await env.signIn(ada, in: services)
    }

    @Test func theViewerAnActionResolvedStaysForTheWholeAction() async throws {
        var during: [String?] = []
        try await services.auth.withViewer {
            during.append(try await services.auth.currentUid())
            // Signed out meanwhile by another process: the action goes on as who it started as.
            try FileManager.default.removeItem(atPath: env.sessionPath)
            during.append(try await services.auth.currentUid())
            during.append(try await services.users.fetchUser(withUid: ada.id).email == nil ? nil : ada.id)
        }
        #expect(during == [ada.id, ada.id, ada.id])
        #expect(try await services.auth.currentUid() == nil, "after the action, the session is read again")
    }

    @Test func nobodySignedInStaysNobodyForTheAction() async throws {
        try await services.auth.signOut()
        var during: String?? = .none
        try await services.reading { during = .some(try await services.auth.currentUid()) }
        #expect(during == .some(nil))
    }

    @MainActor @Test func aFeedPageIsReadAsOneViewer() async throws {
        let feed = FeedViewModel(services: services, source: .everyone)
        try await feed.fetchTweets()
        #expect(feed.isSignedIn)
        try FileManager.default.removeItem(atPath: env.sessionPath)
        try await feed.fetchTweets()
        #expect(!feed.isSignedIn, "a later action resolves the viewer anew")
    }
}
