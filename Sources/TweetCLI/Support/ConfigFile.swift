import FoundationEssentials
import TweetCore
import TweetStore
import TweetStorePostgres
import TweetSystem
import TwitterText

#if canImport(Glibc)
    import Glibc
#endif

/// `$XDG_CONFIG_HOME/tweetcli/config`: `key = value` lines, below flags and the environment in
/// precedence. `#` starts a comment line.
struct ConfigFile: Equatable {
    /// The keys there are, what each holds, and how a value is checked.
    enum Key: String, CaseIterable {
        case store, color, images, limit
        case postgresConnectTimeout = "postgres-connect-timeout"
        case postgresStatementTimeout = "postgres-statement-timeout"
        case postgresLockTimeout = "postgres-lock-timeout"

        var help: String {
            let seconds = "\(PostgresTimeouts.range.lowerBound)–\(PostgresTimeouts.range.upperBound)"
            switch self {
            case .store: return "the store directory, below --store and TWEETCLI_STORE"
            case .color: return "auto, always or never, below --color and NO_COLOR"
            case .images: return "auto, always, never, blocks, sixel, kitty or iterm2, below --images"
            case .limit: return "the default page size of listings, \(Limits.page.lowerBound)–\(Limits.page.upperBound)"
            case .postgresConnectTimeout:
                return "seconds to wait for a PostgreSQL server to connect, \(seconds) (default 10)"
            case .postgresStatementTimeout:
                return "seconds a PostgreSQL statement may run, \(seconds) (default 30)"
            case .postgresLockTimeout:
                return "seconds to wait for a PostgreSQL lock another client holds, \(seconds) (default 10)"
            }
        }

        /// The default of a key whose value is a number of seconds.
        var defaultSeconds: Int? {
            switch self {
            case .postgresConnectTimeout: return PostgresTimeouts.standard.connect
            case .postgresStatementTimeout: return PostgresTimeouts.standard.statement
            case .postgresLockTimeout: return PostgresTimeouts.standard.lock
            case .store, .color, .images, .limit: return nil
            }
        }

        /// Why `value` cannot be this key's value, or `nil` when it can.
        func problem(with value: String) -> String? {
            // A line break would write other keys into the file, and a NUL would cut a path short
            // where the system reads it: no setting holds a control character.
            if let scalar = TextRules.forbiddenCharacter(in: value, multiline: false) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                return "\(rawValue) holds the control character \(code); a setting is one line of visible text"
            }
            switch self {
            case .store:
                return value.isEmpty ? "store needs a path" : nil
            case .color:
                return ColorChoice(rawValue: value) == nil ? "color must be auto, always or never, not '\(value)'" : nil
            case .images:
                return ImageChoice(rawValue: value) == nil
                    ? "images must be \(ImageChoice.spelled), not '\(value)'" : nil
            case .limit:
                guard let number = Int(value), Limits.page.contains(number) else {
                    return
                        "limit must be a whole number from \(Limits.page.lowerBound) to \(Limits.page.upperBound), not '\(value)'"
                }
                return nil
            case .postgresConnectTimeout, .postgresStatementTimeout, .postgresLockTimeout:
                let range = PostgresTimeouts.range
                guard let number = Int(value), range.contains(number) else {
                    return "\(rawValue) must be a whole number of seconds from \(range.lowerBound) to "
                        + "\(range.upperBound), not '\(value)'"
                }
                return nil
            }
        }
    }

    /// One `key = value` line.
    struct Entry: Equatable {
        var key: Key
        var value: String
    }

    /// A line of the file as written: a setting, or anything else (comments, blank lines, and in a
    /// lenient reading the lines that are wrong), kept so that `config set` changes only its line.
    enum Line: Equatable {
        case entry(Entry)
        case other(String)
    }

    let path: String
    private(set) var lines: [Line] = []
    /// What is wrong with the file, line by line (only a lenient reading keeps going past one).
    private(set) var problems: [String] = []

    /// The settings in file order.
    var entries: [Entry] {
        lines.compactMap { if case .entry(let entry) = $0 { return entry } else { return nil } }
    }

    /// Where the file is: `$XDG_CONFIG_HOME/tweetcli/config`, else `~/.config/tweetcli/config`.
    static func path(environment: [String: String]) -> String {
        let base: String
        if let value = environment["XDG_CONFIG_HOME"], value.hasPrefix("/") {
            base = value
        } else {
            base =
                (environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
                    ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.config"
        }
        return base + "/tweetcli/config"
    }

    /// No settings, kept at `path`.
    init(empty path: String) {
        self.path = path
    }

    /// Reads the file; a missing file is an empty configuration.
    /// - Parameter lenient: keep a bad line as it is and note it in ``problems`` (for `config`,
    ///   which must be able to mend the file), instead of failing.
    /// - Throws: ``CommandFailure`` naming the line of an unknown key or a bad value.
    init(path: String, lenient: Bool = false) throws {
        self.path = path
        let read: Data?
        do {
            read = try Self.read(path)
        } catch let failure as CommandFailure where lenient {
            // `config` goes on with no settings, so that `config set` can replace what is there.
            problems.append(failure.description)
            return
        }
        guard let data = read else { return }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CommandFailure("the config file \(path) is not UTF-8 text")
        }
        var rows = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if rows.last == "" { rows.removeLast() }
        for (number, raw) in rows.enumerated() {
            do {
                lines.append(try Self.parse(raw, place: "\(path) line \(number + 1)"))
            } catch let failure as CommandFailure where lenient {
                problems.append(failure.description)
                lines.append(.other(raw))
            }
        }
    }

    private static func parse(_ raw: String, place: String) throws -> Line {
        let line = raw.trimmedSpaces()
        if line.isEmpty || line.hasPrefix("#") { return .other(raw) }
        guard let equals = line.firstIndex(of: "=") else { throw CommandFailure("\(place) is not 'key = value'") }
        let name = line[..<equals].trimmedSpaces()
        let value = line[line.index(after: equals)...].trimmedSpaces()
        guard let key = Key(rawValue: name) else {
            throw CommandFailure(
                "\(place): unknown key '\(name)'; the keys are " + Key.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if let problem = key.problem(with: value) { throw CommandFailure("\(place): \(problem)") }
        return .entry(Entry(key: key, value: value))
    }

    /// The file's bytes, or `nil` when there is no file: open(2) and read(2), since every command
    /// reads it and FileManager costs more than the read. Only a regular file is read: a FIFO or a
    /// device put there would hang every command (O_NONBLOCK makes the open return, fstat says what
    /// it is).
    private static func read(_ path: String) throws -> Data? {
        let opened: Int32?
        do {
            opened = try FileIO.openRegular(path, O_RDONLY)
        } catch FileError.cannotOpen(_, let reason) where reason == FileIO.notRegular {
            throw CommandFailure(
                "the config file \(path) is not a regular file",
                hint: "remove it, or replace it with a setting: tweetcli config set KEY VALUE")
        } catch FileError.cannotOpen(_, let reason) {
            // A file where a folder of the path should be: no config file, as before.
            if reason == String(cString: strerror(ENOTDIR)) { return nil }
            throw CommandFailure("cannot read the config file \(path): \(reason)")
        }
        guard let fd = opened else { return nil }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw CommandFailure("cannot read the config file \(path)") }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
            guard data.count <= 1 << 20 else { throw CommandFailure("the config file \(path) is too large") }
        }
    }

    subscript(key: Key) -> String? {
        entries.last { $0.key == key }?.value
    }

    /// Sets `key` on its own line (the first, if it is there more than once, the others removed),
    /// or on a new last line; every other line stays as written.
    mutating func set(_ key: Key, _ value: String) {
        let setting = Line.entry(Entry(key: key, value: value))
        guard let index = lines.firstIndex(where: { Self.name(of: $0) == key.rawValue }) else {
            lines.append(setting)
            return
        }
        lines[index] = setting
        lines = lines.enumerated().filter { $0.offset == index || Self.name(of: $0.element) != key.rawValue }
            .map(\.element)
    }

    /// Removes every line that sets `name`, a known key or a mistyped one.
    mutating func unset(_ name: String) {
        lines.removeAll { Self.name(of: $0) == name }
    }

    /// The key a line sets, also for a line whose key is unknown.
    private static func name(of line: Line) -> String? {
        switch line {
        case .entry(let entry): return entry.key.rawValue
        case .other(let raw):
            let trimmed = raw.trimmedSpaces()
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { return nil }
            return trimmed[..<equals].trimmedSpaces()
        }
    }

    /// The file's text: its lines as written, each setting as `key = value`.
    var text: String {
        lines.map { line in
            switch line {
            case .entry(let entry): return "\(entry.key.rawValue) = \(entry.value)\n"
            case .other(let raw): return raw + "\n"
            }
        }.joined()
    }

    /// Writes the file atomically (a temporary file, then rename), creating its directory (0700).
    func save() throws {
        let directory = PathName.parent(path)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandFailure("cannot write the config file \(path): \(error.sentence)")
        }
    }
}
