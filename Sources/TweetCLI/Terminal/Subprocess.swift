import FoundationEssentials
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A command the user chose (`$PAGER`, `$EDITOR`), run through `/bin/sh -c` as git runs them.
struct Subprocess {
    let child: ChildProcess
    /// The write end of a pipe to its stdin, when asked for.
    let input: Int32?

    /// Starts `/bin/sh -c 'COMMAND "$@"' sh ARGUMENTS…`, so the command may carry its own flags,
    /// with no signal blocked and every disposition at its default, as from a shell.
    /// - Returns: `nil` when it cannot start.
    static func start(_ command: String, arguments: [String] = [], pipeInput: Bool = false) -> Subprocess? {
        // Either failure is the `nil` the caller reports ("cannot start the editor…").
        let pipe = pipeInput ? try? ChildProcess.pipe() : nil
        if pipeInput && pipe == nil { return nil }
        defer { if let pipe { close(pipe.reader) } }
        let words = ["/bin/sh", "-c", arguments.isEmpty ? command : command + " \"$@\"", "sh"] + arguments
        let options = ChildProcess.Options(
            standardInput: pipe.map { .descriptor($0.reader) } ?? .inherit, standardOutput: .inherit,
            standardError: .inherit)
        // A spawn that fails is the same `nil`: the caller says the program could not start.
        guard let child = try? ChildProcess.spawn("/bin/sh", arguments: words, options: options) else {
            if let pipe { close(pipe.writer) }
            return nil
        }
        return Subprocess(child: child, input: pipe?.writer)
    }

    /// Closes its stdin pipe and waits for it to exit.
    /// - Returns: Its exit status (128 + the signal when a signal ended it).
    func wait() -> Int32 {
        if let input { close(input) }
        return child.wait().status
    }
}
