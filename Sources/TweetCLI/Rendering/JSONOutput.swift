import FoundationEssentials
import TweetCore
import TweetStore

/// `--json`: the view model's data, pretty-printed, timestamps in ISO 8601 UTC.
enum JSONOutput {
    static func render(_ value: some Encodable) throws -> String {
        try render(value, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// `value` as one line (JSON Lines): what a command that keeps printing (`--watch`) prints
    /// each row as, so that a program reads each as it comes.
    static func line(_ value: some Encodable) throws -> String {
        try render(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func render(_ value: some Encodable, formatting: JSONEncoder.OutputFormatting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        let json = JSONValue.escapingTerminalControls(Array(try encoder.encode(value)))
        return String(decoding: json, as: UTF8.self) + "\n"
    }
}

/// The `profile --json` shape.
struct ProfileJSON: Encodable {
    var user: User
    var stats: UserStats
    /// Where the signed-in user stands with the profile (`following`, `requested`, `none`);
    /// absent on their own.
    var status: FollowStatus?
    /// Whether the tweets are kept from the signed-in user (protected, and not approved).
    var tweetsAreProtected: Bool
    var tweets: [Tweet]
}
