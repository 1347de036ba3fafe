import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A read-only memory map of a whole file, unmapped when the last reference goes.
final class MappedFile {
    let path: String
    let bytes: UnsafeRawBufferPointer

    init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.io(path: path, reason: String(cString: strerror(errno))) }
        let size = Int(info.st_size)
        if size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let address = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED else {
            throw StoreError.io(path: path, reason: "cannot map it: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: address, count: size)
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }

    var count: Int { bytes.count }

    /// The little-endian integer at byte `offset`.
    func uint64(at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    func uint32(at offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
}
