import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal as the full-screen app holds it: raw mode, the alternate screen and a hidden
/// cursor, always given back as found (on `q`, on an error, on SIGINT, SIGTERM and SIGHUP, and
/// around Ctrl-Z); and a descriptor that becomes readable when the window is resized or a
/// signal asks the app to end, so the event loop waits on keys, the store and signals at once.
final class RawTerminal {
    /// The settings found, given back by ``restore()`` and by the signal handlers.
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var holding = false
    /// The pipe the signal handlers write to: one byte per signal, its number.
    nonisolated(unsafe) private static var signalPipe: (read: Int32, write: Int32) = (-1, -1)

    /// Readable when a signal came (see ``signals()``).
    var signalDescriptor: Int32 { Self.signalPipe.read }

    /// The alternate screen, no cursor, no autowrap, and clicks and the wheel reported (SGR form).
    private static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[?1000h\u{1B}[?1006h"
    /// Leaving starts on the last row, emptied: a terminal without an alternate screen (screen
    /// with `altscreen off`) keeps the last frame, and the shell's prompt then comes below it.
    private static let leave =
        "\u{1B}[?1006l\u{1B}[?1000l\u{1B}[0m\u{1B}[999;1H\u{1B}[2K\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

    /// Puts `text` on the terminal's clipboard (OSC 52), where the terminal allows it: xterm,
    /// kitty, iTerm2, and tmux with `set-clipboard`. Only tweetcli's own text (an ID, a link).
    static func copy(_ text: String) {
        let encoded = Data(text.utf8).base64EncodedString()
        Output.write("\u{1B}]52;c;" + encoded + "\u{07}", to: STDOUT_FILENO)
    }

    /// Takes the terminal: stdin and stdout must both be one.
    init() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TUIError("tweetcli tui needs a terminal on its input and output")
        }
        if Self.signalPipe.read < 0 {
            var descriptors: [Int32] = [0, 0]
            guard pipe(&descriptors) == 0 else {
                throw TUIError("tweetcli tui could not make a pipe: " + String(cString: strerror(errno)))
            }
            // Neither end blocks (a handler must never wait; the loop drains what is there), and
            // neither goes to the editor the composer starts.
            for descriptor in descriptors {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            }
            Self.signalPipe = (descriptors[0], descriptors[1])
        }
        guard tcgetattr(STDIN_FILENO, &Self.saved) == 0 else {
            throw TUIError("the terminal's settings could not be read: " + String(cString: strerror(errno)))
        }
        for number in [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGCONT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // Only what a handler may do: write a byte. The loop restores and ends.
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(RawTerminal.signalPipe.write, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        try take()
    }

    deinit { restore() }

    /// Raw mode (keys one at a time, no echo, no signals from keys: Ctrl-C and Ctrl-Z come as
    /// keys), the alternate screen, the cursor hidden, no autowrap. Again is harmless.
    func take() throws {
        var raw = Self.saved
        cfmakeraw(&raw)
        // Output as before: a line feed still returns the carriage.
        raw.c_oflag = Self.saved.c_oflag
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            throw TUIError("the terminal could not be put in raw mode: " + String(cString: strerror(errno)))
        }
        Self.holding = true
        Output.write(Self.enter, to: STDOUT_FILENO)
    }

    /// Gives the terminal back as it was found; again is harmless.
    func restore() {
        guard Self.holding else { return }
        Self.holding = false
        Output.write(Self.leave, to: STDOUT_FILENO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &Self.saved)
    }

    /// Ctrl-Z: gives the terminal back, stops the process as the shell expects, and takes the
    /// terminal again when `fg` continues it.
    func suspend() throws {
        restore()
        kill(0, SIGTSTP)
        try take()
    }

    /// The signals that came since the last call, by number.
    func signals() -> [Int32] {
        var numbers: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(Self.signalPipe.read, $0.baseAddress, 64) }
            guard count > 0 else { return numbers }
            numbers += buffer.prefix(count).map(Int32.init)
        }
    }

    /// The window's size in cells.
    static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}

/// Why the full-screen app cannot run or ended: one sentence.
struct TUIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
