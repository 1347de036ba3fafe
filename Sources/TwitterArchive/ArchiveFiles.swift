import FoundationEssentials
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The files of a Twitter archive, from the downloaded `.zip` or the folder it unpacks to, named
/// as the archive names them (`data/tweets.js`), each read a piece at a time.
struct ArchiveFiles {
    private enum Source {
        case zip(ZipArchive, prefix: String)
        /// The folder that holds `data/`'s files.
        case folder(URL)
    }

    private let source: Source
    /// Where the archive is, as the user gave it.
    let path: String
    /// The names of the files under `data/`, as `data/NAME`.
    let names: [String]

    /// The most bytes one of the archive's files may have: far more than any real one (Twitter
    /// splits its files into parts), far less than would exhaust memory.
    static let maximumFileBytes: UInt64 = 4 << 30
    /// The most bytes all of its files may have together, however often they are read.
    static let maximumTotalBytes: UInt64 = 8 << 30

    /// The bytes read so far, of every file.
    private final class Tally {
        var bytes: UInt64 = 0
    }
    private let tally = Tally()

    /// Opens the archive at `path`: a zip file, a folder holding `data/`, or the `data` folder itself.
    /// - Throws: ``ArchiveError/unreadable(_:reason:)``.
    init(path: String) throws(ArchiveError) {
        self.path = path
        var isFolder = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .unreadable(path, reason: "there is no such file or folder")
        }
        if isFolder {
            let root = URL(fileURLWithPath: path, isDirectory: true)
            let data = root.appendingPathComponent("data", isDirectory: true)
            var hasData = false
            let folder =
                FileManager.default.fileExists(atPath: data.path, isDirectory: &hasData) && hasData
                ? data : root
            // Why it cannot be listed matters less than saying so in one sentence.
            guard let listed = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
                throw .unreadable(path, reason: "the folder cannot be listed")
            }
            source = .folder(folder)
            names = listed.filter { $0.hasSuffix(".js") }.sorted().map { "data/" + $0 }
        } else {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, ZipArchive.looksLikeZip(path) else {
                throw .unreadable(path, reason: "it is neither a zip file nor a folder")
            }
            let zip = try ZipArchive(path: path)
            // The archive's files are under data/, at the top or inside one folder.
            let marker = zip.names.first { name in
                ["data/manifest.js", "data/tweets.js", "data/tweet.js", "data/account.js"].contains {
                    name.hasSuffix($0)
                }
            }
            var prefix = ""
            if let marker, let data = marker.ranges(of: "data/").last {
                prefix = String(marker[..<data.lowerBound])
            }
            source = .zip(zip, prefix: prefix)
            names = zip.names.compactMap { name in
                guard name.hasPrefix(prefix + "data/"), name.hasSuffix(".js") else { return nil }
                let inner = name.dropFirst(prefix.count + 5)
                return inner.contains("/") ? nil : "data/" + inner
            }.sorted()
        }
        guard !names.isEmpty else {
            throw .unreadable(path, reason: "it is not a Twitter archive: it has no data/*.js files")
        }
    }

    /// The names of the files in `data/FOLDER/` (`tweets_media`, `profile_media`), as
    /// `data/FOLDER/NAME`, sorted; none when there is no such folder.
    func files(in subfolder: String) -> [String] {
        switch source {
        case .zip(let zip, let prefix):
            let start = prefix + "data/" + subfolder + "/"
            return zip.names.compactMap { name in
                guard name.hasPrefix(start), name.count > start.count else { return nil }
                let inner = name.dropFirst(start.count)
                return inner.contains("/") ? nil : "data/" + subfolder + "/" + inner
            }.sorted()
        case .folder(let folder):
            // A folder that cannot be listed has no photos to bring: the tweets still come.
            let listed =
                (try? FileManager.default.contentsOfDirectory(
                    atPath: folder.appendingPathComponent(subfolder).path)) ?? []
            return listed.filter { !$0.hasPrefix(".") }.sorted().map { "data/" + subfolder + "/" + $0 }
        }
    }

    /// Hands the contents of `name` (one of ``names``) to `body` a piece at a time.
    /// - Throws: ``ArchiveError/unreadable(_:reason:)``, or what `body` throws.
    func read(_ name: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let tally = tally
        let path = path
        func counted(_ piece: UnsafeRawBufferPointer) throws {
            tally.bytes += UInt64(piece.count)
            guard tally.bytes <= Self.maximumTotalBytes else {
                throw ArchiveError.unreadable(
                    path, reason: "its files come to more than \(Self.maximumTotalBytes >> 30) GiB")
            }
            try body(piece)
        }
        switch source {
        case .zip(let zip, let prefix):
            do {
                try zip.read(prefix + name, maximumBytes: Self.maximumFileBytes, counted)
            } catch let error as ZipError {
                throw ArchiveError.unreadable(path, reason: error.reason)
            }
        case .folder(let folder):
            let file = folder.appendingPathComponent(String(name.dropFirst(5))).path
            let fd: Int32
            switch RegularFile.open(file) {
            case .success(let opened): fd = opened
            case .failure(let reason): throw ArchiveError.unreadable(file, reason: reason.description)
            }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var total: UInt64 = 0
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw ArchiveError.unreadable(file, reason: String(cString: strerror(errno))) }
                if count == 0 { return }
                total += UInt64(count)
                guard total <= Self.maximumFileBytes else {
                    throw ArchiveError.unreadable(file, reason: "it is larger than \(Self.maximumFileBytes >> 30) GiB")
                }
                try buffer.withUnsafeBytes { try counted(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
        }
    }
}
