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
        let bytes: [UInt8]
        let name: String
        if source == "-" {
            name = "standard input"
            bytes = try Self.readAll(STDIN_FILENO, name: name)
        } else {
            name = source
            let fd = open(source, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw CommandFailure("cannot read \(source): \(String(cString: strerror(errno)))")
            }
            defer { close(fd) }
            bytes = try Self.readAll(fd, name: name)
        }
        let viewModel = ImportViewModel(services: try context.services())
        try await viewModel.importLines(bytes, source: name, merging: merging)
        guard let merge = viewModel.merge else {
            try context.emit(
                ImportJSON(documents: viewModel.imported), human: "Imported \(viewModel.imported) documents.\n")
            return
        }
        let conflicts = merge.conflicts.map(\.description)
        try context.emit(
            ImportJSON(documents: merge.added, unchanged: merge.unchanged, conflicts: conflicts),
            human: Self.summary(of: merge))
    }

    /// A merge's summary, then each conflicting path on a line of its own: the paths come from the
    /// file, so they go through TerminalText like any other text from outside.
    static func summary(of merge: MergeReport) -> TerminalText {
        var text = "Imported \(merge.added) documents; \(merge.unchanged) were there already"
        if merge.conflicts.isEmpty { return TerminalText(text + ".\n", multiline: true) }
        text += "; \(merge.conflicts.count) differ from the store's and were left as they are:\n"
        return TerminalText(text + merge.conflicts.map { "  \($0)\n" }.joined(), multiline: true)
    }

    private static func readAll(_ fd: Int32, name: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw CommandFailure("cannot read \(name): \(String(cString: strerror(errno)))") }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }
}

struct ImportJSON: Encodable {
    var documents: Int
    /// With --merge: documents the store had with the same contents, and the paths of those it had
    /// with other contents.
    var unchanged: Int?
    var conflicts: [String]?
}
