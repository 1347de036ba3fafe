import Foundation
import Testing

/// A small server written in Python, on a free port of 127.0.0.1, for the tests of outside
/// parties that misbehave: a listener that accepts and never answers, a PostgreSQL server that
/// shakes hands and then falls silent, a web server with bad redirects. Stopped when released.
package final class ScriptedServer {
    /// Python, for the servers; without it the tests that need one say they did not run.
    package static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// A listener that accepts every connection and never sends a byte.
    package static let silent = """
        import socket, time
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('127.0.0.1', PORT))
        s.listen(16)
        held = []
        while True:
            c, _ = s.accept()
            held.append(c)
        """

    package let port: Int
    private let process: Process

    /// Runs `script` (its `PORT` replaced by a free port) in `directory`, once it listens.
    package init(_ script: String, in directory: URL? = nil) throws {
        let python = try #require(Self.python)
        for _ in 0..<5 {
            let port = Int.random(in: 20_000...60_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-c", script.replacingOccurrences(of: "PORT", with: String(port))]
            if let directory { process.currentDirectoryURL = directory }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<50 {
                usleep(100_000)
                if Self.accepts(port) {
                    (self.port, self.process) = (port, process)
                    return
                }
                if !process.isRunning { break }
            }
            Self.stop(process)
        }
        throw CocoaError(.fileReadUnknown)
    }

    deinit { Self.stop(process) }

    /// Ends a server for good: SIGKILL (a child of the test runner may block SIGTERM), then waits.
    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether something listens on `port` of 127.0.0.1 (a probe the silent server also holds).
    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
