import FoundationEssentials
import TweetStore

/// A database `tweetcli admin setup` prepared for many people keeps the accounts itself (see
/// ``PostgresAccountsSQL``); one that was not set up keeps them in its documents, as a local store does.
extension PostgresDocumentStore: AccountServer {
    public func keepsAccounts() async throws -> Bool {
        if let keeps = keepsAccountsFound { return keeps }
        try await waitForTransactions()
        // `to_regclass` needs no right on the table, only on its schema: the guest may ask.
        let found = try connected().execute("SELECT to_regclass('tweetcli_setup') IS NOT NULL").first?.first == "t"
        keepsAccountsFound = found
        return found
    }

    public func registerAccount(_ account: NewAccount, sessionName: String) async throws -> DeviceLogin {
        try await waitForTransactions()
        noteWrite()
        let connection = try connected()
        let device = Self.randomPassword()
        let rows = try Self.refusals {
            try connection.execute(
                "SELECT tweetcli_register($1, $2, $3, $4, $5, $6, $7)",
                [
                    account.uid, account.username, account.email, account.fullname,
                    try connection.scramVerifier(account.password), try connection.scramVerifier(device), sessionName,
                ])
        }
        guard let role = rows.first?.first ?? nil else {
            throw AccountServerRefusal.refused("the server made no device")
        }
        let login = DeviceLogin(role: role, password: device)
        use(login)
        return login
    }

    public func signIn(identifier: String, password: String, sessionName: String) async throws -> SignedInDevice {
        try await waitForTransactions()
        noteWrite()
        let account = try accountConnection(identifier: identifier, password: password) {
            AccountServerRefusal.invalidCredentials
        }
        let device = Self.randomPassword()
        let rows = try Self.refusals {
            try account.execute(
                "SELECT device_role, account_uid, account_username FROM tweetcli_open_device($1, $2)",
                [try account.scramVerifier(device), sessionName])
        }
        guard let row = rows.first, row.count == 3, let role = row[0], let uid = row[1], let username = row[2] else {
            throw AccountServerRefusal.refused("the server made no device")
        }
        let login = DeviceLogin(role: role, password: device)
        use(login)
        return SignedInDevice(uid: uid, username: username, device: login)
    }

    public func claimKeptAccount(
        identifier: String, password: String, sessionName: String,
        hashing: @Sendable (_ setting: String) throws -> String
    ) async throws -> SignedInDevice {
        try await waitForTransactions()
        noteWrite()
        let connection = try connected()
        let setting: String?
        do {
            setting = try Self.refusals {
                try connection.execute("SELECT tweetcli_kept_setting($1)", [identifier]).first?.first ?? nil
            }
        } catch PostgresError.statement(let state, _) where state == "42883" {
            // A database set up by an earlier build has no such function until `admin setup` runs
            // again: no account there is claimed this way, so the password was simply wrong.
            throw AccountServerRefusal.invalidCredentials
        }
        guard let setting else { throw AccountServerRefusal.invalidCredentials }
        let hash = try hashing(setting)
        let device = Self.randomPassword()
        let rows = try Self.refusals {
            try connection.execute(
                "SELECT device_role, account_uid, account_username FROM tweetcli_claim($1, $2, $3, $4, $5)",
                [
                    identifier, hash, try connection.scramVerifier(password), try connection.scramVerifier(device),
                    sessionName,
                ])
        }
        guard let row = rows.first, row.count == 3, let role = row[0], let uid = row[1], let username = row[2] else {
            throw AccountServerRefusal.refused("the server made no device")
        }
        let login = DeviceLogin(role: role, password: device)
        use(login)
        return SignedInDevice(uid: uid, username: username, device: login)
    }

    public func verifyPassword(_ password: String, username: String) async throws {
        try await waitForTransactions()
        _ = try accountConnection(identifier: username, password: password) { AccountServerRefusal.wrongPassword }
    }

    public func changePassword(current: String, new: String, username: String) async throws -> Int {
        try await waitForTransactions()
        noteWrite()
        let account = try accountConnection(identifier: username, password: current) {
            AccountServerRefusal.wrongPassword
        }
        let rows = try Self.refusals {
            try account.execute(
                "SELECT tweetcli_set_password($1, $2)", [try account.scramVerifier(new), location.device?.role])
        }
        return (rows.first?.first ?? nil).flatMap { Int($0) } ?? 0
    }

    public func signOutDevice() async throws {
        try await waitForTransactions()
        noteWrite()
        guard location.device != nil else { return }
        try Self.refusals { _ = try connected().execute("SELECT tweetcli_close_device()") }
        use(nil)
    }

    public func isSignedIn(_ device: DeviceLogin) async throws -> Bool {
        var other = location
        other.device = device
        do {
            _ = try PostgresConnection(other)
            return true
        } catch PostgresError.unreachable(_, PostgresError.endedDevice) {
            return false
        }
    }

    public func closeAccount() async throws {
        try await waitForTransactions()
        noteWrite()
        try Self.refusals { _ = try connected().execute("SELECT tweetcli_close_account()") }
    }

    /// A connection of the account's own role, which proves `password` to the server (SCRAM);
    /// `refusal` when the server refuses it, whether the account or the password was wrong.
    private func accountConnection(
        identifier: String, password: String, refusal: () -> AccountServerRefusal
    ) throws -> PostgresConnection {
        let role = try Self.refusals {
            try connected().execute("SELECT tweetcli_account_role($1)", [identifier]).first?.first ?? nil
        }
        guard let role else { throw refusal() }
        var account = location
        account.device = DeviceLogin(role: role, password: password)
        do {
            return try PostgresConnection(account)
        } catch PostgresError.unreachable(_, let reason)
            where [PostgresError.refusedLogin, PostgresError.unknownRole, PostgresError.endedDevice].contains(reason)
        {
            throw refusal()
        }
    }

    /// 128 random bits as hex: a device's password, which only its session file holds.
    static func randomPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// `body`, with the account functions' refusals as ``AccountServerRefusal``.
    @discardableResult
    static func refusals<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch PostgresError.statement(let state, let message) where state.hasPrefix("TW") {
            switch state {
            case PostgresAccountsSQL.usernameTaken: throw AccountServerRefusal.usernameTaken
            case PostgresAccountsSQL.emailTaken: throw AccountServerRefusal.emailTaken
            case PostgresAccountsSQL.notAnAccount: throw AccountServerRefusal.notSignedIn
            case PostgresAccountsSQL.invalidCredentials: throw AccountServerRefusal.invalidCredentials
            default: throw AccountServerRefusal.refused(message)
            }
        }
    }

    // MARK: Setting up

    /// Prepares the database for many people (`tweetcli admin setup`), connected as the owner of
    /// its tables: the schema if it is missing, the accounts' tables and functions, the guest
    /// role that may only register and find the role to sign in as, and the rights of the
    /// accounts' roles. Running it again keeps every account and gives the guest a new password.
    /// - Returns: the guest's role and its new password, for the connection string people use.
    public func setUpForManyPeople() async throws -> DeviceLogin {
        try await waitForTransactions()
        let connection = try writableConnection()
        let able = try connection.execute(
            "SELECT r.rolcreaterole OR r.rolsuper, pg_has_role(current_user, c.relowner, 'USAGE'), current_user "
                + "FROM pg_roles r, pg_class c WHERE r.rolname = current_user "
                + "AND c.oid = coalesce(to_regclass('tweetcli_public'), to_regclass('tweetcli_documents'))")
        guard let row = able.first, row.count == 3 else { throw AdminSetupError.notOwner("this role") }
        guard row[1] == "t" else { throw AdminSetupError.notOwner(row[2] ?? "this role") }
        guard row[0] == "t" else { throw AdminSetupError.cannotMakeRoles(row[2] ?? "this role") }
        try connection.begin()
        do {
            let login = try setUp(on: connection)
            try connection.execute("COMMIT")
            keepsAccountsFound = true
            return login
        } catch {
            // The first error is the one to report.
            if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Whether the server asks `login`'s role for its password on this store's route: `false` when
    /// a wrong one gets in (`trust` in pg_hba.conf lets anyone in as any account or device), `nil`
    /// when the attempt failed for another reason and says nothing either way.
    public func checksPasswords(of login: DeviceLogin) -> Bool? {
        var wrong = location
        wrong.device = DeviceLogin(role: login.role, password: Self.randomPassword())
        do {
            _ = try PostgresConnection(wrong)
            return false
        } catch PostgresError.unreachable(_, let reason)
            where [PostgresError.refusedLogin, PostgresError.endedDevice].contains(reason)
        {
            return true
        } catch {
            return nil
        }
    }

    private func setUp(on connection: PostgresConnection) throws -> DeviceLogin {
        try connection.execute("SELECT pg_advisory_xact_lock(7310427733)")
        // The functions name tables the split below makes.
        try connection.execute("SET LOCAL check_function_bodies = off")
        for statement in [PostgresSQL.createBlobTable, PostgresSQL.addBlobKeptColumn, PostgresSQL.createBlobAsideTable]
            + PostgresAccountsSQL.tables
        {
            try connection.execute(statement)
        }
        // A database made by an earlier build gets the key functions' faster form.
        try Self.createKeyFunctions(on: connection)
        let fresh = "tweetcli_" + String(Self.randomPassword().prefix(8))
        try connection.execute(
            "INSERT INTO tweetcli_setup VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING", [fresh, Self.randomPassword()])
        guard let prefix = try connection.execute("SELECT prefix FROM tweetcli_setup").first?.first ?? nil,
            let schema = try connection.execute("SELECT quote_ident(current_schema())").first?.first ?? nil
        else { throw AdminSetupError.notOwner("this role") }
        for function in PostgresAccountsSQL.functions(schema: schema, channel: PostgresChangeWatch.channel)
            + PostgresRulesSQL.functions(schema: schema, channel: PostgresChangeWatch.channel)
        {
            try connection.execute(function)
        }
        if try connection.execute("SELECT to_regclass('tweetcli_private') IS NULL").first?.first == "t" {
            for statement in PostgresAccountsSQL.split { try connection.execute(statement) }
        }
        for statement in PostgresAccountsSQL.privacy() { try connection.execute(statement) }
        // The private collections' indexes move with their documents.
        for definition in indexes where PostgresAccountsSQL.privateGroups.contains(definition.collectionID) {
            let name = PostgresSQL.indexName(definition)
            try connection.execute(
                try PostgresSQL.createIndex(definition).replacing(
                    "\(name) ON tweetcli_documents ",
                    with: "tweetcli_private_\(name.dropFirst("tweetcli_".count)) ON tweetcli_private "))
            try connection.execute("DROP INDEX IF EXISTS \(name)")
        }
        let guest = prefix + "_guest"
        let users = prefix + "_users"
        let password = Self.randomPassword()
        let present = try connection.execute(
            "SELECT rolname FROM pg_roles WHERE rolname IN ($1, $2)", [guest, users]
        ).compactMap { $0.first ?? nil }
        func formatted(_ template: String, _ arguments: String...) throws {
            let placeholders = arguments.indices.map { "$\($0 + 2)::text" }.joined(separator: ", ")
            guard
                let sql = try connection.execute("SELECT format($1::text, \(placeholders))", [template] + arguments)
                    .first?.first ?? nil
            else { return }
            try connection.execute(sql)
        }
        if !present.contains(users) { try formatted("CREATE ROLE %I NOLOGIN", users) }
        if !present.contains(guest) { try formatted("CREATE ROLE %I NOLOGIN", guest) }
        try formatted("ALTER ROLE %I LOGIN PASSWORD %L", guest, try connection.scramVerifier(password))
        try connection.execute("SELECT tweetcli_limit_role($1)", [guest])
        // Nobody but the owner reaches a table or calls a function unless granted below; nobody
        // makes objects that could stand in for the store's.
        try connection.execute(
            "REVOKE ALL ON tweetcli_documents, tweetcli_public, tweetcli_private, tweetcli_clock, tweetcli_schema, "
                + "tweetcli_blobs, tweetcli_blobs_aside FROM PUBLIC")
        for signature in PostgresAccountsSQL.functionSignatures + PostgresRulesSQL.functionSignatures {
            try connection.execute("REVOKE ALL ON FUNCTION \(signature) FROM PUBLIC")
        }
        try formatted("REVOKE CREATE ON SCHEMA %s FROM PUBLIC", schema)
        try formatted("REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC", try currentDatabase(connection))
        try formatted("GRANT USAGE ON SCHEMA %s TO %I, %I", schema, guest, users)
        try formatted("GRANT SELECT ON tweetcli_schema TO %I, %I", guest, users)
        for signature in PostgresAccountsSQL.guestFunctions {
            try formatted("GRANT EXECUTE ON FUNCTION \(signature) TO %I", guest)
        }
        for signature in PostgresAccountsSQL.userFunctions + PostgresRulesSQL.userFunctions {
            try formatted("GRANT EXECUTE ON FUNCTION \(signature) TO %I", users)
        }
        // An account reads the documents and writes them only through the rules (`tweetcli_apply`);
        // a photo's blob it adds, named by its hash, which the table checks.
        try formatted(
            "REVOKE ALL ON tweetcli_documents, tweetcli_public, tweetcli_private, tweetcli_clock, tweetcli_blobs FROM %I",
            users)
        try formatted("GRANT SELECT ON tweetcli_public TO %I", users)
        try formatted("GRANT SELECT, INSERT ON tweetcli_blobs TO %I", users)
        try formatted("GRANT UPDATE (kept) ON tweetcli_blobs TO %I", users)
        let checked = try connection.execute(
            "SELECT count(*) FROM pg_constraint WHERE conname = 'tweetcli_blob_is_its_hash' "
                + "AND conrelid = 'tweetcli_blobs'::regclass")
        if checked.first?.first == "0" {
            // Blobs put before the set-up are not checked again (`NOT VALID`); every new one is.
            try connection.execute(
                "ALTER TABLE tweetcli_blobs ADD CONSTRAINT tweetcli_blob_is_its_hash "
                    + "CHECK (address = encode(sha256(data), 'hex')) NOT VALID")
        }
        return DeviceLogin(role: guest, password: password)
    }

    private func currentDatabase(_ connection: PostgresConnection) throws -> String {
        let name: String?? = try connection.execute("SELECT current_database()").first?.first
        return (name ?? nil) ?? ""
    }
}

/// Why `tweetcli admin setup` cannot prepare the database.
public enum AdminSetupError: Error, LocalizedError, Equatable {
    case notOwner(String)
    case cannotMakeRoles(String)

    public var errorDescription: String? {
        switch self {
        case .notOwner(let role):
            return "\(role) does not own the store's tables: run admin setup with the owner's connection string"
        case .cannotMakeRoles(let role):
            return "\(role) cannot make roles, which every account needs: a superuser runs "
                + "ALTER ROLE \(role) CREATEROLE first"
        }
    }
}
