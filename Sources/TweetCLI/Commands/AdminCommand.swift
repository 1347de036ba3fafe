import TweetCore
import TweetStore
import TweetStorePostgres

/// `admin setup`: prepares a PostgreSQL database for many people, once, connected as its owner.
/// Every account becomes a role of its own, every device that signs in one more, and a guest role
/// that may only register and sign in is made; the command prints the connection string for it.
struct AdminCommand: Command {
    static let name = "admin"
    static let usage = "admin setup"
    static let summary =
        "Set a PostgreSQL database up for many people, once, as its owner: accounts become roles, and it prints the connection string everyone signs up with"
    static let completes = Completion.choices(["setup"])
    static let createsStore = true
    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        let words = try list.positionals(atMost: 1)
        guard let word = words.first else { throw UsageError("admin needs a task: setup", usage: Self.usage) }
        guard word == "setup" else { throw UsageError("admin takes setup, not '\(word)'", usage: Self.usage) }
    }

    func run(_ context: Context) async throws {
        let given = context.storeDirectory
        guard PostgresLocation.isLocation(given) else {
            throw CommandFailure(
                "admin setup is for a PostgreSQL store shared by many people; a local store is one person's",
                hint: "give the owner's connection: tweetcli --store postgresql://OWNER@HOST/DATABASE admin setup")
        }
        let store = PostgresDocumentStore(location: try context.postgresLocation(given), indexes: AppServices.indexes)
        let guest = try await store.setUpForManyPeople()
        let uri = PostgresLocation.replacingUser(of: given, with: guest)
        switch await store.checksPasswords(of: guest) {
        case false?:
            Output.writeError(
                "warning: the server let the guest in with a wrong password on this route (trust in pg_hba.conf); "
                    + "whoever comes in that way can act as any account, so ask for scram-sha-256 there\n")
        case nil:
            Output.writeError(
                "warning: could not tell whether the server asks for passwords on this route; "
                    + "check that pg_hba.conf asks for scram-sha-256 on every route people use\n")
        case true?: break
        }
        try context.screen.write(
            TerminalText(
                """
                The database is set up for many people: each account is a role of its own, each signed-in
                device one more, and a guest role may only register and sign in. Give people this store:

                  \(uri)

                Sign up with:  tweetcli --store '\(uri)' register
                Sign in with:  tweetcli --store '\(uri)' login
                Running admin setup again keeps every account and gives the guest a new password.

                """, multiline: true))
    }
}
