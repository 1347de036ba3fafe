import CLibPQ
import Foundation

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

    /// Whether `text` names a PostgreSQL store rather than a directory.
    public static func isLocation(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Parses `text` with `PQconninfoParse`.
    /// - Throws: ``PostgresLocationError`` with libpq's reason (never the text, which may hold a password).
    public init(_ text: String) throws {
        guard Self.isLocation(text) else { throw PostgresLocationError(reason: "it is not a postgresql:// URI") }
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &error) else {
            let reason = error.map { String(cString: $0) } ?? "libpq could not parse it"
            if let error { PQfreemem(error) }
            throw PostgresLocationError(
                reason: reason.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: text, with: "…")
            )
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        connectionString = text
        host = values["host"] ?? values["hostaddr"]
        port = values["port"]
        database = values["dbname"]
        user = values["user"]
    }

    /// `host:port/database` with libpq's defaults named, for messages and the session's key.
    public var displayName: String {
        let environment = ProcessInfo.processInfo.environment
        let host = host ?? environment["PGHOST"] ?? "localhost"
        let port = port ?? environment["PGPORT"] ?? "5432"
        let database = database ?? environment["PGDATABASE"] ?? user ?? environment["PGUSER"] ?? "(default)"
        return "postgresql://\(host.hasPrefix("/") ? "[\(host)]" : host):\(port)/\(database)"
    }
}

/// A `--store` that looks like a PostgreSQL URI but is not one libpq accepts.
public struct PostgresLocationError: Error, LocalizedError, Equatable {
    public let reason: String
    public var errorDescription: String? { "the PostgreSQL store's URI is not valid: \(reason)" }
}
