import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Buffered writing to a file descriptor (a child's input pipe), reporting `EPIPE` and other
/// failures as errors instead of dying of `SIGPIPE`.
struct DescriptorWriter {
    /// The descriptor written; the caller owns it and closes it.
    let descriptor: Int32
    /// What to call it in errors.
    let name: String
    private var buffer: [UInt8] = []
    private let capacity = 1 << 20

    /// A writer to `descriptor`, called `name` in errors.
    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        buffer.reserveCapacity(capacity)
    }

    /// Appends `text` as UTF-8, writing out the buffer when it is full.
    /// - Throws: ``BenchmarkError/io(path:reason:)``.
    mutating func append(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { try flush() }
    }

    /// Writes out everything buffered.
    /// - Throws: ``BenchmarkError/io(path:reason:)``.
    mutating func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let count = buffer.withUnsafeBytes { bytes in
                write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw BenchmarkError.io(path: name, reason: "cannot be written (\(String(cString: strerror(errno))))")
            }
            offset += count
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
