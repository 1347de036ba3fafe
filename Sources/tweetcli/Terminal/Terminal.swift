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

/// Writes to stdout and stderr.
enum Output {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
