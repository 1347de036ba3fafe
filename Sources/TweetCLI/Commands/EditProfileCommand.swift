import TweetCore
import TweetStore

struct EditProfileCommand: Command {
    static let name = "edit-profile"
    static let usage =
        "edit-profile [--fullname F] [--bio B] [--location L] [--website URL] [--avatar FILE|URL] [--twtxt-url URL]"
        + " [--protected on|off]"
    static let summary = "Change your profile (an empty value clears a field)"
    static let options = [
        Option("--fullname", value: "F", "your name, 1–50 characters"),
        Option("--bio", value: "B", "about you, up to 160 characters (line breaks allowed)"),
        Option("--location", value: "L", "where you are, up to 30 characters"),
        Option("--website", value: "URL", "an http:// or https:// address, up to 100 characters"),
        Option(
            "--avatar", value: "FILE|URL",
            "your picture: a photo file, kept as its centre square without its metadata, or an http(s) address"),
        Option(
            "--twtxt-url", value: "URL",
            "where you publish export --twtxt: its # url, and where twtxt mentions of you point"),
        Option(
            "--protected", value: "on|off",
            "on: only followers you approve see your tweets; off: everyone does, and those who asked follow you"),
    ]

    var changes: ProfileChanges
    /// `--avatar FILE`: a picture to keep, rather than an address.
    var avatarFile: String?

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        changes = ProfileChanges(
            fullname: try list.option("--fullname"), bio: try list.option("--bio"),
            location: try list.option("--location"), website: try list.option("--website"),
            profileImageUrl: try list.option("--avatar"), twtxtUrl: try list.option("--twtxt-url"))
        // An address, or empty to clear, is the URL field as before; anything else names a file.
        if let avatar = changes.profileImageUrl?.trimmed(), !avatar.isEmpty,
            !["http://", "https://"].contains(where: { avatar.lowercased().hasPrefix($0) })
        {
            avatarFile = avatar
            changes.profileImageUrl = nil
        }
        if let protected = try list.option("--protected") {
            switch protected.trimmed().lowercased() {
            case "on": changes.isProtected = true
            case "off": changes.isProtected = false
            default: throw UsageError("--protected takes on or off, not '\(protected)'", usage: Self.usage)
            }
        }
        _ = try list.positionals(atMost: 0)
    }

    func validate() throws {
        if changes.isEmpty && avatarFile == nil {
            throw UsageError("edit-profile needs at least one field to change", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let viewModel = EditProfileViewModel(services: try context.services())
        if let avatarFile { try await viewModel.setAvatar(try PhotoFile.read(avatarFile), file: avatarFile) }
        if !changes.isEmpty { try await viewModel.save(changes) }
        guard let user = viewModel.user else { return }
        let avatar = await context.avatarLines(for: user)
        try context.emit(
            user,
            human: "Profile saved.\n" + context.userRenderer.header(user, stats: nil, actionTitle: nil, avatar: avatar))
    }
}
