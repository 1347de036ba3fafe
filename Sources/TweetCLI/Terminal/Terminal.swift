import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The process's terminal: whether stdin and stdout are one, its size, and colour.
struct Terminal {
    let isStdoutTerminal: Bool
    let isStdinTerminal: Bool
    /// Columns to wrap to; `nil` when stdout is not a terminal (piped output is never wrapped).
    let width: Int?
    /// Rows, on a terminal.
    let height: Int?
    let environment: [String: String]

    init(environment: [String: String]) {
        self.environment = environment
        isStdoutTerminal = isatty(STDOUT_FILENO) == 1
        isStdinTerminal = isatty(STDIN_FILENO) == 1
        var size = winsize()
        let measured = isStdoutTerminal && ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
        if measured {
            width = Int(size.ws_col)
            height = size.ws_row > 0 ? Int(size.ws_row) : nil
        } else if isStdoutTerminal {
            // A terminal that cannot say its size: COLUMNS, else 80.
            width = environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 80
            height = nil
        } else {
            // Piped or redirected output is never wrapped, whatever COLUMNS says.
            width = nil
            height = nil
        }
    }

    /// Colour as `--color` says; else as the config file says, unless `NO_COLOR` is set (as
    /// no-color.org asks, a flag on the command line beats it, and it beats configuration); else
    /// on a terminal that is not dumb.
    func usesColor(flag: ColorChoice?, configured: ColorChoice?) -> Bool {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        switch flag ?? (noColor ? .never : configured ?? .auto) {
        case .always: return true
        case .never: return false
        case .auto: return isStdoutTerminal && environment["TERM"] != "dumb"
        }
    }
}

extension Terminal {
    /// `text` (tweetcli's own, already neutralised) wrapped at words to the width of the terminal
    /// stderr is, if it is one.
    static func wrappedForStderr(_ text: String) -> String {
        var size = winsize()
        guard isatty(STDERR_FILENO) == 1, ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
            return text
        }
        return TerminalText(stringLiteral: text).wrapped(width: Int(size.ws_col)).rendered(color: false)
    }
}

/// Standard output could not take what a command printed: a closed pipe (SIGPIPE is ignored, so
/// this is EPIPE), a full disk, or a file size limit (SIGXFSZ ignored: EFBIG).
struct OutputError: Error, Equatable, CustomStringConvertible {
    let reason: String
    /// The errno of the failed write.
    var code: Int32 = 0
    var description: String { "the output could not be written (\(reason))" }

    /// Whether the reader stopped reading (`| head`): the command's work is done, and ends quietly.
    var isClosedPipe: Bool { code == EPIPE }

    /// The error the last failed write left in errno.
    static func fromErrno() -> OutputError {
        let code = errno
        return OutputError(reason: String(cString: strerror(code)), code: code)
    }
}

/// Writes to stdout and stderr with write(2): no FileHandle, so no Foundation start-up cost.
enum Output {
    /// Writes all of `text` to stdout.
    /// - Throws: ``OutputError`` when it cannot.
    static func write(_ text: String) throws {
        guard write(text, to: STDOUT_FILENO) else { throw OutputError.fromErrno() }
    }

    static func writeError(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Writes all of `text`, retrying short writes and EINTR.
    /// - Returns: Whether every byte was written (a closed pipe or a full disk stops it).
    @discardableResult
    static func write(_ text: String, to fd: Int32) -> Bool {
        var text = text
        return text.withUTF8 { write($0, to: fd) }
    }

    /// Writes all of `bytes` to stdout.
    /// - Throws: ``OutputError`` when it cannot.
    static func write(bytes: [UInt8]) throws {
        guard bytes.withUnsafeBufferPointer({ write($0, to: STDOUT_FILENO) }) else {
            throw OutputError.fromErrno()
        }
    }

    private static func write(_ buffer: UnsafeBufferPointer<UInt8>, to fd: Int32) -> Bool {
        var done = 0
        while done < buffer.count {
            let written = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            done += written
        }
        return true
    }
}

enum Input {
    /// All of standard input, to its end.
    /// - Throws: ``CommandFailure`` when it cannot be read.
    static func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw CommandFailure("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }
}
