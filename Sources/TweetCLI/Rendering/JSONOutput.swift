import Foundation
import TweetCore

/// `--json`: the view model's data, pretty-printed, timestamps in ISO 8601 UTC.
enum JSONOutput {
    static func render(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return escapingTerminalControls(String(decoding: try encoder.encode(value), as: UTF8.self)) + "\n"
    }

    /// JSON that is safe on a terminal too: JSONEncoder escapes C0 controls, and this escapes what
    /// it leaves raw (DEL, C1 controls, line separators, bidirectional controls) as `\uXXXX`, which
    /// decodes to the same string.
    static func escapingTerminalControls(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: needsEscape) else { return json }
        var output = ""
        output.unicodeScalars.reserveCapacity(json.unicodeScalars.count)
        for scalar in json.unicodeScalars {
            if needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

/// The `profile --json` shape.
struct ProfileJSON: Encodable {
    var user: User
    var stats: UserStats
    var tweets: [Tweet]
}
