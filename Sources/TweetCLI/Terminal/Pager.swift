import FoundationEssentials
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Long output on a terminal goes through `$PAGER` (default `less -FRX`), as git's does.
enum Pager {
    /// The pager's command line, from `PAGER`; an empty `PAGER` means none.
    static func command(environment: [String: String]) -> String? {
        guard let pager = environment["PAGER"] else { return "less -FRX" }
        let trimmed = pager.trimmedSpaces()
        return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
    }

    /// Runs `command` with `text` on its stdin and waits for it.
    /// - Returns: `false` when the pager could not start (the caller then writes `text` itself).
    static func show(_ text: String, command: String) -> Bool {
        // less shows colours and quits on a short text only when told to: as git does, tell it so
        // unless the reader set LESS themselves.
        setenv("LESS", "FRX", 0)
        guard let pager = Subprocess.start(command, pipeInput: true), let input = pager.input else { return false }
        // Quitting the pager early closes the pipe: that is not an error, so SIGPIPE is ignored.
        let previous = signal(SIGPIPE, SIG_IGN)
        _ = Output.write(text, to: input)  // A reader who quits early closes the pipe: not an error.
        let status = pager.wait()
        signal(SIGPIPE, previous)
        // 126 and 127 are the shell's "cannot run" and "not found": the text was never shown. Any
        // other status is the reader's business (quitting early is not an error).
        return status != 126 && status != 127
    }
}

/// Where a command's human output goes: wrapped to the terminal, coloured when colour is on, and
/// paged when it is taller than the terminal.
struct Screen {
    let color: Bool
    /// Columns to wrap to; `nil` for output that is not a terminal.
    let width: Int?
    /// Rows, when stdout is a terminal and paging is on.
    let pagerHeight: Int?
    let pagerCommand: String?

    /// The bytes `text` becomes on this screen.
    func render(_ text: TerminalText) -> String {
        text.wrapped(width: width).rendered(color: color)
    }

    func write(_ text: TerminalText) throws {
        let output = render(text)
        if let pagerHeight, let pagerCommand, output.utf8.count(where: { $0 == 0x0A }) >= pagerHeight,
            Pager.show(output, command: pagerCommand)
        {
            return
        }
        try Output.write(output)
    }
}
