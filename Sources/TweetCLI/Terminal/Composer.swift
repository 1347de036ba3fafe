import FoundationEssentials
import TweetCore
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Writing a tweet in `$VISUAL` or `$EDITOR`, as `git commit` does: a file with a comment that
/// gives the counting rules; an empty result cancels, and a caption that cannot be posted is kept
/// as a draft for `post --draft`.
@MainActor
final class Composer {
    private let context: Context
    /// Whether the caption came from the editor (so a failure keeps it as a draft).
    private(set) var isComposing = false
    /// Whether it came from the kept draft (so posting it removes the draft).
    private var reopenedDraft = false

    init(context: Context) {
        self.context = context
    }

    /// The draft kept by a failed post: `$XDG_STATE_HOME/tweetcli/draft.txt`.
    var draftPath: String {
        AppPaths.stateDirectory(environment: context.environment) + "/draft.txt"
    }

    /// The first line of the instructions: everything from it on is left out, so a tweet may
    /// itself have lines that start with a #hashtag.
    static let marker = "# Write your tweet above this line; an empty tweet cancels."

    static let instructions = """
        \(marker)
        # A tweet weighs at most 280: most characters count 1, CJK characters and emoji count 2,
        # and every link counts 23 however long it is.
        """

    /// The editor's command: `$VISUAL`, else `$EDITOR`, else `vi`.
    var editor: String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = context.environment[name]?.trimmedSpaces(), !value.isEmpty {
                return value
            }
        }
        return "vi"
    }

    /// Opens the editor on a new file (or the kept draft) and returns the caption written. While
    /// `overLimit` finds the caption too long, the editor opens again on it, with what to cut in
    /// its comment, until it fits or is emptied.
    /// - Parameter overLimit: what is wrong with a caption that must be cut, or `nil` when it fits.
    /// - Throws: ``CommandFailure`` when the editor fails or the caption is empty.
    func compose(replyTo: String?, fromDraft: Bool, overLimit: (String) -> String? = { _ in nil }) throws -> String {
        var initial = ""
        if fromDraft {
            // A regular file only: a FIFO put there would hang the command.
            let data: [UInt8]?
            do {
                data = try FileIO.readFile(draftPath)
            } catch {
                throw CommandFailure("cannot read the draft \(draftPath): \(error.sentence)")
            }
            guard let data else { throw CommandFailure("there is no draft to reopen at \(draftPath)") }
            initial = String(decoding: data, as: UTF8.self)
        }
        var note: String?
        while true {
            let caption = try edit(initial, note: note, replyTo: replyTo, fromDraft: fromDraft)
            guard let problem = overLimit(caption) else { return caption }
            (initial, note) = (caption, problem)
        }
    }

    /// One round in the editor: `initial` above the instructions, and `note` (why it opens again)
    /// among them.
    private func edit(_ initial: String, note: String?, replyTo: String?, fromDraft: Bool) throws -> String {
        let directory = FileManager.default.temporaryDirectory.path
        var template = Array("\(directory)/tweetcli-post-XXXXXX.txt".utf8CString)
        let fd = mkstemps(&template, 4)
        guard fd >= 0 else { throw CommandFailure("cannot create a file to write the tweet in, in \(directory)") }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let reply = replyTo.map { "# Replying to tweet \($0).\n" } ?? ""
        let body = initial.isEmpty ? "\n" : initial.hasSuffix("\n") ? initial : initial + "\n"
        let comment = note.map { "# \($0)\n" } ?? ""
        let written = Output.write(body + "\n" + Self.instructions + "\n" + comment + reply, to: fd)
        close(fd)
        guard written else { throw CommandFailure("cannot write the tweet's file \(path)") }
        isComposing = true
        reopenedDraft = fromDraft
        guard let process = Subprocess.start(editor, arguments: [path]) else {
            throw CommandFailure("cannot start the editor '\(editor)'; set VISUAL or EDITOR")
        }
        let status = process.wait()
        guard status == 0 else {
            throw CommandFailure("the editor '\(editor)' exited with status \(status); nothing was posted")
        }
        // A regular file only: an editor that left a FIFO in its place must not hang the command.
        guard let data = (try? FileIO.readFile(path)) ?? nil else {
            throw CommandFailure("cannot read the tweet's file \(path) back; nothing was posted")
        }
        let caption = Self.caption(fromEdited: String(decoding: data, as: UTF8.self))
        guard !caption.isEmpty else { throw CommandFailure("the tweet was empty, so nothing was posted") }
        return caption
    }

    /// The edited file up to the instructions' first line, without surrounding blank lines.
    static func caption(fromEdited text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).prefix { $0 != marker }
            .joined(separator: "\n").trimmed()
    }

    /// Keeps `caption` as the draft and returns the error to report, which names it.
    func keepDraft(_ caption: String, after error: any Error) -> CommandFailure {
        let message = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        do {
            try saveDraft(caption)
        } catch {
            return CommandFailure(message + "; the draft could not be kept at \(draftPath)")
        }
        return CommandFailure(
            message, hint: "your draft is kept in \(draftPath); edit it with: \(context.suggest("post --draft"))")
    }

    /// Keeps `caption` as the draft, readable by this user only, replacing any before.
    func saveDraft(_ caption: String) throws {
        let directory = PathName.parent(draftPath)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data((caption + "\n").utf8).write(to: URL(fileURLWithPath: draftPath), options: .atomic)
        chmod(draftPath, 0o600)
    }

    /// The kept draft, if there is one that can be read (a regular file only).
    func savedDraft() -> String? {
        // No draft, or one that cannot be read, is an empty composer.
        guard let data = (try? FileIO.readFile(draftPath)) ?? nil else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmed()
        return text.isEmpty ? nil : text
    }

    /// Removes the kept draft, whether or not this composer opened it.
    func removeDraft() {
        unlink(draftPath)  // Gone already is fine.
    }

    /// Opens the editor on `text` (the full-screen composer's) and returns what was written.
    func edit(_ text: String, replyTo: String?) throws -> String {
        try edit(text, note: nil, replyTo: replyTo, fromDraft: false)
    }

    /// Removes the kept draft once it has been posted (a new tweet leaves an older draft alone).
    func discardDraft() {
        guard reopenedDraft else { return }
        unlink(draftPath)  // Gone already is fine: nothing is left to keep.
    }
}
