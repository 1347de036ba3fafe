import TweetCore
import TweetStore

/// A user row (the course's `UserRowView`) and a profile header (`ProfileHeaderView` and `UserStatsView`).
struct UserRenderer {
    /// A row of the explore list: name, @username and uid, then `trailing`; after the first line
    /// of `avatar` (the user's picture, where pictures are drawn), with its other lines below.
    func row(_ user: User, trailing: TerminalText = TerminalText(), avatar: [String] = []) -> TerminalText {
        let line: TerminalText = "\(name(user))  \(TerminalText.dim("uid " + user.id))\(trailing)\n"
        guard let first = avatar.first else { return line }
        var text = TerminalText()
        text.append(graphics: first)
        text.append(" ")
        text += line
        for rest in avatar.dropFirst() {
            text.append(graphics: rest)
            text.append("\n")
        }
        return text
    }

    /// "Ada Lovelace @ada": the name as a sentence gives it, never in doubled parentheses.
    func name(_ user: User) -> TerminalText {
        "\(TerminalText.bold(user.fullname)) \(TerminalText.dim("@" + user.username))"
    }

    /// The header; `user.email` shows only when the service left it in (your own profile).
    /// `avatar`: the lines of the picture drawn above the name, if pictures are drawn.
    func header(_ user: User, stats: UserStats?, actionTitle: String?, avatar: [String] = []) -> TerminalText {
        var text = TerminalText()
        for line in avatar {
            text.append(graphics: line)
            text.append("\n")
        }
        text += "\(TerminalText.bold(user.fullname))\n"
        text +=
            .dim("@" + user.username) + (user.isProtected ? "  🔒 protected" : "")
            + (actionTitle.map { "  [\($0)]" } ?? "")
            + "\n"
        if let bio = user.bio, !bio.isEmpty { text += TerminalText(bio, multiline: true) + "\n" }
        let details: [TerminalText] = [
            user.location.flatMap { $0.isEmpty ? nil : "📍 \($0)" },
            user.website.flatMap { $0.isEmpty ? nil : "🔗 \($0)" },
            user.email.map { "✉ \($0)" },
        ].compactMap { $0 }
        if !details.isEmpty { text += details.joined(separator: "  ") + "\n" }
        if let stats {
            text +=
                "\(TerminalText.bold(String(stats.following))) Following  "
                + "\(TerminalText.bold(String(stats.followers))) Follower\(stats.followers == 1 ? "" : "s")  "
                + "\(TerminalText.bold(String(stats.tweets))) Tweet\(stats.tweets == 1 ? "" : "s")\n"
        }
        text += .dim("uid \(user.id)") + "\n"
        return text
    }
}
