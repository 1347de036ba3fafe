import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's terminal: whether stdout is one, how wide it is, and colour.
struct Terminal {
    let isStdoutTerminal: Bool
    let isStdinTerminal: Bool
    let width: Int
    let environment: [String: String]

    init(environment: [String: String]) {
        self.environment = environment
        isStdoutTerminal = isatty(STDOUT_FILENO) == 1
        isStdinTerminal = isatty(STDIN_FILENO) == 1
        var size = winsize()
        if isStdoutTerminal, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            width = Int(size.ws_col)
        } else if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            width = columns
        } else {
            width = 80
        }
    }

    /// Colour on a terminal (or when asked), never when `NO_COLOR` is set or the terminal is dumb.
    func usesColor(_ choice: ColorChoice) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        switch choice {
        case .always: return true
        case .never: return false
        case .auto: return isStdoutTerminal && environment["TERM"] != "dumb"
        }
    }
}

/// Writes to stdout and stderr with write(2): no FileHandle, so no Foundation start-up cost.
enum Output {
    static func write(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    static func writeError(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var done = 0
            while done < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }  // A closed pipe: nothing more can be said.
                done += written
            }
        }
    }
}
