import FoundationEssentials
import TweetCore
import TweetDemo
import TweetStore

struct SeedCommand: Command {
    static let name = "seed"
    static let movesBulkData = true
    static let usage = "seed [--users N] [--tweets N] [--likes N] [--follows N] [--seed S] [--now TIME]"
    static let summary = "Fill an empty store with demo data (the same S and TIME give the same data)"
    static let createsStore = true
    static let options = [
        Option("--users", value: "N", "demo accounts, 1–1000000 (default 25)"),
        Option("--tweets", value: "N", "tweets, 0–10000000 (default 10 per user)"),
        Option("--likes", value: "N", "likes, at most half of users × tweets (default one per tweet)"),
        Option("--follows", value: "N", "follows per user, fewer than --users (default up to 10)"),
        Option("--seed", value: "S", "the random seed, a whole number (default 1)"),
        Option("--now", value: "TIME", "the newest tweet is minutes before TIME, in ISO 8601 (default now)"),
    ]

    var options: DemoSeeder.Options

    var commits: Bool { true }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        let users = try list.number("--users", in: 1...1_000_000) ?? 25
        options = DemoSeeder.Options(
            users: users, tweets: try list.number("--tweets", in: 0...10_000_000),
            likes: try list.number("--likes", in: 0...10_000_000),
            follows: try list.number("--follows", in: 0...10_000),
            seed: UInt64(try list.number("--seed", in: 0...Int.max) ?? 1),
            now: try list.option("--now").map { [usage = list.usage] text in
                guard let time = ArgumentList.time(text), DemoSeeder.Options.nowRange.contains(time) else {
                    throw UsageError(
                        "--now must be a time in ISO 8601 from the year 2000 to 2999, such as "
                            + "2026-12-05T12:00:00Z, not '\(text)'", usage: usage)
                }
                return time
            })
        _ = try list.positionals(atMost: 0)
    }

    /// Impossible counts, and more data than this machine's free memory can hold while it is made,
    /// are refused before the store is touched, so a failed seed leaves nothing.
    func validate() throws {
        try options.validate(availableBytes: MachineMemory.availableBytes())
    }

    func run(_ context: Context) async throws {
        // The store's own file system holds the sort's runs and the segment: checked before the
        // store is made (a PostgreSQL server's disk is not this machine's to ask).
        if let directory = context.localStoreDirectory {
            try options.validate(availableBytes: nil, availableDiskBytes: MachineDisk.availableBytes(near: directory))
        }
        let viewModel = SeedViewModel(services: try context.services())
        let progress = ProgressLine("Seeding")
        defer { progress.clear() }
        try await viewModel.seed(options) { progress.update($0) }
        progress.clear()
        guard let summary = viewModel.summary else { return }
        try context.emit(
            SeedJSON(summary),
            human: "Seeded \(counted(summary.users, "user")), \(counted(summary.tweets, "tweet")) "
                + "(\(counted(summary.replies, "reply", plural: "replies"))), \(counted(summary.likes, "like")) and "
                + "\(counted(summary.follows, "follow")).\n"
                + "Every demo account's password is \(DemoSeeder.demoPassword). "
                + "Read the feed with: \(context.suggest("feed"))\n")
    }
}

struct SeedJSON: Encodable {
    var users, tweets, replies, likes, follows: Int

    init(_ summary: DemoSeeder.Summary) {
        (users, tweets, replies, likes, follows) =
            (summary.users, summary.tweets, summary.replies, summary.likes, summary.follows)
    }
}
