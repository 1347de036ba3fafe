import FoundationEssentials
import TweetCore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Questions on the terminal: passwords (echo off, or one line from stdin) and confirmations.
enum Prompt {
    /// One line from standard input, without its line ending.
    static func passwordFromStdin() throws -> String {
        guard let line = try readPasswordLine() else {
            throw CommandFailure("--password-stdin expects the password on standard input, and it was empty")
        }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }

    /// One line of stdin as bytes, checked as UTF-8: readLine would turn invalid bytes into U+FFFD,
    /// and two different passwords could then match.
    /// - Returns: `nil` at the end of input with nothing read.
    private static func readPasswordLine() throws -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                if bytes.isEmpty { return nil }
                break
            }
            if byte == 0x0A { break }
            bytes.append(byte)
            guard bytes.count <= 4096 else { throw CommandFailure("the password is longer than 4096 bytes") }
        }
        guard let line = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure("the password is not valid UTF-8 text; nothing was changed")
        }
        return line
    }

    /// Asks on the terminal with echo off; the password never shows on screen.
    static func password(_ message: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandFailure("there is no terminal to ask for the password on; pass it with --password-stdin")
        }
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        // Asked only once echo is off: what is typed after the question shows is never echoed, nor
        // dropped by the flush.
        Output.writeError(message)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            Output.writeError("\n")
        }
        guard let line = try readPasswordLine(), !line.isEmpty else {
            throw CommandFailure("no password was entered")
        }
        return line
    }

    /// Asks for a line of text on the terminal, shown as it is typed, surrounding spaces trimmed.
    /// - Throws: ``CommandFailure`` when the input ends or the answer is empty.
    static func line(_ message: String) throws -> String {
        Output.writeError(message)
        guard let answer = readLine(strippingNewline: true) else {
            Output.writeError("\n")
            throw CommandFailure("no answer was given; nothing was changed")
        }
        let trimmed = answer.trimmed()
        guard !trimmed.isEmpty else { throw CommandFailure("no answer was given; nothing was changed") }
        return trimmed
    }

    /// The most times a new password is asked for before giving up.
    static let newPasswordAttempts = 3

    /// Asks for a new password twice on the terminal; one too short, or two that differ, are
    /// asked for again, at most ``newPasswordAttempts`` times.
    /// - Throws: ``AuthError/passwordTooShort`` or ``CommandFailure`` after the last attempt.
    static func newPassword(minimumLength: Int, label: String = "Password") throws -> String {
        for attempt in 1...newPasswordAttempts {
            let last = attempt == newPasswordAttempts
            let password = try Self.password("\(label) (at least \(minimumLength) characters): ")
            guard password.count >= minimumLength else {
                if last { throw AuthError.passwordTooShort }
                Output.writeError("That password is too short; try again.\n")
                continue
            }
            guard try Self.password("Repeat the password: ") == password else {
                if last { throw CommandFailure("the two passwords differ; nothing was changed") }
                Output.writeError("The two passwords differ; try again.\n")
                continue
            }
            return password
        }
        throw CommandFailure("no password was set; nothing was changed")
    }

    /// Asks a yes-or-no question on the terminal; anything but "y" or "yes" is no.
    static func confirm(_ question: String) -> Bool {
        Output.writeError(question + " [y/N] ")
        guard let answer = readLine(strippingNewline: true) else {
            Output.writeError("\n")
            return false
        }
        return ["y", "yes"].contains(answer.trimmedSpaces().lowercased())
    }
}
