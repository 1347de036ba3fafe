import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a password: one line from stdin, or a prompt with echo off on a terminal.
enum PasswordReader {
    /// One line from standard input, without its line ending.
    static func readLineFromStdin() throws -> String {
        guard let line = readLine(strippingNewline: true) else {
            throw UsageError("--password-stdin expects the password on standard input, and it was empty")
        }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }

    /// Asks on the terminal with echo off; the password never shows on screen.
    static func prompt(_ message: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            throw UsageError("there is no terminal to ask for the password; pass it with --password-stdin")
        }
        Output.writeError(message)
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            Output.writeError("\n")
        }
        guard let line = readLine(strippingNewline: true) else { throw UsageError("no password was entered") }
        return line
    }
}
