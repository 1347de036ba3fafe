import FoundationEssentials
import TweetCore
import TweetStore

/// `--json`: the view model's data, pretty-printed, timestamps in ISO 8601 UTC.
enum JSONOutput {
    static func render(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
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
    var tweets: [Tweet]
}
