import FoundationEssentials
import TweetCore
import TweetImages
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Mosaics drawn before, in `$XDG_CACHE_HOME/tweetcli/mosaics`, by thumbnail, size and colours: a
/// thumbnail's address names its content, so a drawing kept is never out of date, and a listing
/// seen again draws no photo anew. Only block mosaics are kept: a picture in pixels is drawn each
/// time, since its escapes are not what a cache read back as text may hold. Read back as untrusted, since anyone may write there: only block
/// characters and SGR colours, within the size asked for. Losing the cache loses only time.
struct MosaicCache {
    let directory: String

    /// The most bytes a kept drawing may have: far more than 160 × 60 cells of colours.
    static let maximumBytes = 1 << 20

    init(environment: [String: String]) {
        directory = PathName.join(AppPaths.cacheDirectory(environment: environment), "mosaics")
    }

    private func path(_ address: String, columns: Int, rows: Int, mode: Mosaic.Mode) -> String? {
        guard case .blocks(let colors) = mode else { return nil }
        return PathName.join(directory, "\(address)-\(columns)x\(rows)-\(colors == .truecolor ? "24" : "256").txt")
    }

    /// The drawing kept for these, if there is one that could be tweetcli's.
    func lines(_ address: String, columns: Int, rows: Int, mode: Mosaic.Mode) -> [String]? {
        guard let path = path(address, columns: columns, rows: rows, mode: mode) else { return nil }
        // A cache that cannot be read is no cache: the photo is drawn again.
        guard let bytes = try? FileIO.readFile(path),
            !bytes.isEmpty, bytes.count <= Self.maximumBytes
        else { return nil }
        // Split and cleaned as bytes: a page of drawings is tens of thousands of them.
        let lines = bytes.split(separator: 0x0A).map { Mosaic.sanitized(bytes: Array($0)) }
        guard lines.count <= rows, lines.allSatisfy({ Mosaic.visibleCount($0) <= columns }) else { return nil }
        return lines
    }

    /// Keeps a drawing (see ``CacheFiles``).
    func keep(_ lines: [String], _ address: String, columns: Int, rows: Int, mode: Mosaic.Mode) {
        guard !lines.isEmpty, let target = path(address, columns: columns, rows: rows, mode: mode) else { return }
        CacheFiles.replace(target, with: Array(lines.joined(separator: "\n").utf8), in: directory)
    }
}
