import FoundationEssentials
import Synchronization
import TweetCore
import TweetStore
import TweetSystem
import TwitterArchive

#if canImport(Glibc)
    import Glibc
#endif

struct ImportCommand: Command {
    static let name = "import"
    static let usage = "import FILE|- [--merge] | import --twitter-archive PATH [--password-stdin]"
    static let summary =
        "Read what export printed (a file, or - for stdin) into an empty store, of either engine; --merge adds to one; or bring in a Twitter archive"
    static let options = [
        Option("--merge", "add the documents the store does not have; report those it has with other contents"),
        Option(
            "--twitter-archive", value: "PATH",
            "import the tweets, likes and profile of the archive Twitter lets you download (the .zip, or its folder), as the signed-in user, or as a new account made from it"
        ),
        .passwordStdin,
    ]
    static let createsStore = true

    var source: String
    var merging: Bool
    /// `--twitter-archive`: the archive's path instead of an export.
    var archive: String?
    var passwordFromStdin: Bool

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        merging = try list.flag("--merge")
        archive = try list.option("--twitter-archive")
        passwordFromStdin = try list.flag("--password-stdin")
        let positionals = try list.positionals(atMost: 1)
        if archive != nil {
            guard positionals.isEmpty, !merging else {
                throw UsageError(
                    "--twitter-archive takes the archive's path and no other file or --merge", usage: Self.usage)
            }
            source = ""
            return
        }
        guard !passwordFromStdin else {
            throw UsageError("--password-stdin goes with --twitter-archive, to create its account", usage: Self.usage)
        }
        guard let source = positionals.first else {
            throw UsageError("import needs the file export wrote, or - to read standard input", usage: Self.usage)
        }
        self.source = source
    }

    func run(_ context: Context) async throws {
        if let archive { return try await importArchive(archive, context) }
        let name = source == "-" ? "standard input" : source
        let fd = source == "-" ? STDIN_FILENO : try Self.openSource(source)
        defer { if fd != STDIN_FILENO { close(fd) } }
        let viewModel = ImportViewModel(services: try context.services())
        guard merging else {
            // A chunk at a time: a backup of any size, never all in memory. The share of a regular
            // file read so far gives the time left; a pipe's length is unknown.
            var status = stat()
            let size = fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : 0
            let progress = ProgressLine("Importing")
            defer { progress.clear() }
            let read = ReadTally()
            try await viewModel.importLines(source: name) {
                let chunk = try Self.readChunk(fd, name: name)
                read.bytes.add(chunk?.count ?? 0, ordering: .relaxed)
                return chunk
            } progress: { counted in
                var counted = counted
                if size > 0 { counted.fraction = Double(read.bytes.load(ordering: .relaxed)) / Double(size) }
                progress.update(counted)
            }
            progress.clear()
            try context.emit(
                ImportJSON(documents: viewModel.imported),
                human: "Imported \(counted(viewModel.imported, "document")).\n")
            return
        }
        var bytes: [UInt8] = []
        while let chunk = try Self.readChunk(fd, name: name) { bytes += chunk }
        let progress = ProgressLine("Merging")
        defer { progress.clear() }
        try await viewModel.importLines(bytes, source: name, merging: true) { progress.update($0) }
        progress.clear()
        let merge = viewModel.merge ?? MergeReport()
        let conflicts = merge.conflicts.map(\.description)
        try context.emit(
            ImportJSON(documents: merge.added, unchanged: merge.unchanged, conflicts: conflicts),
            human: Self.summary(of: merge))
    }

    /// The backup at `path`, opened for reading if it is a regular file: a FIFO or a device named
    /// there would hang the command (a pipe is read from standard input, as `-`).
    private static func openSource(_ path: String) throws -> Int32 {
        do {
            guard let fd = try FileIO.openRegular(path, O_RDONLY) else {
                throw CommandFailure("cannot read \(path): \(String(cString: strerror(ENOENT)))")
            }
            return fd
        } catch FileError.cannotOpen(_, let reason) where reason == FileIO.notRegular {
            throw CommandFailure(
                "cannot read \(path): \(reason)", hint: "to read a pipe, give - and send it to standard input")
        } catch FileError.cannotOpen(_, let reason) {
            throw CommandFailure("cannot read \(path): \(reason)")
        }
    }

    /// `--twitter-archive`: read and check the whole archive, make its account when nobody is
    /// signed in (asking for a password as register does), then import, with a progress line on
    /// a terminal.
    private func importArchive(_ path: String, _ context: Context) async throws {
        let viewModel = ArchiveImportViewModel(services: try context.services())
        let reading = ProgressLine("Reading the archive", unit: "tweets")
        defer { reading.clear() }
        try await viewModel.read(path: path) { reading.update(WorkProgress(done: $0)) }
        reading.clear()
        let progress = ProgressLine("Importing", unit: "tweets and likes")
        defer { progress.clear() }
        guard let archive = viewModel.archive else { return }
        var created = false
        if try await viewModel.needsAccount() {
            guard let account = archive.account else { throw ArchiveError.noAccount }
            let password: String
            if passwordFromStdin {
                password = try Prompt.passwordFromStdin()
            } else {
                Output.writeError(
                    TerminalText("Nobody is signed in: creating @\(account.username.lowercased()) from the archive.\n")
                        .rendered(color: false))
                password = try Prompt.password("Password (at least \(AuthService.minimumPasswordLength) characters): ")
                guard password.count >= AuthService.minimumPasswordLength else { throw AuthError.passwordTooShort }
                guard try Prompt.password("Repeat the password: ") == password else {
                    throw CommandFailure("the two passwords differ; nothing was imported")
                }
            }
            try await viewModel.register(password: password)
            created = true
        }
        do {
            try await viewModel.importArchive { done, total in progress.update(WorkProgress(done: done, total: total)) }
        } catch  where created {
            // The account stays: what was imported stays too, and a rerun finishes the rest.
            progress.clear()
            let name = viewModel.user?.username ?? archive.account?.username.lowercased() ?? ""
            throw CommandFailure(
                "\(ErrorPresenter.present(error, options: context.options).message); @\(name) was created and is signed in: run the same import again to finish it"
            )
        }
        progress.clear()
        guard let report = viewModel.report, let user = viewModel.user else { return }
        try context.emit(
            ArchiveImportJSON(user: user.username, report: report), human: Self.summary(of: report, as: user))
    }

    /// The import's one summary line, then what was refused of the profile, if anything.
    static func summary(of report: ArchiveImportReport, as user: User) -> TerminalText {
        func count(_ number: Int, _ one: String, _ many: String) -> String { "\(number) \(number == 1 ? one : many)" }
        var text = "Imported \(count(report.tweets, "tweet", "tweets")) (\(count(report.replies, "reply", "replies")))"
        text += " and \(count(report.likes, "like", "likes")) as @\(user.username)"
        let skipped = report.skipped
        var reasons: [String] = []
        if skipped.alreadyImported > 0 { reasons.append("\(skipped.alreadyImported) already imported") }
        if skipped.importedByAnother > 0 { reasons.append("\(skipped.importedByAnother) imported by another account") }
        if skipped.unstorable > 0 { reasons.append("\(skipped.unstorable) with no text or over 128 KiB") }
        if skipped.likesAlreadyThere > 0 {
            reasons.append("\(count(skipped.likesAlreadyThere, "like", "likes")) already there")
        }
        if skipped.likedTweetsNotHere > 0 {
            reasons.append("\(count(skipped.likedTweetsNotHere, "like", "likes")) of tweets not in this store")
        }
        text += reasons.isEmpty ? "; skipped none" : "; skipped \(skipped.total): " + reasons.joined(separator: ", ")
        if report.overLimit > 0 { text += "; \(report.overLimit) longer than 280 characters, kept whole" }
        if report.cleaned > 0 { text += "; control characters replaced in \(report.cleaned)" }
        if report.photos > 0 { text += "; \(count(report.photos, "photo", "photos")) with them" }
        if report.photosRefused > 0 {
            text += "; \(count(report.photosRefused, "file", "files")) of tweets_media not kept (videos, or not photos)"
        }
        if report.following + report.followers > 0 {
            text +=
                "; \(report.following) following and \(report.followers) followers not imported (the archive names them by ID only)"
        }
        if !report.profile.isEmpty { text += "; the profile's " + report.profile.joined(separator: ", ") + " filled" }
        text += ".\n"
        if !report.profileKept.isEmpty {
            text +=
                "Your profile's \(report.profileKept.joined(separator: ", ")) stayed as set here, not as the archive has it.\n"
        }
        for (field, reason) in report.profileRefused.sorted(by: { $0.key < $1.key }) {
            text += "The profile's \(field) was left out: \(reason).\n"
        }
        return TerminalText(text, multiline: true)
    }

    /// The bytes of the file read so far, for the progress line's share.
    private final class ReadTally: Sendable {
        let bytes = Atomic(0)
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
        let (present, differing) = (merge.unchanged == 1 ? "was" : "were", merge.conflicts.count == 1)
        var text = "Imported \(counted(merge.added, "document")); \(merge.unchanged) \(present) there already"
        if merge.conflicts.isEmpty { return TerminalText(text + ".\n", multiline: true) }
        text += "; \(merge.conflicts.count) "
        text +=
            differing
            ? "differs from the store's and was left as it is:\n"
            : "differ from the store's and were left as they are:\n"
        return TerminalText(text + merge.conflicts.map { "  \($0)\n" }.joined(), multiline: true)
    }
}

struct ArchiveImportJSON: Encodable {
    var user: String
    var report: ArchiveImportReport
}

struct ImportJSON: Encodable {
    var documents: Int
    /// With --merge: documents the store had with the same contents, and the paths of those it had
    /// with other contents.
    var unchanged: Int?
    var conflicts: [String]?
}
