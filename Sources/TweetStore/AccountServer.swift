/// A store whose server keeps the accounts itself: a PostgreSQL database an administrator set up
/// for many people (`tweetcli admin setup`). There, signing up, signing in, changing a password
/// and signing out go through the server's own functions, each account is a role of its own, and
/// each device that signs in gets a role of its own with a random password (``DeviceLogin``),
/// which every later command connects as. The server, not the client, then says who is acting.
///
/// A store that offers this may still be one without it (a personal database connected to as its
/// owner): ``keepsAccounts()`` says which.
public protocol AccountServer: Sendable {
    /// Whether the server keeps the accounts (it was set up for many people); otherwise the
    /// store's documents do, as on every other store.
    func keepsAccounts() async throws -> Bool

    /// Makes an account and signs this device in to it, in one transaction on the server: its
    /// role, its public `users` document (without the email, which only the server keeps), its
    /// zeroed stats, and the session document named `sessionName`.
    /// - Throws: ``AccountServerRefusal`` for a taken username or email, or a field the server refuses.
    func registerAccount(_ account: NewAccount, sessionName: String) async throws -> DeviceLogin

    /// Signs this device in to the account named `identifier` (a username or an email), proving
    /// `password` to the server (SCRAM: the password itself never leaves this machine).
    /// - Returns: the account's uid and username, and the device's login.
    /// - Throws: ``AccountServerRefusal/invalidCredentials`` whether the account or the password was wrong.
    func signIn(identifier: String, password: String, sessionName: String) async throws -> SignedInDevice

    /// Signs this device in to an account made before the server was set up, which keeps its
    /// password only as a hash the server cannot check a password against: `hashing` hashes
    /// `password` with the setting the server gives (the kept hash's algorithm, cost and salt), and
    /// the server compares the two. Once they match, the account gets the role a registered one
    /// has, with `password`, and the hash is gone: this happens once an account.
    /// - Throws: ``AccountServerRefusal/invalidCredentials`` whether the account or the password was
    ///   wrong, or what `hashing` throws.
    func claimKeptAccount(
        identifier: String, password: String, sessionName: String,
        hashing: @Sendable (_ setting: String) throws -> String
    ) async throws -> SignedInDevice

    /// Proves `password` of the account called `username` to the server.
    /// - Throws: ``AccountServerRefusal/wrongPassword`` when it is not the account's password.
    func verifyPassword(_ password: String, username: String) async throws

    /// Changes the password of the account called `username`, proving the current one first, and
    /// ends every other device's session; this device stays signed in.
    /// - Returns: how many other devices were signed out.
    /// - Throws: ``AccountServerRefusal/wrongPassword`` when `current` is not the password.
    func changePassword(current: String, new: String, username: String) async throws -> Int

    /// Ends this device's session: its role is dropped, so its password opens nothing any more.
    func signOutDevice() async throws

    /// Closes the signed-in account once its documents are gone: its role and every device's are
    /// ended, and its username and email are free again.
    func closeAccount() async throws

    /// Whether `device` is still signed in (its role still logs in), asked on a connection of its
    /// own, so that the one in use stays as it is.
    func isSignedIn(_ device: DeviceLogin) async throws -> Bool

    /// Connects as `device` from now on (`nil`: as the location says).
    func use(_ device: DeviceLogin?) async
}

/// What a new account is made of, checked by the server again.
public struct NewAccount: Sendable, Equatable {
    public var uid: String
    public var username: String
    public var email: String
    public var fullname: String
    public var password: String

    public init(uid: String, username: String, email: String, fullname: String, password: String) {
        (self.uid, self.username, self.email, self.fullname, self.password) = (uid, username, email, fullname, password)
    }
}

/// A device signed in to an account: the role it connects as, and that role's random password.
public struct DeviceLogin: Sendable, Equatable {
    public var role: String
    public var password: String

    public init(role: String, password: String) {
        self.role = role
        self.password = password
    }
}

/// An account a device signed in to.
public struct SignedInDevice: Sendable, Equatable {
    public var uid: String
    public var username: String
    public var device: DeviceLogin

    public init(uid: String, username: String, device: DeviceLogin) {
        (self.uid, self.username, self.device) = (uid, username, device)
    }
}

/// What a server that keeps the accounts refused.
public enum AccountServerRefusal: Error, Equatable, Sendable {
    case usernameTaken
    case emailTaken
    /// The account or its password was wrong (which one is not told).
    case invalidCredentials
    /// The signed-in account's current password was wrong.
    case wrongPassword
    /// This device is not signed in (its session ended).
    case notSignedIn
    /// A field the server's rules refuse, in its words.
    case refused(String)
}
