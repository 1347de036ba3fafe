import TweetCore

/// A user row (the course's `UserRowView`) and a profile header (`ProfileHeaderView` and `UserStatsView`).
struct UserRenderer {
    let style: Style
    let width: Int

    func row(_ user: User) -> String {
        "\(style.bold(user.fullname)) \(style.dim("@" + user.username))  \(style.dim("uid " + user.id))\n"
    }

    func header(_ user: User, stats: UserStats?, actionTitle: String?) -> String {
        var lines = [
            style.bold(user.fullname), style.dim("@" + user.username) + (actionTitle.map { "  [\($0)]" } ?? ""),
        ]
        if let bio = user.bio, !bio.isEmpty { lines += DisplayWidth.wrap(bio, width: width) }
        let details = [user.location.map { "📍 \($0)" }, user.website.map { "🔗 \($0)" }]
            .compactMap { $0 }.filter { $0.count > 2 }
        if !details.isEmpty { lines.append(details.joined(separator: "  ")) }
        if let stats {
            lines.append(
                "\(style.bold("\(stats.following)")) Following  \(style.bold("\(stats.followers)")) Followers  "
                    + "\(style.bold("\(stats.tweets)")) Tweets")
        }
        lines.append(style.dim("uid \(user.id)"))
        return lines.joined(separator: "\n") + "\n"
    }
}
