import Foundation
import Testing
import TweetCLI
import TweetTestSupport

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

struct AppServicesTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    @Test func eachStoreHasItsOwnStableSessionFile() {
        let state = env.path("state")
        let first = AppServices.sessionPath(forStore: "/data/one", stateDirectory: state)
        let second = AppServices.sessionPath(forStore: "/data/two", stateDirectory: state)
        #expect(first != second)
        #expect(first == AppServices.sessionPath(forStore: "/data/one", stateDirectory: state))
        #expect(first.hasPrefix(state + "/sessions/"))
        #expect(first.hasSuffix(".json"))
        #expect((first as NSString).lastPathComponent.count == 16 + 5)
    }

    @Test func localServicesSignInOnlyToTheStoreTheyOpened() async throws {
        let state = env.path("state")
        let one = try AppServices.local(storeDirectory: env.path("one/"), stateDirectory: state)
        let alice = try await env.registerUser("alice", in: one)
        let again = try AppServices.local(storeDirectory: env.path("one/./"), stateDirectory: state)
        #expect(try await again.auth.currentUid() == alice.id)
        let two = try AppServices.local(storeDirectory: env.path("two"), stateDirectory: state)
        #expect(try await two.auth.currentUid() == nil)
    }

    @Test(
        arguments: [
            ("/opt/flag", ["TWEETCLI_STORE": "/opt/env", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"], "/opt/flag"),
            (nil, ["TWEETCLI_STORE": "/opt/env", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"], "/opt/env"),
            ("", ["TWEETCLI_STORE": "", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"], "/xdg/tweetcli"),
            (nil, ["XDG_DATA_HOME": "relative", "HOME": "/home/u"], "/home/u/.local/share/tweetcli"),
            (nil, ["HOME": "/home/u"], "/home/u/.local/share/tweetcli"),
        ] as [(String?, [String: String], String)])
    func theStoreDirectoryComesFromTheFlagThenTheEnvironment(
        _ option: String?, _ environment: [String: String], _ expected: String
    ) {
        #expect(AppPaths.storeDirectory(option: option, environment: environment) == expected)
    }

    @Test(arguments: [
        (["XDG_STATE_HOME": "/state", "HOME": "/home/u"], "/state/tweetcli"),
        (["XDG_STATE_HOME": "", "HOME": "/home/u"], "/home/u/.local/state/tweetcli"),
        (["HOME": "/home/u"], "/home/u/.local/state/tweetcli"),
    ])
    func theStateDirectoryFollowsXDG(_ environment: [String: String], _ expected: String) {
        #expect(AppPaths.stateDirectory(environment: environment) == expected)
    }
}
