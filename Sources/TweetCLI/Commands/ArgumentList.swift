import FoundationEssentials
import TweetStore

/// A subcommand's arguments, consumed option by option; what is left must be positional.
struct ArgumentList {
    private var tokens: [String]
    /// Arguments after `--`: positional whatever they look like.
    private var literal: [String] = []
    let usage: String
    /// The option names the command knows, its own and the global ones, for "did you mean".
    private let known: [String]

    /// Splits off what follows `--`, spells short options long (`-n 5` is `--limit 5`, `-n5` too)
    /// and refuses an option given twice.
    /// - Throws: ``UsageError`` for a repeated option.
    init(_ arguments: [String], options: [Option] = [], usage: String) throws {
        self.usage = usage
        known = (options + GlobalOptions.table).map(\.name)
        var tokens = arguments
        if let separator = arguments.firstIndex(of: "--") {
            tokens = Array(arguments[..<separator])
            literal = Array(arguments[(separator + 1)...])
        }
        var seen: Set<String> = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            if let option = options.first(where: { $0.short.map { "-\($0)" } == String(token.prefix(2)) }),
                token.count == 2 || option.value != nil
            {
                tokens[index] = option.name
                if token.count > 2 { tokens.insert(String(token.dropFirst(2)), at: index + 1) }
            }
            let name = Self.split(tokens[index]).0
            if let option = options.first(where: { $0.name == name }) {
                guard seen.insert(name).inserted || option.repeatable else {
                    throw UsageError("\(name) was given twice; give it once", usage: usage)
                }
                if option.value != nil && Self.split(tokens[index]).1 == nil { index += 1 }  // Skip its value.
            }
            index += 1
        }
        self.tokens = tokens
    }

    /// `--name=value` → ("--name", "value"); anything else → (argument, nil).
    static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// Removes `--name` and reports whether it was there.
    mutating func flag(_ name: String) throws -> Bool {
        guard let index = tokens.firstIndex(where: { Self.split($0).0 == name }) else { return false }
        guard Self.split(tokens[index]).1 == nil else { throw UsageError("\(name) takes no value", usage: usage) }
        tokens.remove(at: index)
        return true
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) and returns the value.
    mutating func option(_ name: String) throws -> String? {
        guard let index = tokens.firstIndex(where: { Self.split($0).0 == name }) else { return nil }
        let (_, inline) = Self.split(tokens[index])
        tokens.remove(at: index)
        if let inline { return inline }
        guard index < tokens.count else { throw UsageError("\(name) needs a value", usage: usage) }
        return tokens.remove(at: index)
    }

    /// Removes every `--name VALUE` and `--note VALUE`, in order: each value of `name`, with the
    /// `note` given after it and before the next `name` (`--image a.png --alt "a cat"`).
    /// - Throws: ``UsageError`` for a note before any `name`, two notes for one, or a missing value.
    mutating func pairs(_ name: String, note: String) throws -> [(value: String, note: String?)] {
        var pairs: [(value: String, note: String?)] = []
        var index = 0
        while index < tokens.count {
            let (option, inline) = Self.split(tokens[index])
            guard option == name || option == note else {
                index += 1
                continue
            }
            tokens.remove(at: index)
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < tokens.count else { throw UsageError("\(option) needs a value", usage: usage) }
                value = tokens.remove(at: index)
            }
            if option == name {
                pairs.append((value, nil))
            } else if let last = pairs.indices.last, pairs[last].note == nil {
                pairs[last].note = value
            } else {
                let problem = pairs.isEmpty ? "comes before any \(name)" : "was given twice for one \(name)"
                throw UsageError("\(note) describes the \(name) before it, and \(problem)", usage: usage)
            }
        }
        return pairs
    }

    /// A whole-number option within `range`.
    mutating func number(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try option(name) else { return nil }
        return try Self.number(text, named: name, in: range, usage: usage)
    }

    /// `text` as a whole number within `range`.
    static func number(_ text: String, named name: String, in range: ClosedRange<Int>, usage: String?) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                usage: usage)
        }
        return value
    }

    /// `text` as an ISO 8601 time: UTC (`2026-12-05T12:00:00Z`, seconds to any fraction) or with an
    /// offset (`2026-12-05T21:00:00+09:00`); `nil` for anything else.
    static func time(_ text: String) -> Date? {
        if let time = Timestamp.date(from: text) { return time }
        let bytes = Array(text.utf8)
        let count = bytes.count
        guard count > 6, bytes[count - 6] == UInt8(ascii: "+") || bytes[count - 6] == UInt8(ascii: "-"),
            bytes[count - 3] == UInt8(ascii: ":"), let hours = Timestamp.decimal(bytes, (count - 5)..<(count - 3)),
            let minutes = Timestamp.decimal(bytes, (count - 2)..<count), hours < 24, minutes < 60,
            let local = Timestamp.date(from: String(decoding: bytes[..<(count - 6)], as: UTF8.self) + "Z")
        else { return nil }
        let offset = Double(hours * 3600 + minutes * 60)
        return local.addingTimeInterval(bytes[count - 6] == UInt8(ascii: "+") ? -offset : offset)
    }

    /// The remaining arguments, once every option is consumed; a leftover `-x` is an unknown flag.
    mutating func positionals() throws -> [String] {
        // "-5" reads as a negative number, not an option; "-x", "-inf" and "--x" are options.
        func isNumber(_ token: String) -> Bool {
            token.count > 1 && token.dropFirst().first!.isASCII && token.dropFirst().first!.isNumber
                && Double(token) != nil
        }
        if let unknown = tokens.first(where: { $0.hasPrefix("-") && $0 != "-" && !isNumber($0) }) {
            let name = Self.split(unknown).0
            throw UsageError(
                "unknown option '\(name)'" + Suggestion.clause(for: name, among: known), usage: usage)
        }
        defer {
            tokens = []
            literal = []
        }
        return tokens + literal
    }

    /// Checks that at most `count` positionals remain and returns them.
    mutating func positionals(atMost count: Int) throws -> [String] {
        let values = try positionals()
        guard values.count <= count else {
            throw UsageError("unexpected argument '\(values[count])'", usage: usage)
        }
        return values
    }
}
