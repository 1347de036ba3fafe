import Foundation

/// Progress notes on stderr, so that stdout holds only the report.
enum ProgressLog {
    /// Writes `message` as one line on stderr, prefixed with the tool's name.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("tweetbench: \(message)\n".utf8))
    }
}
