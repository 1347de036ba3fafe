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
    /// The most bytes of a description, written or read.
    static let maximumDescription = 120
    /// The most bytes read: more is not a file tweetcli wrote.
    static let maximumBytes = 64 << 10
    /// The longest ID a row can show (whole IDs are 20 characters).
    static let maximumIDLength = 32

    private(set) var entries: [Entry] = []
    /// The IDs listed, to keep each once without comparing it with every row before.
    private var listed: Set<String> = []

    init(entries: [Entry] = []) {
        for entry in entries { append(entry) }
    }

    /// Adds a row unless its ID is already listed or the listing is full; the description is
    /// neutralised and cut, so the file never holds a control character or a long line.
    mutating func append(_ entry: Entry) {
        guard entries.count < Self.maximumEntries, Self.isID(entry.id), listed.insert(entry.id).inserted else { return }
        entries.append(Entry(id: entry.id, description: Self.neutralised(entry.description)))
    }

    /// The file's bytes for the rows of `tweets` (and of the tweets they quote), as the renderer
    /// shows them: made in one pass into one buffer, since every listing a person sees makes it.
    /// - Parameter shortIDs: each ID's short form; an ID without one is shown, and listed, whole.
    static func fileBytes(of tweets: [Tweet], shortIDs: [String: String]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tweets.count * 2 * (maximumIDLength + maximumDescription + 2))
        var listed: [String] = []
        func add(_ tweet: Tweet) {
            let id = shortIDs[tweet.id] ?? tweet.id
            guard listed.count < maximumEntries, isID(id), !listed.contains(id) else { return }
            listed.append(id)
            bytes.append(contentsOf: id.utf8)
            bytes.append(0x09)
            var used = 0
            // A username from the store is written only when it is one (letters, digits, `_`).
            if let user = tweet.user, user.username.utf8.count <= 15,
                user.username.utf8.allSatisfy({
                    (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 95
                })
            {
                bytes.append(UInt8(ascii: "@"))
                bytes.append(contentsOf: user.username.utf8)
                bytes.append(contentsOf: ": ".utf8)
                used = user.username.utf8.count + 3
            }
            bytes.append(contentsOf: neutralised(tweet.caption, maximumBytes: maximumDescription - used).utf8)
            bytes.append(0x0A)
        }
        for tweet in tweets {
            add(tweet)
            if case .tweet(let quoted)? = tweet.quoted { add(quoted) }
        }
        return bytes
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

    /// Writes the listing to `path` (see ``save(_:path:)``).
    func save(path: String) throws {
        try Self.save(Array(text.utf8), path: path)
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
    static func save(_ bytes: [UInt8], path: String) throws {
        let temporary = path + ".\(getpid()).new"
        var fd = FileIO.createExclusive(temporary)
        if fd < 0 && errno == ENOENT {
            let directory = PathName.parent(path)
            // One mkdir when the state directory is there (a signed-in user's is): FileManager's
            // set-up would cost the first listing more than the rest of its work.
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            fd = FileIO.createExclusive(temporary)
        }
        guard fd >= 0 else { throw FileError.io(path: temporary, reason: FileIO.errnoText()) }
        do {
            defer { close(fd) }
            try FileIO.writeAll(fd, bytes, path: temporary)
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
    /// bidirectional ones) made a space, cut at a character's edge to at most `maximumBytes` bytes:
    /// it is shown in a shell's completion menu, where an escape sequence would act. Read as bytes,
    /// since a listing describes every row it shows.
    static func neutralised(_ text: String, maximumBytes: Int = maximumDescription) -> String {
        var text = text
        return text.withUTF8 { bytes in
            // First where to cut and whether anything needs replacing: most captions need nothing,
            // and their bytes are then taken whole.
            var cut = 0
            var clean = true
            while cut < bytes.count {
                let lead = bytes[cut]
                let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
                guard cut + length <= maximumBytes, cut + length <= bytes.count else { break }
                if lead < 0x20 || lead == 0x7F || lead == 0xC2 || lead == 0xD8 || lead == 0xE2 { clean = false }
                cut += length
            }
            if clean { return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<cut]), as: UTF8.self) }
            var output: [UInt8] = []
            output.reserveCapacity(cut)
            var index = 0
            while index < cut {
                let lead = bytes[index]
                let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
                let second = length > 1 ? bytes[index + 1] : 0
                let third = length > 2 ? bytes[index + 2] : 0
                let control: Bool
                switch length {
                case 1: control = lead < 0x20 || lead == 0x7F
                case 2: control = (lead == 0xC2 && second < 0xA0) || (lead == 0xD8 && second == 0x9C)
                case 3:
                    control =
                        lead == 0xE2
                        && ((second == 0x80 && (third == 0x8E || third == 0x8F || (0xA8...0xAE).contains(third)))
                            || (second == 0x81 && (0xA6...0xA9).contains(third)))
                default: control = false
                }
                if control {
                    output.append(0x20)
                } else {
                    for offset in 0..<length { output.append(bytes[index + offset]) }
                }
                index += length
            }
            return String(decoding: output, as: UTF8.self)
        }
    }
}
