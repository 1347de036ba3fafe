import FoundationEssentials
import TweetStore

/// What can go wrong signing up, signing in or acting as the signed-in user.
public enum AuthError: Error, Equatable, LocalizedError {
    /// The command needs a signed-in user and nobody is signed in.
    case notSignedIn
    /// `--as` names an account that is not signed in on this device.
    case notSignedInAs(String)
    /// `switch` names an account whose session the store no longer knows.
    case sessionEnded(String)
    /// The current password given to change it is wrong.
    case wrongPassword
    /// The email is not of the form name@domain.tld.
    case invalidEmail(String)
    /// The username breaks the 1–15 `[a-z0-9_]` rule.
    case invalidUsername(String)
    /// The full name is empty or too long.
    case invalidFullname
    /// The full name holds what could make a row pass for someone else's; the reason says what.
    case spoofableFullname(String)
    /// The password has fewer than ``AuthService/minimumPasswordLength`` characters.
    case passwordTooShort
    /// The password holds a NUL character, which the hash would silently cut it at.
    case passwordHasNul
    /// Another account uses this email.
    case emailTaken(String)
    /// Another account uses this username.
    case usernameTaken(String)
    /// No account has this email or username, or the password is wrong: one message for both.
    case invalidCredentials
    /// libxcrypt could not hash the password.
    case passwordHashingFailed
    /// The session file could not be read or written.
    case sessionUnavailable(path: String, reason: String)
    /// The server that keeps the accounts refused a field, in its words.
    case refusedByServer(String)

    public var errorDescription: String? {
        switch self {
        case .notSignedIn:
            return "you are not signed in"
        case .notSignedInAs(let username):
            let name = username.hasPrefix("@") ? String(username.dropFirst()) : username
            return "@\(name) is not signed in on this device"
        case .sessionEnded(let username):
            return "the session of @\(username) has ended"
        case .wrongPassword:
            return "the current password is wrong; nothing was changed"
        case .invalidEmail(let email):
            return "\"\(email)\" is not a valid email address"
        case .invalidUsername(let username):
            return "\"\(username)\" is not a valid username: use 1 to 15 letters, digits or underscores"
        case .invalidFullname:
            return "the full name must have 1 to 50 characters"
        case .spoofableFullname(let reason):
            return reason
        case .passwordHasNul:
            return "the password cannot contain a NUL character"
        case .passwordTooShort:
            return "the password must have at least \(AuthService.minimumPasswordLength) characters"
        case .emailTaken(let email):
            return "the email \(email) is already registered; log in instead"
        case .usernameTaken(let username):
            return "the username @\(username) is taken; choose another"
        case .invalidCredentials:
            return "wrong email, username or password"
        case .passwordHashingFailed:
            return "the password could not be hashed (libxcrypt failed)"
        case .sessionUnavailable(let path, let reason):
            return "cannot use the session file \(path): \(reason)"
        case .refusedByServer(let reason):
            return "the server refused the account: \(reason)"
        }
    }
}
