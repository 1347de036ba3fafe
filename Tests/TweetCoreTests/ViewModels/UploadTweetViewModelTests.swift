import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

@MainActor
struct UploadTweetViewModelTests {
    let env: TestEnvironment
    let services: AppServices
    let alice: User

    init() async throws {
        env = try TestEnvironment()
        services = try env.makeServices()
        alice = try await env.addUser("alice", to: services)
        try await env.signIn(alice, in: services)
    }

    @Test func postingSetsDidUploadTweetAndTheTweet() async throws {
        let model = UploadTweetViewModel(services: services)
        #expect(!model.didUploadTweet)
        try await model.uploadTweet(withCaption: " What's happening? ")
        #expect(model.error == nil)
        #expect(model.didUploadTweet)
        let tweet = try #require(model.tweet)
        #expect(tweet.caption == "What's happening?")
        #expect(tweet.user == alice)
        #expect(try await services.tweets.fetchTweet(withID: tweet.id).caption == "What's happening?")
    }

    @Test func aReplyNamesItsTweet() async throws {
        let model = UploadTweetViewModel(services: services)
        try await model.uploadTweet(withCaption: "first")
        let first = try #require(model.tweet)
        try await model.uploadTweet(withCaption: "reply", replyTo: first.id)
        #expect(model.tweet?.replyToId == first.id)
    }

    @Test func aFailedPostSetsTheErrorAndClearsDidUploadTweet() async throws {
        let model = UploadTweetViewModel(services: services)
        try await model.uploadTweet(withCaption: "fine")
        #expect(model.didUploadTweet)
        await #expect(throws: (any Error).self) { try await model.uploadTweet(withCaption: "   ") }
        #expect(model.error as? TweetError == .emptyCaption)
        #expect(!model.didUploadTweet)
        await #expect(throws: (any Error).self) {
            try await model.uploadTweet(withCaption: "reply", replyTo: "missing")
        }
        #expect(model.error as? TweetError == .notFound("missing"))
    }

    @Test func postingSignedOutSetsTheError() async throws {
        try await services.auth.signOut()
        let model = UploadTweetViewModel(services: services)
        await #expect(throws: (any Error).self) { try await model.uploadTweet(withCaption: "hello") }
        #expect(model.error as? AuthError == .notSignedIn)
        #expect(model.tweet == nil)
    }
}
