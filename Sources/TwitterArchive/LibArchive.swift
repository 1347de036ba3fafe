import CArchive
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The few functions of libarchive that decode a zip file's member, loaded with `dlopen` the first
/// time a zipped archive is opened: linked, libarchive and the compression libraries it needs
/// would load into the start-up of every command, for the one command that imports archives.
/// CArchive gives the declarations; these pointers are libarchive's own functions.
struct LibArchive: @unchecked Sendable {
    /// libarchive's `archive_read_callback`: the next piece of the input, its length, 0 at the end.
    typealias ReadCallback =
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeRawPointer?>?) -> Int
    /// libarchive's `archive_open_callback` and `archive_close_callback`.
    typealias OpenCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32

    let readNew: @convention(c) () -> OpaquePointer?
    let supportFormatZipStreamable: @convention(c) (OpaquePointer?) -> Int32
    /// `archive_read_open` with a read callback only (no open or close callback).
    let readOpen:
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, OpenCallback?, ReadCallback?, OpenCallback?) -> Int32
    let readNextHeader: @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    let readDataBlock:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UnsafeRawPointer?>?, UnsafeMutablePointer<Int>?,
            UnsafeMutablePointer<la_int64_t>?
        ) -> Int32
    let readFree: @convention(c) (OpaquePointer?) -> Int32
    let errorString: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?

    /// Why libarchive cannot be used, as a sentence for an error message.
    struct Missing: Error {
        var reason: String
    }

    /// libarchive, loaded once.
    static let shared: Result<LibArchive, Missing> = load()

    /// Loads the library named `name`; the tests name one that is not there.
    static func load(_ name: String = "libarchive.so.13") -> Result<LibArchive, Missing> {
        let install = "(Debian: apt-get install libarchive-dev)"
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(Missing(reason: "reading a zip file needs libarchive, which is not installed \(install)"))
        }
        func symbol<T>(_ symbol: String) throws(Missing) -> T {
            guard let pointer = dlsym(handle, symbol) else {
                throw Missing(reason: "the installed libarchive has no \(symbol) \(install)")
            }
            return unsafeBitCast(pointer, to: T.self)
        }
        do throws(Missing) {
            return .success(
                LibArchive(
                    readNew: try symbol("archive_read_new"),
                    supportFormatZipStreamable: try symbol("archive_read_support_format_zip_streamable"),
                    readOpen: try symbol("archive_read_open"), readNextHeader: try symbol("archive_read_next_header"),
                    readDataBlock: try symbol("archive_read_data_block"), readFree: try symbol("archive_read_free"),
                    errorString: try symbol("archive_error_string")))
        } catch {
            return .failure(error)
        }
    }

    /// libarchive's account of its last error on `archive`.
    func error(_ archive: OpaquePointer?) -> String {
        errorString(archive).map { String(cString: $0) } ?? "libarchive gave no reason"
    }
}
