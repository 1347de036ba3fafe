import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads a file descriptor (a child's output pipe) to its end, whole or line by line.
struct DescriptorReader {
    /// The descriptor read; the caller owns it and closes it.
    let descriptor: Int32
    /// What to call it in errors.
    let name: String

    /// Everything up to end of file.
    /// - Throws: ``BenchmarkError/io(path:reason:)``.
    func readAll() throws -> Data {
        var data = Data()
        try readChunks { data.append(contentsOf: $0) }
        return data
    }

    /// Calls `body` with each line (without its `\n`) and its 1-based number, streaming: only one
    /// chunk and one partial line are held at a time. A last line with no `\n` is passed too.
    /// - Throws: ``BenchmarkError/io(path:reason:)``, or what `body` throws.
    func forEachLine(_ body: (Data, Int) throws -> Void) throws {
        var pending: [UInt8] = []
        var number = 0
        try readChunks { chunk in
            pending.append(contentsOf: chunk)
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                number += 1
                try body(Data(pending[start..<newline]), number)
                start = newline + 1
            }
            pending.removeFirst(start)
        }
        if !pending.isEmpty {
            try body(Data(pending), number + 1)
        }
    }

    private func readChunks(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let size = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, size)
            if count == 0 { return }
            if count < 0 {
                if errno == EINTR { continue }
                throw BenchmarkError.io(path: name, reason: "cannot be read (\(String(cString: strerror(errno))))")
            }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
