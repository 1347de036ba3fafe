/// One option of a command, as `help`, the completions and the man page describe it and as
/// ``ArgumentList`` parses it: the single table they are all generated from.
struct Option: Sendable {
    /// The long name with its dashes: `--limit`.
    let name: String
    /// The short name, if users expect one: `n` for `-n`.
    let short: Character?
    /// The value's placeholder (`N`, `TWEET_ID`); `nil` for a flag.
    let value: String?
    /// What it does, with its range and default.
    let help: String
    /// The values it takes, when there are few (for completions).
    let choices: [String]
    /// Whether it may be given more than once (`--image`).
    let repeatable: Bool

    init(
        _ name: String, short: Character? = nil, value: String? = nil, choices: [String] = [],
        repeatable: Bool = false, _ help: String
    ) {
        self.name = name
        self.short = short
        self.value = value
        self.help = help
        self.choices = choices
        self.repeatable = repeatable
    }

    /// `-n, --limit N`, as the help lists it.
    var synopsis: String {
        (short.map { "-\($0), " } ?? "") + name + (value.map { " " + $0 } ?? "")
    }

    // Options several commands share, described once.
    static func limit(_ what: String) -> Option {
        Option(
            "--limit", short: "n", value: "N",
            "\(what) per page, \(Limits.page.lowerBound)–\(Limits.page.upperBound) (default \(Limits.defaultPage))")
    }
    static let before = Option(
        "--before", value: "TWEET_ID", "only tweets older than this one (the \"More:\" line gives it)")
    static let passwordStdin = Option("--password-stdin", "read the password from the first line of stdin")
    static let help = Option("--help", short: "h", "show this help")
}

/// The ranges option values must fall in, stated once for parsing and help.
enum Limits {
    static let page = 1...200
    /// A week at most: the trend counters are kept by the hour.
    static let trendHours = 1...168
    static let defaultPage = 20
}
