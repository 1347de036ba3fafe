import FoundationEssentials

/// How long a PostgreSQL store may keep a command waiting, in whole seconds: a server that
/// accepts a connection and then says nothing, a statement that never ends, and a lock another
/// client holds must each end the command with a sentence, never hang it.
public struct PostgresTimeouts: Sendable, Equatable {
    /// Making the connection, the handshake included (libpq's `connect_timeout`, which waits at
    /// least 2 seconds). A `connect_timeout` in the connection string wins over it.
    public var connect: Int
    /// One statement (the server's `statement_timeout`); the client gives up on a server that has
    /// not answered a little after it. A `-c statement_timeout=…` in the string's `options` wins.
    public var statement: Int
    /// Waiting for a lock another client holds (the server's `lock_timeout`), such as the clock
    /// row every write takes. A `-c lock_timeout=…` in the string's `options` wins.
    public var lock: Int

    /// The defaults: 10 seconds to connect, 30 for a statement, 10 for a lock.
    public static let standard = PostgresTimeouts(connect: 10, statement: 30, lock: 10)

    /// The values a setting may take: a second to a day.
    public static let range = 1...86_400

    public init(connect: Int, statement: Int, lock: Int) {
        self.connect = connect
        self.statement = statement
        self.lock = lock
    }

    /// The server options that set the statement and lock timeouts, ahead of `options` (the
    /// connection string's own, or `PGOPTIONS`), so that a setting there comes later and wins.
    /// JIT compilation is off too: every statement of tweetcli's reads a page, and the planner's
    /// guess at a many-prefix range scan's cost at ten million rows crossed `jit_above_cost`,
    /// where compiling took many times longer than the query.
    func serverOptions(before options: String?) -> String {
        let ours = "-c statement_timeout=\(statement)s -c lock_timeout=\(lock)s -c jit=off"
        guard let options, !options.isEmpty else { return ours }
        return ours + " " + options
    }

    /// How long the client waits for a statement's answer: the statement timeout in force (the
    /// last one `options` sets, else this one) and two seconds for the server's own cancellation to
    /// arrive; `nil` when the timeout in force is off (0) or cannot be read here.
    func clientDeadline(options: String?) -> Duration? {
        var milliseconds = statement * 1000
        if let options, let set = Self.lastSetting("statement_timeout", in: options) {
            guard let parsed = Self.milliseconds(set) else { return nil }
            milliseconds = parsed
        }
        guard milliseconds > 0 else { return nil }
        return .milliseconds(milliseconds) + .seconds(2)
    }

    /// The value of the last `-c NAME=VALUE` (or `-cNAME=VALUE`, `--NAME=VALUE`) in `options`.
    static func lastSetting(_ name: String, in options: String) -> String? {
        var found: String?
        for word in options.split(separator: " ") {
            var setting = Substring(word)
            if setting.hasPrefix("-c") {
                setting = setting.dropFirst(2)
            } else if setting.hasPrefix("--") {
                setting = setting.dropFirst(2)
            }
            guard let equals = setting.firstIndex(of: "=") else { continue }
            let key = String(setting[..<equals]).replacing("-", with: "_")
            if key == name { found = String(setting[setting.index(after: equals)...]) }
        }
        return found
    }

    /// A PostgreSQL duration (`30s`, `500`, `2min`; no unit is milliseconds) in milliseconds.
    static func milliseconds(_ text: String) -> Int? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard let number = Int(digits), number <= 1 << 40 else { return nil }
        let units = ["": 1, "ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000, "d": 86_400_000]
        guard let unit = units[text.dropFirst(digits.count).trimmingPrefix(" ").lowercased()] else { return nil }
        return number * unit
    }
}
