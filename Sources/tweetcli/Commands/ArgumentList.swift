/// A subcommand's arguments, consumed option by option; what is left must be positional.
struct ArgumentList {
    private var tokens: [String]
    /// Arguments after `--`: positional whatever they look like.
    private var literal: [String] = []
    let usage: String

    init(_ arguments: [String], usage: String) {
        if let separator = arguments.firstIndex(of: "--") {
            tokens = Array(arguments[..<separator])
            literal = Array(arguments[(separator + 1)...])
        } else {
            tokens = arguments
        }
        self.usage = usage
    }

    /// `--name=value` → ("--name", "value"); anything else → (argument, nil).
    static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// Removes `--name` and reports whether it was there.
    mutating func flag(_ name: String) -> Bool {
        guard let index = tokens.firstIndex(of: name) else { return false }
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

    /// A whole-number option within `range`.
    mutating func number(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                usage: usage)
        }
        return value
    }

    /// The remaining arguments, once every option is consumed; a leftover `-x` is an unknown flag.
    mutating func positionals() throws -> [String] {
        // "-5" reads as a negative number, not an option; "-x", "-inf" and "--x" are options.
        func isNumber(_ token: String) -> Bool {
            token.count > 1 && token.dropFirst().first!.isASCII && token.dropFirst().first!.isNumber
                && Double(token) != nil
        }
        if let unknown = tokens.first(where: { $0.hasPrefix("-") && $0 != "-" && !isNumber($0) }) {
            throw UsageError("unknown option '\(Self.split(unknown).0)'", usage: usage)
        }
        defer { tokens = []; literal = [] }
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
