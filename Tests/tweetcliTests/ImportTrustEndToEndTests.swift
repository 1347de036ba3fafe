import Foundation
import Testing
import TweetCore
import TweetStore
import TweetStoreLocal
import TweetTestSupport

/// `import` refuses a crafted file in one sentence and changes nothing, and `doctor` finds a
/// store an older import damaged, as a user sees them.
struct ImportTrustEndToEndTests {
    /// A seeded store, its export's lines, and the first user's line.
    private func seeded() throws -> (CLIRunner, [String], user: String) {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "4", "--tweets", "20"]).status == 0)
        let lines = try cli.run(["export"]).stdout.split(separator: "\n").map(String.init)
        let user = try #require(lines.first { $0.contains("\"path\":\"users/") && !$0.contains("/user-") })
        return (cli, lines, user)
    }

    /// The user's line under another uid, one that sorts first, with another email.
    private func intruder(_ user: String) -> String {
        user.replacingOccurrences(
            of: #"users/[A-Za-z0-9]+"#, with: "users/0000000000000000000A", options: .regularExpression
        )
        .replacingOccurrences(
            of: #""email":"[^"]*""#, with: #""email":"evil@example.com""#, options: .regularExpression)
    }

    @Test(arguments: [false] + (PostgresCluster.isAvailable ? [true] : []))
    func aSecondAccountUnderATakenUsernameIsRefusedInOneSentence(postgres: Bool) throws {
        let (source, lines, user) = try seeded()
        let target = postgres ? try CLIRunner(location: try PostgresCluster.freshLocation()) : try CLIRunner()
        let crafted = ([intruder(user)] + lines).joined(separator: "\n") + "\n"
        let refused = try target.run(["import", "-"], stdin: crafted)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: line "), "\(refused.stderr)")
        #expect(refused.stderr.contains("is taken by users/0000000000000000000A (line 1); nothing was imported"))
        #expect(try target.run(["export"]).stdout.isEmpty)
        let merge = try source.run(["import", "--merge", "-"], stdin: intruder(user) + "\n")
        #expect(merge.status == 1)
        #expect(merge.stderr.contains("is taken in the store; nothing was imported"), "\(merge.stderr)")
        #expect(try source.run(["export"]).stdout.split(separator: "\n").map(String.init) == lines)
    }

    @Test func doctorFindsAStoreAnOlderImportDamagedAndSaysWhatItCannotRepair() async throws {
        let (cli, _, user) = try seeded()
        #expect(try cli.run(["doctor"]).stdout.contains("is healthy"))
        // What an older import let in: a second @user, and a session nobody signed in to.
        let line = try #require(try JSONValue.parse(Array(intruder(user).utf8)).objectValue)
        let data = try #require(line["data"]?.objectValue)
        let store = try LocalDocumentStore(directory: cli.store.path, indexes: AppServices.indexes)
        try await store.runTransaction { transaction in
            transaction.setData(data, at: DocumentPath(collection: "users", documentID: "0000000000000000000A"))
            transaction.setData(["uid": .string("nobody")], at: DocumentPath(collection: "sessions", documentID: "s1"))
        }
        let doctor = try cli.run(["doctor"])
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("is taken by users/0000000000000000000A"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("sessions/s1 is a session of no account"))
        let repair = try cli.run(["doctor", "--repair"])
        #expect(repair.status == 1)
        #expect(repair.stdout.contains("repaired: ended sessions/s1"), "\(repair.stdout)")
        #expect(repair.stdout.contains("not repaired:"))
        #expect(!(try cli.run(["doctor"]).stdout.contains("sessions/s1")))
    }
}
