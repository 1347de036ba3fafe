import CCrypt
import FoundationEssentials
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// Hashes and checks passwords with yescrypt, through the system's libxcrypt.
public struct PasswordHasher: Sendable {
    /// Where the salt's random bytes come from: `nil` lets libxcrypt read the OS's randomness.
    private let saltBytes: (@Sendable () -> [UInt8])?

    /// A hasher with salts from the operating system's randomness.
    public init() {
        saltBytes = nil
    }

    /// A hasher whose salts come from `saltBytes` (reproducible demo data; never for real accounts).
    public init(saltBytes: @escaping @Sendable () -> [UInt8]) {
        self.saltBytes = saltBytes
    }

    /// How every hash ``hash(_:)`` makes begins: yescrypt at libxcrypt's default cost.
    static let keptCost = "$y$j9T$"

    /// A yescrypt hash of `password` with a new salt (`$y$…`).
    /// - Throws: ``AuthError/passwordHashingFailed`` if libxcrypt refuses.
    public func hash(_ password: String) throws -> String {
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        let random = saltBytes?().map { CChar(bitPattern: $0) }
        let made: UnsafeMutablePointer<CChar>? =
            if let random {
                crypt_gensalt_rn("$y$", 0, random, Int32(random.count), &setting, Int32(setting.count))
            } else {
                crypt_gensalt_rn("$y$", 0, nil, 0, &setting, Int32(setting.count))
            }
        guard made != nil else { throw AuthError.passwordHashingFailed }
        let hash = try Self.crypt(password, setting: setting)
        guard hash.hasPrefix("$y$") else { throw AuthError.passwordHashingFailed }
        return hash
    }

    /// The yescrypt hash of `password` with `setting` (as a kept hash begins: `$y$`, the cost
    /// ``hash(_:)`` uses, and a 16-byte salt), to compare with that hash.
    /// - Throws: ``AuthError/passwordHashingFailed`` for any other setting (a server asking for a
    ///   cheaper hash, or one costly enough to exhaust this machine, gets none) or one libxcrypt refuses.
    public func hash(_ password: String, setting: String) throws -> String {
        let alphabet = Set("./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        let salt = setting.utf8.dropFirst(Self.keptCost.utf8.count)
        guard setting.hasPrefix(Self.keptCost), salt.count == 22, salt.allSatisfy(alphabet.contains),
            let last = salt.last, "./01".utf8.contains(last)
        else { throw AuthError.passwordHashingFailed }
        let hash = try Self.crypt(password, setting: Array(setting.utf8CString))
        guard hash.hasPrefix("$y$") else { throw AuthError.passwordHashingFailed }
        return hash
    }

    /// The name a session token is known by in the store: libxcrypt's HMAC-SHA1 construction
    /// (`$sha1$`, one round, a fixed salt), which for a random 128-bit token is as good as a
    /// plain hash and costs microseconds, since every signed-in command checks it.
    /// - Throws: ``AuthError/passwordHashingFailed`` if libxcrypt refuses.
    static func tokenName(_ token: String) throws -> String {
        let hash = try crypt(token, setting: Array("$sha1$1$tweetcli$".utf8CString))
        guard let last = hash.split(separator: "$").last, hash.hasPrefix("$sha1$") else {
            throw AuthError.passwordHashingFailed
        }
        // A document ID has no slash. (A plain map: Foundation's replacingOccurrences has a costly
        // set-up on its first use, and this runs in every command.)
        return String(last.map { $0 == "/" ? "-" : $0 })
    }

    /// Whether `password` matches `hash`, compared in constant time.
    public func verify(_ password: String, against hash: String) -> Bool {
        guard let computed = try? Self.crypt(password, setting: Array(hash.utf8CString)) else {
            // A hash libxcrypt cannot read matches no password; nor does any when its working
            // memory cannot be had: a sign-in fails closed, never open.
            return false
        }
        let (a, b) = (Array(computed.utf8), Array(hash.utf8))
        guard a.count == b.count, !computed.hasPrefix("*") else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func crypt(_ password: String, setting: [CChar]) throws -> String {
        // crypt_data is about 32 KiB: keep it off the stack, zeroed as libxcrypt asks.
        guard let raw = calloc(1, MemoryLayout<crypt_data>.size) else { throw AuthError.passwordHashingFailed }
        defer {
            memset(raw, 0, MemoryLayout<crypt_data>.size)  // Leave no trace of the password behind.
            free(raw)
        }
        let data = raw.assumingMemoryBound(to: crypt_data.self)
        guard let result = crypt_r(password, setting, data) else { throw AuthError.passwordHashingFailed }
        return String(cString: result)
    }
}
