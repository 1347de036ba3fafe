import FoundationEssentials
import TweetCore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The tweets the last listing showed a person, by their short IDs in the order shown, so that
/// `like <Tab>` offers what is on the screen. One small file per store in the state directory,
/// read back by shell completion as untrusted: anyone may have written it.
struct LastListing: Equatable {
    /// One row: the short ID and a few words to tell it by (its author and caption).
    struct Entry: Equatable {
        var id: String
        var description: String
    }

    /// The most rows kept: a page is at most 200 tweets, and each may quote one.
    static let maximumEntries = 400
    /// The most characters of a description, written or read.
    static let maximumDescription = 60
    /// The most bytes read: more is not a file tweetcli wrote.
    static let maximumBytes = 64 << 10
    /// The longest ID a row can show (whole IDs are 20 characters).
    static let maximumIDLength = 32

    private(set) var entries: [Entry] = []

    init(entries: [Entry] = []) {
        for entry in entries { append(entry) }
    }

    /// Adds a row unless its ID is already listed or the listing is full; the description is
    /// neutralised and cut, so the file never holds a control character or a long line.
    mutating func append(_ entry: Entry) {
        guard entries.count < Self.maximumEntries, Self.isID(entry.id), !entries.contains(where: { $0.id == entry.id })
        else { return }
        entries.append(Entry(id: entry.id, description: Self.neutralised(entry.description)))
    }

    /// The rows of `tweets` (and of the tweets they quote), as the renderer shows them.
    /// - Parameter shortIDs: each ID's short form; an ID without one is shown, and listed, whole.
    static func of(_ tweets: [Tweet], shortIDs: [String: String]) -> LastListing {
        var listing = LastListing()
        for tweet in tweets {
            listing.append(Entry(id: shortIDs[tweet.id] ?? tweet.id, description: describe(tweet)))
            if case .tweet(let quoted)? = tweet.quoted {
                listing.append(Entry(id: shortIDs[quoted.id] ?? quoted.id, description: describe(quoted)))
            }
        }
        return listing
    }

    private static func describe(_ tweet: Tweet) -> String {
        let author = tweet.user.map { "@" + $0.username + ": " } ?? ""
        // Only the start of the caption is kept, so a long caption costs no more than a short one.
        return author + String(tweet.caption.prefix(maximumDescription))
    }

    // MARK: The file

    /// `<state>/listings/<hash of the store>.tsv`, keyed as the session file is.
    static func path(forStore key: String, stateDirectory: String) -> String {
        AppServices.statePath(forStore: key, stateDirectory: stateDirectory, folder: "listings", suffix: ".tsv")
    }

    /// The file's text: a line per row, `ID<Tab>description`.
    var text: String {
        var text = ""
        for entry in entries { text += entry.id + "\t" + entry.description + "\n" }
        return text
    }

    /// Reads `text` as untrusted: lines that are not `ID<Tab>description` with an ID made of
    /// letters and digits are skipped, descriptions are neutralised and cut, and at most
    /// ``maximumEntries`` rows are kept.
    init(parsing text: Substring) {
        // Split by scalars, not characters: "\r\n" is one character, and would hide a line break.
        for line in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: true) {
            guard entries.count < Self.maximumEntries else { break }
            let fields = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2 else { continue }
            append(
                Entry(
                    id: String(String.UnicodeScalarView(fields[0])),
                    description: String(String.UnicodeScalarView(fields[1]))))
        }
    }

    /// The listing at `path`; an empty one when there is none or it cannot be read, since a
    /// completion has nothing to say about a broken file.
    static func load(path: String) -> LastListing {
        // Absent or unreadable: nothing to offer.
        guard let fd = try? FileIO.openRegular(path, O_RDONLY) else { return LastListing() }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: maximumBytes)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                FileIO.retrying { Int32(Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)) }
            }
            guard read > 0 else { break }
            count += Int(read)
        }
        // A cut at the cap may split the last line or a character: the partial line is dropped.
        let whole = count == bytes.count ? (bytes[..<count].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) : count
        return LastListing(parsing: Substring(String(decoding: bytes[..<whole], as: UTF8.self)))
    }

    /// Writes the listing to `path` atomically (a temporary file of this process, then rename),
    /// creating its folder (0700) when it is missing. No fsync: a listing lost in a crash only
    /// leaves completion with nothing to offer, and a sync would slow every listing.
    /// - Throws: ``FileError`` when the file cannot be written.
    func save(path: String) throws {
        let temporary = path + ".\(getpid()).new"
        var fd = FileIO.createExclusive(temporary)
        if fd < 0 && errno == ENOENT {
            let directory = PathName.parent(path)
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            fd = FileIO.createExclusive(temporary)
        }
        guard fd >= 0 else { throw FileError.io(path: temporary, reason: FileIO.errnoText()) }
        do {
            defer { close(fd) }
            try FileIO.writeAll(fd, Array(text.utf8), path: temporary)
            guard FileIO.retrying({ rename(temporary, path) }) == 0 else {
                throw FileError.io(path: path, reason: FileIO.errnoText())
            }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    // MARK: Checks

    static func isID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumIDLength
            && text.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
    }

    /// `text` with every control character (C0, DEL, C1, line and paragraph separators, and the
    /// bidirectional ones) made a space, cut to ``maximumDescription`` characters: it is shown in
    /// a shell's completion menu, where an escape sequence would act.
    static func neutralised(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var characters = 0
        for scalar in text.unicodeScalars {
            guard characters < maximumDescription else { break }
            let value = scalar.value
            let control =
                value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x061C || (0x200E...0x200F).contains(value)
                || (0x2028...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            result.append(control ? " " : scalar)
            characters += 1
        }
        return String(result)
    }
}
