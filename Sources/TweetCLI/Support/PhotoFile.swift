import FoundationEssentials
import TweetImages
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A photo file a person names: read only if it is a regular file (a FIFO would hang the command),
/// and refused by its size before it is read.
enum PhotoFile {
    static func read(_ path: String) throws -> [UInt8] {
        let fd: Int32
        switch RegularFile.open(path) {
        case .success(let opened): fd = opened
        case .failure(let refusal): throw CommandFailure("cannot read the photo \(path): \(refusal)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw CommandFailure("cannot read the photo \(path): \(FileIO.errnoText())")
        }
        let size = Int(info.st_size)
        guard size <= ImageIntake.maximumBytes else { throw ImageError.tooLarge(file: path, bytes: size) }
        do {
            return size == 0 ? [] : try FileIO.readBytes(from: fd, offset: 0, count: size, path: path)
        } catch {
            throw CommandFailure("cannot read the photo \(path): \(error.sentence)")
        }
    }
}
