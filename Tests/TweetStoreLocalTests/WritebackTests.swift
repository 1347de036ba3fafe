import Foundation
import Testing

@testable import TweetStoreLocal

#if canImport(Glibc)
    import Glibc
#endif

/// A merge's output goes to the disk as it is written, not all at its fsync: written with bounded
/// writeback, all but the last megabytes of a file are clean as soon as they are written (the
/// kernel can drop them from the page cache), where without it they stay dirty until the fsync.
struct WritebackTests {
    /// Writes `megabytes` through a ``FileOutput`` (without its fsync), then asks the kernel to drop
    /// the file's pages and counts the megabytes it kept: pages that are dirty or still being
    /// written cannot be dropped.
    private func residentAfterWriting(megabytes: Int, bounded: Bool) throws -> Double {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("writeback-\(UUID().uuidString)")
        defer { unlink(path) }
        let output = try FileOutput(path: path, boundedWriteback: bounded)
        let chunk = [UInt8](repeating: 0x61, count: 64 << 10)
        for _ in 0..<(megabytes * 16) { try output.write(chunk) }
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        let size = megabytes << 20
        #expect(posix_fadvise(fd, 0, off_t(size), POSIX_FADV_DONTNEED) == 0)
        guard let mapped = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            Issue.record("mmap failed: \(String(cString: strerror(errno)))")
            return .nan
        }
        defer { munmap(mapped, size) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vector = [UInt8](repeating: 0, count: (size + page - 1) / page)
        #expect(mincore(mapped, size, &vector) == 0)
        let resident = vector.reduce(0) { $0 + Int($1 & 1) }
        return Double(resident * page) / Double(1 << 20)
    }

    @Test func aBoundedOutputLeavesAtMostTwoMegabytesUnwritten() throws {
        let bounded = try residentAfterWriting(megabytes: 16, bounded: true)
        // The last megabyte flushed is on its way, the one before it waited for.
        #expect(bounded <= 2.5, "\(bounded) MiB of 16 still in the page cache")
        // The control: the same file written as a fold or a seed writes it stays dirty, so the
        // figure above measures the writeback, not a kernel that writes everything at once.
        let unbounded = try residentAfterWriting(megabytes: 16, bounded: false)
        #expect(unbounded >= 8, "only \(unbounded) MiB of 16 in the page cache without bounded writeback")
    }
}
