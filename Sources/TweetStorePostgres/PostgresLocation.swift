import CLibPQ
import FoundationEssentials
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL store's location: a libpq connection URI (`postgresql://…` or `postgres://…`,
/// Unix sockets through a `host=` parameter), parsed by libpq itself.
public struct PostgresLocation: Sendable, Equatable {
    /// The URI as given, for libpq.
    let connectionString: String
    /// The server's host (a socket directory for a Unix socket), port and database, as libpq reads
    /// them; `nil` where the URI leaves them to libpq's defaults.
    public let host: String?
    public let port: String?
    public let database: String?
    public let user: String?
    /// Server options (such as a `search_path`), which make a different store on the same database.
    public let options: String?
    /// How long the server may keep a command waiting; the connection string's own settings win.
    public var timeouts = PostgresTimeouts.standard
    /// On a server that keeps the accounts, the device role (and its password) to connect as
    /// instead of the connection string's user.
    public var device: DeviceLogin?

    /// Whether `text` names a PostgreSQL store rather than a directory.
    public static func isLocation(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Parses `text` with `PQconninfoParse`.
    /// - Throws: ``PostgresLocationError`` with libpq's reason (never the text, which may hold a password).
    public init(_ text: String) throws {
        guard Self.isLocation(text) else { throw PostgresLocationError(reason: "it is not a postgresql:// URI") }
        let pq = try LibPQ.get()
        var error: UnsafeMutablePointer<CChar>?
        guard let parsed = pq.conninfoParse(text, &error) else {
            let reason = error.map { String(cString: $0) } ?? "libpq could not parse it"
            if let error { pq.freemem(error) }
            throw PostgresLocationError(reason: Self.withoutQuotedParts(reason))
        }
        defer { pq.conninfoFree(parsed) }
        var values: [String: String] = [:]
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        connectionString = text
        host = values["host"] ?? values["hostaddr"]
        port = values["port"]
        database = values["dbname"]
        user = values["user"]
        options = values["options"]
        connectTimeout = values["connect_timeout"].flatMap { Int($0.trimmedSpaces()) }
    }

    /// The connection string's own `connect_timeout`, which wins over ``timeouts``.
    let connectTimeout: Int?

    /// The seconds libpq waits to connect: the string's own, else ``timeouts``' (libpq waits
    /// at least 2; 0 or less would wait for ever, so it is not taken).
    var effectiveConnectTimeout: Int {
        max(2, connectTimeout.flatMap { $0 > 0 ? $0 : nil } ?? timeouts.connect)
    }

    /// libpq's reason with every quoted part (which may be a piece of a password) left out.
    static func withoutQuotedParts(_ reason: String) -> String {
        var kept = ""
        var quoted = false
        for character in reason.trimmed() {
            if character == "\"" {
                quoted.toggle()
                if quoted { kept += "\"…\"" }
            } else if !quoted {
                kept.append(character)
            }
        }
        return kept
    }

    /// A URI as it may be shown: without the password of its user part or of a `password=`
    /// parameter.
    public static func redacted(_ text: String) -> String {
        guard isLocation(text), let scheme = text.firstRange(of: "://") else { return text }
        var rest = String(text[scheme.upperBound...])
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
            rest.replaceSubrange(colon..<at, with: "")
        }
        if let query = rest.firstIndex(of: "?") {
            let parameters = rest[rest.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
            let kept = parameters.filter { !$0.lowercased().hasPrefix("password=") }
            rest = String(rest[...query]) + kept.joined(separator: "&")
            if rest.hasSuffix("?") { rest.removeLast() }
        }
        return String(text[..<scheme.upperBound]) + rest
    }

    /// `text` (a `postgresql://` URI) connecting as `login`'s role with its password instead of
    /// its own user: the user part of the authority is replaced (percent-encoded), and any
    /// `user=` or `password=` parameter dropped.
    public static func replacingUser(of text: String, with login: DeviceLogin) -> String {
        guard isLocation(text), let scheme = text.firstRange(of: "://") else { return text }
        var rest = String(text[scheme.upperBound...])
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let hostStart = rest[..<authorityEnd].lastIndex(of: "@").map { rest.index(after: $0) } ?? rest.startIndex
        rest.replaceSubrange(
            rest.startIndex..<hostStart, with: "\(percentEncoded(login.role)):\(percentEncoded(login.password))@")
        if let query = rest.firstIndex(of: "?") {
            let parameters = rest[rest.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
            let kept = parameters.filter {
                let lowered = $0.lowercased()
                return !lowered.hasPrefix("password=") && !lowered.hasPrefix("user=")
            }
            rest = String(rest[...query]) + kept.joined(separator: "&")
            if rest.hasSuffix("?") { rest.removeLast() }
        }
        return String(text[..<scheme.upperBound]) + rest
    }

    /// `text` with every byte but unreserved ones percent-encoded, for a URI's user part.
    private static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || "-._~".utf8.contains(byte)
            {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return encoded
    }

    /// What names this store's session file: the server, the database and any options, never a
    /// user's password.
    public var sessionKey: String { displayName + (options.map { " options=\($0)" } ?? "") }

    /// `host:port/database` with libpq's defaults named, for messages and the session's key.
    public var displayName: String {
        let environment = Self.environment
        let host = host ?? environment("PGHOST") ?? "localhost"
        let port = port ?? environment("PGPORT") ?? "5432"
        let database = database ?? environment("PGDATABASE") ?? user ?? environment("PGUSER") ?? "(default)"
        return "postgresql://\(host.hasPrefix("/") ? "[\(host)]" : host):\(port)/\(database)"
    }
}

extension PostgresLocation {
    /// One of libpq's environment variables, read as libpq reads it (`getenv`): every command
    /// names its store, and ProcessInfo would copy the whole environment each time.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

/// A `--store` that looks like a PostgreSQL URI but is not one libpq accepts.
public struct PostgresLocationError: Error, LocalizedError, Equatable {
    public let reason: String
    public var errorDescription: String? { "the PostgreSQL store's URI is not valid: \(reason)" }
}
