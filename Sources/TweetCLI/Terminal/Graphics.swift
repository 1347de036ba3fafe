import TweetImages

#if canImport(Glibc)
    import Glibc
#endif

/// Which way of drawing pictures a terminal has, found as chafa finds it: first from what the
/// environment says of the terminal, then by asking the terminal itself.
enum Graphics {
    /// The pixel protocol the environment names the terminal by, if it does. Inside tmux or
    /// screen, none: the variables are the outer terminal's, and the multiplexer answers for itself.
    static func fromEnvironment(_ environment: [String: String]) -> Mosaic.Mode? {
        let term = environment["TERM"] ?? ""
        if environment["TMUX"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux") { return nil }
        let program = environment["TERM_PROGRAM"] ?? ""
        if term == "xterm-kitty" || environment["KITTY_WINDOW_ID"] != nil || term == "xterm-ghostty"
            || program == "ghostty"
        {
            return .kitty
        }
        if program == "iTerm.app" || program == "WezTerm" { return .iterm2 }
        if term.hasPrefix("foot") || term.hasPrefix("mlterm") || term.hasPrefix("contour") { return .sixels }
        return nil
    }

    /// Whether the terminal says it draws sixels: its answer to Primary Device Attributes
    /// (`ESC [ c`) lists 4. Asked on `/dev/tty` in raw mode, waiting at most `timeout` milliseconds;
    /// `false` when there is no terminal to ask, this process is not in its foreground (changing
    /// its mode would stop the process), or no answer comes. Keys typed while it waits are read
    /// with the answer and dropped, as chafa's query does.
    static func terminalDrawsSixels(timeout: Int32 = 150) -> Bool {
        guard let attributes = deviceAttributes(timeout: timeout) else { return false }
        return attributes.contains(4)
    }

    /// The parameters of the terminal's answer to `ESC [ c`: `ESC [ ? 6 2 ; 4 ; 2 2 c` gives
    /// [62, 4, 22].
    static func deviceAttributes(timeout: Int32) -> [Int]? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard tcgetpgrp(fd) == getpgrp() else { return nil }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var raw = saved
        // No line editing, no echo of the answer, and no signal from a key typed meanwhile
        // (Ctrl-C would end the process with the terminal left like this): those keys are read
        // and let go instead.
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        guard tcsetattr(fd, TCSANOW, &raw) == 0 else { return nil }
        defer { tcsetattr(fd, TCSANOW, &saved) }
        let query: [UInt8] = [0x1B, 0x5B, 0x63]
        guard query.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == query.count else { return nil }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let end = Int64(deadline.tv_sec) * 1000 + Int64(deadline.tv_nsec) / 1_000_000 + Int64(timeout)
        // No answer in time: a late one is waited for a little longer and dropped, so that it does
        // not reach the shell as typed text.
        func giveUp() -> [Int]? {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) > 0 { usleep(20_000) }
            tcflush(fd, TCIFLUSH)
            return nil
        }
        while answer.count < 256 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = end - (Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
            guard left > 0 else { return giveUp() }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(left))
            if ready < 0, errno == EINTR { continue }  // A resize, say: the wait goes on.
            guard ready > 0 else { return giveUp() }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            answer += buffer.prefix(count)
            if let parsed = parseDeviceAttributes(answer) { return parsed }
        }
        return nil
    }

    /// The parameters of `ESC [ ? … c` in `bytes` (a key typed meanwhile may stand before it), or
    /// `nil` while the answer is not whole.
    static func parseDeviceAttributes(_ bytes: [UInt8]) -> [Int]? {
        guard
            let start = bytes.indices.last(where: { index in
                bytes[index...].starts(with: [0x1B, 0x5B, 0x3F])
            })
        else { return nil }
        let body = bytes[(start + 3)...]
        guard let end = body.firstIndex(of: 0x63) else { return nil }
        let parameters = body[..<end]
        guard parameters.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x3B }) else { return nil }
        return parameters.split(separator: 0x3B).compactMap { Int(String(decoding: $0, as: UTF8.self)) }
    }

    /// The size in pixels of one of the terminal's cells, from the window size the kernel keeps
    /// for it; xterm's default when the terminal does not fill that in, or gives a size no font
    /// has (a picture's memory follows it).
    static func cellSize() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0,
            size.ws_xpixel >= size.ws_col, size.ws_ypixel >= size.ws_row
        else { return Mosaic.standardCell }
        let cell = (Int(size.ws_xpixel) / Int(size.ws_col), Int(size.ws_ypixel) / Int(size.ws_row))
        guard (2...64).contains(cell.0), (4...128).contains(cell.1) else { return Mosaic.standardCell }
        return cell
    }
}
