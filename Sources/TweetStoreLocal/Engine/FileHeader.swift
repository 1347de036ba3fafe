import TweetStore

/// The first line of the journal and of a segment: `{"format":"…","version":N}`.
enum FileHeader {
    enum Problem: Error, Equatable {
        /// Not a header of this format; the reason says why.
        case notAHeader(String)
        /// Written by a newer tweetcli.
        case newerVersion(Int64)
    }

    /// Checks that `line` is a header of `format` with a version this tweetcli reads.
    static func check(_ line: some Collection<UInt8>, format: String, supportedVersion: Int64) throws(Problem) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            throw .notAHeader("not a \(format) header (\(error))")
        }
        guard case .object(let fields) = value, fields["format"]?.stringValue == format,
            let version = fields["version"]?.integerValue
        else { throw .notAHeader("not a \(format) header") }
        guard version <= supportedVersion else { throw .newerVersion(version) }
    }
}
