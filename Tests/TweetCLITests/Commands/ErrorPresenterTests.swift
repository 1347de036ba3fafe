import Foundation
import Testing
import TweetCore
import TweetStore

@testable import TweetCLI
@testable import TweetDemo

@MainActor
struct ErrorPresenterTests {
    let withStore = GlobalOptions(storePath: "/tmp/my store")

    @Test func usageErrorsExit64WithTheUsageLine() {
        let presented = ErrorPresenter.present(UsageError("bad", usage: FeedCommand.usage), options: GlobalOptions())
        #expect(presented.exitCode == 64)
        #expect(presented.text == "error: bad\nusage: tweetcli \(FeedCommand.usage)\n")
    }

    @Test func runtimeFailuresExit1WithoutAUsageLine() {
        for error: any Error in [
            CommandFailure("the two passwords differ; nothing was registered"), AuthError.invalidCredentials,
            CommandFailure("no password was entered"),
        ] {
            let presented = ErrorPresenter.present(error, options: GlobalOptions())
            #expect(presented.exitCode == 1)
            #expect(presented.usage == nil)
            #expect(!presented.text.contains("usage:"))
        }
    }

    @Test(arguments: [
        (AuthError.notSignedIn as any Error, "tweetcli --store '/tmp/my store' login --username NAME"),
        (
            StoreError.noStore(path: "/tmp/my store"),
            "tweetcli --store '/tmp/my store' register --email E --username U --fullname F"
        ),
        (AuthError.notSignedIn, "create an account with: tweetcli --store '/tmp/my store' register --email E"),
        (StoreError.corruptRecord(file: "f", line: 3, reason: "r"), "tweetcli --store '/tmp/my store' doctor"),
        (UserError.notFound("@x"), "tweetcli --store '/tmp/my store' explore"),
        (TweetError.notFound("x"), "tweetcli --store '/tmp/my store' feed"),
        (
            AuthError.sessionUnavailable(path: "p", reason: "it is unreadable"),
            "tweetcli --store '/tmp/my store' logout"
        ),
    ])
    func hintsNameTheCommandWithTheStoreGiven(_ error: any Error, _ hint: String) {
        let presented = ErrorPresenter.present(error, options: withStore)
        #expect(presented.text.contains(hint), "\(presented.text)")
        #expect(presented.exitCode == 1)
    }

    @Test func seedCountsThatCannotBeMadeAreUsageErrorsNamingTheFlags() {
        let presented = ErrorPresenter.present(SeedError.tooManyFollows(users: 3), options: GlobalOptions())
        #expect(presented.exitCode == 64)
        #expect(presented.message == "--follows must be less than --users (3)")
        #expect(presented.usage == "tweetcli \(SeedCommand.usage)")
    }

    @Test func tweetCoresMessagesNameNoCommand() {
        let errors: [any Error] = [
            AuthError.notSignedIn, StoreError.noStore(path: "p"), UserError.notFound("x"), TweetError.notFound("x"),
            StoreError.corruptRecord(file: "f", line: 1, reason: "r"), SeedError.storeNotEmpty,
            SeedError.tooManyFollows(users: 2), AuthError.sessionUnavailable(path: "p", reason: "it is unreadable"),
        ]
        for error in errors {
            let message = (error as? any LocalizedError)?.errorDescription ?? ""
            #expect(!message.isEmpty)
            #expect(!message.contains("tweetcli "), "\(message)")
            #expect(!message.contains("--"), "\(message)")
        }
    }
}
