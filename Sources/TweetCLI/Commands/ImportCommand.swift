import Foundation
import TweetCore
import TweetStore

struct ImportCommand: Command {
    static let name = "import"
    static let usage = "import FILE|- [--merge]"
    static let summary =
        "Read what export printed (a file, or - for stdin) into an empty store, of either engine; --merge adds to one"
    static let options = [
        Option("--merge", "add the documents the store does not have; report those it has with other contents")
    ]
    static let createsStore = true

    var source: String
    var merging: Bool

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        merging = try list.flag("--merge")
        let positionals = try list.positionals(atMost: 1)
        guard let source = positionals.first else {
            throw UsageError("import needs the file export wrote, or - to read standard input", usage: Self.usage)
        }
        self.source = source
    }

    func run(_ context: Context) async throws {
        let name = source == "-" ? "standard input" : source
        let fd = source == "-" ? STDIN_FILENO : open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CommandFailure("cannot read \(source): \(String(cString: strerror(errno)))") }
        defer { if fd != STDIN_FILENO { close(fd) } }
        let viewModel = ImportViewModel(services: try context.services())
        guard merging else {
            // A chunk at a time: a backup of any size, never all in memory.
            try await viewModel.importLines(source: name) { try Self.readChunk(fd, name: name) }
            try context.emit(
                ImportJSON(documents: viewModel.imported), human: "Imported \(viewModel.imported) documents.\n")
            return
        }
        var bytes: [UInt8] = []
        while let chunk = try Self.readChunk(fd, name: name) { bytes += chunk }
        try await viewModel.importLines(bytes, source: name, merging: true)
        let merge = viewModel.merge ?? MergeReport()
        let conflicts = merge.conflicts.map(\.description)
        try context.emit(
            ImportJSON(documents: merge.added, unchanged: merge.unchanged, conflicts: conflicts),
            human: Self.summary(of: merge))
    }

    /// The next bytes of `fd`, `nil` at its end.
    private nonisolated static func readChunk(_ fd: Int32, name: String) throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw CommandFailure("cannot read \(name): \(String(cString: strerror(errno)))") }
            if count == 0 { return nil }
            return Array(chunk[0..<count])
        }
    }

    /// A merge's summary, then each conflicting path on a line of its own: the paths come from the
    /// file, so they go through TerminalText like any other text from outside.
    static func summary(of merge: MergeReport) -> TerminalText {
        var text = "Imported \(merge.added) documents; \(merge.unchanged) were there already"
        if merge.conflicts.isEmpty { return TerminalText(text + ".\n", multiline: true) }
        text += "; \(merge.conflicts.count) differ from the store's and were left as they are:\n"
        return TerminalText(text + merge.conflicts.map { "  \($0)\n" }.joined(), multiline: true)
    }
}

struct ImportJSON: Encodable {
    var documents: Int
    /// With --merge: documents the store had with the same contents, and the paths of those it had
    /// with other contents.
    var unchanged: Int?
    var conflicts: [String]?
}
