import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

extension StoreError {
    /// The store's error for a file operation's failure (``FileError``); any other error as it is.
    package static func from(_ error: any Error) -> any Error {
        switch error as? FileError {
        case .cannotOpen(let path, let reason): StoreError.cannotOpen(path: path, reason: reason)
        case .io(let path, let reason): StoreError.io(path: path, reason: reason)
        case nil: error
        }
    }
}

/// ``FileIO``'s reads and writes with the store's errors: what a store file's failure throws.
enum StoreFiles {
    /// Runs a ``FileIO`` call, its ``FileError`` as the store's.
    private static func mapped<T>(_ call: () throws -> T) throws -> T {
        do { return try call() } catch { throw StoreError.from(error) }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        try mapped { try FileIO.writeAll(fd, bytes, path: path) }
    }

    static func readBytes(from fd: Int32, offset: Int, count: Int, path: String) throws -> [UInt8] {
        try mapped { try FileIO.readBytes(from: fd, offset: offset, count: count, path: path) }
    }

    static func readExactly(from fd: Int32, into buffer: UnsafeMutableRawBufferPointer, offset: Int, path: String)
        throws
    {
        try mapped { try FileIO.readExactly(from: fd, into: buffer, offset: offset, path: path) }
    }

    static func openRegular(_ path: String, _ flags: Int32) throws -> Int32? {
        try mapped { try FileIO.openRegular(path, flags) }
    }

    static func readFile(_ path: String) throws -> [UInt8]? {
        try mapped { try FileIO.readFile(path) }
    }

    static func replaceAtomically(path: String, contents: [UInt8], directory: String) throws {
        try mapped { try FileIO.replaceAtomically(path: path, contents: contents, directory: directory) }
    }
}
