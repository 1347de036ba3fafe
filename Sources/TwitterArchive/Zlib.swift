import CZlib
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// zlib's inflater and CRC-32, loaded with `dlopen` the first time a zip file is read: linking it
/// would load it into every command's start-up for the one that reads archives.
struct Zlib: @unchecked Sendable {
    let inflateInit2: @convention(c) (z_streamp?, Int32, UnsafePointer<CChar>?, Int32) -> Int32
    let inflate: @convention(c) (z_streamp?, Int32) -> Int32
    let inflateEnd: @convention(c) (z_streamp?) -> Int32
    let crc32: @convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt

    /// zlib, loaded once.
    static let shared: Result<Zlib, ArchiveError> = load()

    static func get() throws(ArchiveError) -> Zlib { try shared.get() }

    private static func load() -> Result<Zlib, ArchiveError> {
        let missing = ArchiveError.unreadable(
            "(zip)", reason: "reading a zip file needs zlib, which is not installed (Debian: apt-get install zlib1g)")
        guard let handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL) else { return .failure(missing) }
        func symbol<T>(_ name: String) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: T.self) }
        }
        guard
            let initialize: @convention(c) (z_streamp?, Int32, UnsafePointer<CChar>?, Int32) -> Int32 =
                symbol("inflateInit2_"),
            let inflate: @convention(c) (z_streamp?, Int32) -> Int32 = symbol("inflate"),
            let end: @convention(c) (z_streamp?) -> Int32 = symbol("inflateEnd"),
            let crc: @convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt = symbol("crc32")
        else { return .failure(missing) }
        return .success(Zlib(inflateInit2: initialize, inflate: inflate, inflateEnd: end, crc32: crc))
    }
}

/// A raw DEFLATE stream (RFC 1951, as zip stores it), inflated a piece at a time.
final class Inflater {
    private let zlib: Zlib
    private var stream = z_stream()
    private(set) var finished = false

    init() throws(ArchiveError) {
        zlib = try Zlib.get()
        // Negative window bits: raw deflate, no zlib header (zip's method 8).
        let status = ZLIB_VERSION.withCString { version in
            zlib.inflateInit2(&stream, -15, version, Int32(MemoryLayout<z_stream>.size))
        }
        guard status == Z_OK else { throw .unreadable("(zip)", reason: "zlib could not start inflating") }
    }

    deinit { _ = zlib.inflateEnd(&stream) }

    /// Inflates `input`, handing each piece of output to `body`.
    /// - Returns: whether the stream ended in this input.
    func inflate(_ input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !finished, !input.isEmpty else { return }
        var output = [UInt8](repeating: 0, count: 1 << 18)
        stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.avail_in = UInt32(input.count)
        repeat {
            let (status, produced) = output.withUnsafeMutableBufferPointer { buffer in
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(buffer.count)
                let status = zlib.inflate(&stream, Z_NO_FLUSH)
                return (status, buffer.count - Int(stream.avail_out))
            }
            guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && produced == 0) else {
                throw ZipError.corrupt("its compressed data is damaged")
            }
            if produced > 0 {
                try output.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
            }
            if status == Z_STREAM_END {
                finished = true
                return
            }
            if status == Z_BUF_ERROR { return }
        } while stream.avail_in > 0 || stream.avail_out == 0
        stream.next_in = nil
    }

    /// The CRC-32 of `bytes`, continuing from `crc`.
    static func crc32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer, zlib: Zlib) -> UInt32 {
        UInt32(
            truncatingIfNeeded: zlib.crc32(UInt(crc), bytes.bindMemory(to: UInt8.self).baseAddress, UInt32(bytes.count))
        )
    }
}
